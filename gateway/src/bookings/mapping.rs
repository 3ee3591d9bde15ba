//! A cancellation → `OTA_CancelRS`.

use chrono::{NaiveDateTime, Offset, TimeZone};
use chrono_tz::Tz;
use ota_messages::booking_read::ReservationUniqueId;
use ota_messages::cancel::{CancelInfo, CancelRule, CancelRuleType, CancelRules, OtaCancelRs, TransactionStatus};
use ota_messages::common::{CompanyName, IdContext, ReservationIdCode};
use ota_messages::runtime as rt;

use super::rules::{Cancellable, Outcome};
use crate::requestors::Requestor;

/// A local time of a place with its UTC offset then (`Z` for none; the earlier offset of a
/// repeated hour, the later of a skipped one); without the place's zone, the local time alone.
pub fn local_time(local: NaiveDateTime, zone: Option<Tz>) -> rt::DateTime {
    let offset = zone.and_then(|tz| {
        let at = |t: NaiveDateTime| tz.offset_from_local_datetime(&t).earliest();
        at(local).or_else(|| at(local + chrono::Duration::hours(1))).map(|o| o.fix().local_minus_utc() / 60)
    });
    let zone = offset.map(|m| if m == 0 { rt::Zone::Utc } else { rt::Zone::Offset(i16::try_from(m).unwrap_or(0)) });
    rt::DateTime { local, zone, fraction_digits: 0 }
}

/// The answer: `Pending` for a Quote, `Committed` after a Commit; the item's reference when
/// one item was named (`item`: as the request gave it), the booking's Internal and Client
/// references (the Client one with the requestor as `CompanyName`), and the charge with the
/// time it was (or would be) registered, in the local time of the hotel or activity (`zone`).
pub fn cancel_rs(
    b: &Cancellable,
    o: &Outcome,
    zone: Option<Tz>,
    item: Option<(&str, IdContext)>,
    requestor: &Requestor,
    commit: bool,
) -> OtaCancelRs {
    let mut unique_id = Vec::new();
    if let Some((id, id_context)) = item {
        unique_id.push(ReservationUniqueId {
            r#type: ReservationIdCode::Item,
            id: id.to_string(),
            id_context,
            company_name: None,
        });
    }
    unique_id.push(ReservationUniqueId {
        r#type: ReservationIdCode::Booking,
        id: b.internal.clone(),
        id_context: IdContext::Internal,
        company_name: None,
    });
    if !b.client.is_empty() {
        unique_id.push(ReservationUniqueId {
            r#type: ReservationIdCode::Booking,
            id: b.client.clone(),
            id_context: IdContext::Client,
            company_name: Some(CompanyName {
                company_short_name: None,
                code: Some(requestor.id.clone()),
                value: requestor.name.clone(),
                travel_sector: None,
            }),
        });
    }
    let rule = CancelRule {
        cancel_by_date: Some(local_time(o.at, zone)),
        currency_code: Some(b.currency.clone()),
        amount: Some(rt::Decimal(o.cost.amount)),
        percent: Some(rt::Decimal(o.cost.percent.normalize())),
        r#type: Some(CancelRuleType::Charge),
    };
    OtaCancelRs {
        status: if commit { TransactionStatus::Committed } else { TransactionStatus::Pending },
        unique_id,
        cancel_info_rs: Some(CancelInfo { cancel_rules: Some(CancelRules { cancel_rule: vec![rule] }) }),
        ..OtaCancelRs::success()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn t(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S").unwrap()
    }

    #[test]
    fn a_local_time_carries_its_places_offset() {
        let madrid = Some(chrono_tz::Europe::Madrid);
        assert_eq!(local_time(t("2030-01-15T10:00:00"), madrid).zone, Some(rt::Zone::Offset(60)));
        assert_eq!(local_time(t("2030-07-15T10:00:00"), madrid).zone, Some(rt::Zone::Offset(120)));
        // 02:30 on the last Sunday of March does not exist in Madrid: the offset after it.
        assert_eq!(local_time(t("2030-03-31T02:30:00"), madrid).zone, Some(rt::Zone::Offset(120)));
        // 02:30 on the last Sunday of October happens twice: the earlier (summer) offset.
        assert_eq!(local_time(t("2030-10-27T02:30:00"), madrid).zone, Some(rt::Zone::Offset(120)));
        assert_eq!(local_time(t("2030-01-15T10:00:00"), Some(chrono_tz::UTC)).zone, Some(rt::Zone::Utc));
        assert_eq!(local_time(t("2030-01-15T10:00:00"), None).zone, None);
        assert_eq!(local_time(t("2030-01-15T10:00:00"), madrid).local, t("2030-01-15T10:00:00"));
    }
}
