//! `OTA_HotelRateAmountNotifRQ` read: the amount of a night per room type, rate plan, currency
//! and number of guests, with the parts every notification shares ([`super::supply`]).

use ota_messages::common::{AgeQualifyingCode, ErrorCode};
use ota_messages::hotel_rate_amount_notif::{BaseByGuestAmt, OtaHotelRateAmountNotifRq, RateAmountRate};

use super::supply::{Collect, Read, hotel, plan, rooms, span, stamp, weekdays};
use crate::errors::Problem;
use crate::hotels::catalogue::{Catalogue, Hotel};
use crate::hotels::rules::supply::{Change, Item, Span};
use crate::shared::context::Ctx;
use crate::shared::values;

/// `OTA_HotelRateAmountNotifRQ`: the amount of a night per room type, rate plan, currency and
/// number of guests.
pub fn rate_amount(cx: &Ctx, catalogue: &Catalogue, rq: &OtaHotelRateAmountNotifRq) -> Result<Read, Vec<Problem>> {
    const BASE: &str = "/OTA_HotelRateAmountNotifRQ/RateAmountMessages";
    let hotel = hotel(cx, catalogue, rq.rate_amount_messages.hotel_code.as_deref(), BASE)?;
    let mut out = Collect::default();
    if rq.notif_type == Some(ota_messages::hotel_rate_amount_notif::RateNotifType::Remove) {
        return Err(vec![
            Problem::not_supported("NotifType Remove is not read: send the amounts (Delta or Overlay).")
                .at("/OTA_HotelRateAmountNotifRQ/@NotifType"),
        ]);
    }
    for (i, m) in rq.rate_amount_messages.rate_amount_message.iter().enumerate() {
        let tag = format!("{BASE}/RateAmountMessage[{}]", i + 1);
        let sac = &m.status_application_control;
        let sac_tag = format!("{tag}/StatusApplicationControl");
        let head = (|| {
            let span = span(sac.start.as_ref(), sac.end.as_ref(), sac.duration.as_deref(), weekdays(sac), &sac_tag)?;
            let rooms = rooms(sac, hotel, false, &sac_tag)?;
            let board = plan(sac, catalogue, &sac_tag)?.ok_or_else(|| {
                Problem::required("The rate plan (board) is RatePlanCode.").at(format!("{sac_tag}/@RatePlanCode"))
            })?;
            Ok((span, rooms, board))
        })();
        let (sac_span, rooms, board) = match head {
            Ok(h) => h,
            Err(p) => {
                out.push(Err(p));
                continue;
            }
        };
        for (j, rate) in m.rates.rate.iter().enumerate() {
            let r_tag = format!("{tag}/Rates/Rate[{}]", j + 1);
            let given = rate.start.is_some() || rate.end.is_some();
            let rate_days = [rate.mon, rate.tue, rate.weds, rate.thur, rate.fri, rate.sat, rate.sun];
            let span = if given || rate_days.iter().any(Option::is_some) {
                let (start, end) = if given {
                    (rate.start.as_ref(), rate.end.as_ref())
                } else {
                    (sac.start.as_ref(), sac.end.as_ref())
                };
                match span(
                    start,
                    end,
                    rate.duration.as_deref(),
                    if rate_days.iter().any(Option::is_some) { rate_days } else { weekdays(sac) },
                    &r_tag,
                ) {
                    Ok(s) => s,
                    Err(p) => {
                        out.push(Err(p));
                        continue;
                    }
                }
            } else {
                sac_span
            };
            for (present, name) in [
                (rate.additional_guest_amounts.is_some(), "AdditionalGuestAmounts"),
                (rate.fees.is_some(), "Fees"),
                (rate.meals_included.is_some(), "MealsIncluded"),
            ] {
                out.note(
                    present,
                    &format!("{name} is not kept by the gateway: not applied."),
                    format!("{r_tag}/{name}"),
                );
            }
            let amounts = rate.base_by_guest_amts.as_ref().map(|a| a.base_by_guest_amt.as_slice()).unwrap_or_default();
            if amounts.is_empty() {
                out.push(Err(Problem::required("The amounts are BaseByGuestAmts/BaseByGuestAmt.")
                    .at(format!("{r_tag}/BaseByGuestAmts"))));
            }
            for (k, amt) in amounts.iter().enumerate() {
                let a_tag = format!("{r_tag}/BaseByGuestAmts/BaseByGuestAmt[{}]", k + 1);
                if amt
                    .age_qualifying_code
                    .as_ref()
                    .is_some_and(|c| !matches!(c, AgeQualifyingCode::Adult | AgeQualifyingCode::Senior))
                {
                    out.note(true, "A room is priced by its number of guests: an amount of one age category other than adults is not applied.", a_tag);
                    continue;
                }
                out.push(amount_items(hotel, &rooms, &board, span, rate, amt, &r_tag, &a_tag));
            }
        }
    }
    let stamp = stamp(cx, rq.time_stamp.as_ref(), "OTA_HotelRateAmountNotifRQ")?;
    out.finish(hotel, (cx.now, stamp), &cx.requestor.id, "OTA_HotelRateAmountNotifRQ")
}

/// The items of one `BaseByGuestAmt`: its amount for its number of guests, on each room type of
/// its message, checked (amount, currency of the hotel, guests the room takes).
#[allow(clippy::too_many_arguments)]
fn amount_items(
    hotel: &Hotel,
    rooms: &[String],
    board: &str,
    span: Span,
    rate: &RateAmountRate,
    amt: &BaseByGuestAmt,
    r_tag: &str,
    a_tag: &str,
) -> Result<Vec<Item>, Problem> {
    let Some(amount) = amt.amount_after_tax.or(amt.amount_before_tax).map(|d| d.0) else {
        return Err(Problem::required("The amount is AmountAfterTax (or AmountBeforeTax).")
            .at(format!("{a_tag}/@AmountAfterTax")));
    };
    let Some(currency) = amt.currency_code.clone().or_else(|| rate.currency_code.clone()) else {
        return Err(Problem::required("The currency is CurrencyCode (of the Rate or the amount).")
            .at(format!("{r_tag}/@CurrencyCode")));
    };
    if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(Problem::biz(
            ErrorCode::InvalidCurrencyCode,
            format!("CurrencyCode {currency:?} is not an ISO 4217 code."),
        )
        .at(format!("{r_tag}/@CurrencyCode")));
    }
    // The hotel's currencies (those of its content's rates), when it has any.
    let sold: std::collections::BTreeSet<&str> = hotel.rates.iter().map(|r| r.currency.as_str()).collect();
    if !sold.is_empty() && !sold.contains(currency.as_str()) {
        return Err(Problem::biz(
            ErrorCode::InvalidCurrencyCode,
            format!(
                "CurrencyCode {currency} is not a currency of hotel {} (it sells in {}).",
                hotel.code,
                sold.into_iter().collect::<Vec<_>>().join(", ")
            ),
        )
        .at(format!("{r_tag}/@CurrencyCode")));
    }
    // Within the largest amount and the currency's smallest unit, as an import's.
    let amount = values::amount(&amount.to_string()).and_then(|a| values::in_currency(a, &currency)).map_err(|e| {
        Problem::biz(ErrorCode::InvalidValue, format!("The amount {e}.")).at(format!("{a_tag}/@AmountAfterTax"))
    })?;
    let guests = u32::try_from(amt.number_of_guests.unwrap_or(0)).unwrap_or(u32::MAX);
    // No more guests than the room type takes (0: any number).
    if let Some(room) = hotel.rooms.iter().find(|r| rooms.contains(&r.code) && !r.fits(guests)) {
        return Err(Problem::biz(
            ErrorCode::InvalidValue,
            format!(
                "NumberOfGuests {guests} is more than room type {} takes ({}).",
                room.code,
                room.max_guests.unwrap_or_default()
            ),
        )
        .at(format!("{a_tag}/@NumberOfGuests")));
    }
    let change = Change::Rate { board: board.to_string(), currency, guests, amount };
    Ok(rooms
        .iter()
        .map(|room| Item { tag: a_tag.to_string(), room: room.clone(), span, change: change.clone() })
        .collect())
}
