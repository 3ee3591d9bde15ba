//! The supply notifications read into a [`Notification`]: the hotel (owned by the supplier),
//! the stamp, and one item per room type and change, each with its `Tag`. Everything the
//! gateway cannot take as asked is a problem naming it (the whole message is refused); what
//! 2016B allows and changes nothing here (`HurdleRate`, `OffSell`, a child's amount, …) is
//! named in a warning.

use chrono::{DateTime, Utc};
use ota_messages::common::{AgeQualifyingCode, ErrorCode, InvCodeApplication, StatusApplicationControl, TimeUnit};
use ota_messages::hotel_avail_notif::{self as an, OtaHotelAvailNotifRq};
use ota_messages::hotel_inv_count_notif::{InvCountActionType, OtaHotelInvCountNotifRq};
use ota_messages::hotel_rate_amount_notif::OtaHotelRateAmountNotifRq;
use ota_messages::runtime::{self as rt, Zone};

use crate::errors::Problem;
use crate::hotels::catalogue::{Catalogue, Hotel};
use crate::hotels::rules::MAX_DAYS_AHEAD;
use crate::hotels::rules::supply::{Change, Item, Notification, Span, check_size};
use crate::hotels::supply::{EVERY_PLAN, Restriction};
use crate::shared::context::Ctx;
use crate::shared::values;

/// A notification read: what to apply, and the warnings of what it does not change.
#[derive(Debug)]
pub struct Read {
    /// What to apply.
    pub notification: Notification,
    /// Parts taken and not applied, each named.
    pub notes: Vec<Problem>,
}

/// The most problems one answer lists.
const MAX_PROBLEMS: usize = 20;

/// The hotel a message names, when it is one of the supplier's (the message's one problem
/// otherwise).
fn hotel<'c>(cx: &Ctx, catalogue: &'c Catalogue, code: Option<&str>, tag: &str) -> Result<&'c Hotel, Vec<Problem>> {
    let Some(code) = code else {
        return Err(vec![Problem::required("The hotel is named by HotelCode.").at(format!("{tag}/@HotelCode"))]);
    };
    // Another supplier's hotel and one that does not exist get the same answer.
    match catalogue.hotel(code) {
        Some(h) if cx.requestor.role.owns(code) => Ok(h),
        _ => Err(vec![
            Problem::biz(
                ErrorCode::InvalidHotelCode,
                format!(
                    "HotelCode {:?} is not a hotel this supplier may update.",
                    crate::shared::log_text::LogText(code)
                ),
            )
            .at(format!("{tag}/@HotelCode")),
        ]),
    }
}

/// How far after the gateway's clock a message's `TimeStamp` may be (clocks differ a little).
pub const MAX_CLOCK_AHEAD: chrono::Duration = chrono::Duration::minutes(5);

/// The message's `TimeStamp` as an instant (no zone: UTC), else when it arrived. A stamp more
/// than [`MAX_CLOCK_AHEAD`] after now is refused: as the newest stamp wins, a message from the
/// future (year 9999) would hold back every later update of the days it sets, for good.
fn stamp(cx: &Ctx, time_stamp: Option<&rt::DateTime>, root: &str) -> Result<DateTime<Utc>, Vec<Problem>> {
    let Some(t) = time_stamp else { return Ok(cx.now) };
    let utc = match t.zone {
        None | Some(Zone::Utc) => t.local,
        Some(Zone::Offset(minutes)) => t.local - chrono::Duration::minutes(i64::from(minutes)),
    }
    .and_utc();
    if utc > cx.now + MAX_CLOCK_AHEAD {
        return Err(vec![
            Problem::biz(
                ErrorCode::InvalidDate,
                format!(
                    "TimeStamp {} is later than now ({}): a notification's TimeStamp is when it was made (at most {} minutes ahead of the gateway's clock), as the latest one wins.",
                    utc.format("%Y-%m-%dT%H:%M:%SZ"),
                    cx.now.format("%Y-%m-%dT%H:%M:%SZ"),
                    MAX_CLOCK_AHEAD.num_minutes()
                ),
            )
            .at(format!("/{root}/@TimeStamp")),
        ]);
    }
    Ok(utc)
}

/// The days of a `StatusApplicationControl` (or of a `Rate` narrowing it): `Start` to `End`,
/// both included; `Start` and a `Duration` in days (`P7D`: seven days); `Start` alone: that day.
fn span(
    start: Option<&rt::Date>,
    end: Option<&rt::Date>,
    duration: Option<&str>,
    weekdays: [Option<bool>; 7],
    tag: &str,
) -> Result<Span, Problem> {
    let Some(start) = start.map(|d| d.0) else {
        return Err(Problem::required("The first day is Start (YYYY-MM-DD).").at(format!("{tag}/@Start")));
    };
    let end = match (end, duration) {
        (Some(end), _) => end.0,
        (None, None) => start,
        (None, Some(d)) => {
            let days = d
                .strip_prefix('P')
                .and_then(|d| d.strip_suffix('D'))
                .and_then(|n| n.parse::<u64>().ok())
                .filter(|n| (1..=3660).contains(n));
            let Some(end) = days.and_then(|n| start.checked_add_days(chrono::Days::new(n - 1))) else {
                return Err(Problem::not_supported(format!(
                    "Duration {d:?} is not read: give End, or a Duration in days (P7D)."
                ))
                .at(format!("{tag}/@Duration")));
            };
            end
        }
    };
    if end < start {
        return Err(Problem::biz(
            ErrorCode::InvalidStartEndDateCombination,
            format!("End {end} is before Start {start}."),
        )
        .at(format!("{tag}/@End")));
    }
    let weekdays = weekdays.iter().any(Option::is_some).then(|| weekdays.map(|d| d == Some(true)));
    Ok(Span { start, end, weekdays })
}

/// The weekday flags of a `StatusApplicationControl`.
fn weekdays(c: &StatusApplicationControl) -> [Option<bool>; 7] {
    [c.mon, c.tue, c.weds, c.thur, c.fri, c.sat, c.sun]
}

/// The room types a `StatusApplicationControl` names (`InvTypeCode`, or `InvCode` read as a
/// room type); every room type of the hotel when it names none and `every` allows it.
fn rooms(c: &StatusApplicationControl, hotel: &Hotel, every: bool, tag: &str) -> Result<Vec<String>, Problem> {
    if c.inv_code_application == Some(InvCodeApplication::InvGroupingCode) {
        return Err(Problem::not_supported("InvCode names one room type here; groups of room types are not read.")
            .at(format!("{tag}/@InvCodeApplication")));
    }
    let code = match (c.inv_type_code.as_deref(), c.inv_code.as_deref()) {
        (Some(a), Some(b)) if a != b => {
            return Err(Problem::biz(
                ErrorCode::InvalidRoomTypeCode,
                format!("InvTypeCode {a:?} and InvCode {b:?} name different room types."),
            )
            .at(format!("{tag}/@InvCode")));
        }
        (Some(a), _) | (None, Some(a)) => a,
        (None, None) if every => return Ok(hotel.rooms.iter().map(|r| r.code.clone()).collect()),
        (None, None) => {
            return Err(Problem::required("The room type is named by InvTypeCode.").at(format!("{tag}/@InvTypeCode")));
        }
    };
    if hotel.room(code).is_none() {
        return Err(Problem::biz(
            ErrorCode::InvalidRoomTypeCode,
            format!("InvTypeCode {code:?} is not a room type of hotel {}.", hotel.code),
        )
        .at(format!("{tag}/@InvTypeCode")));
    }
    Ok(vec![code.to_string()])
}

/// The rate plan a `StatusApplicationControl` names: a board of the gateway; `None` when it
/// names none.
fn plan(c: &StatusApplicationControl, catalogue: &Catalogue, tag: &str) -> Result<Option<String>, Problem> {
    match c.rate_plan_code.as_deref() {
        None => Ok(None),
        Some(code) if catalogue.is_board(code) => Ok(Some(code.to_string())),
        Some(code) => Err(Problem::biz(
            ErrorCode::InvalidValue,
            format!("RatePlanCode {code:?} is not a rate plan (board) of the gateway."),
        )
        .at(format!("{tag}/@RatePlanCode"))),
    }
}

/// Collects an item's problems (at most [`MAX_PROBLEMS`]) and the notification's items.
#[derive(Default)]
struct Collect {
    items: Vec<Item>,
    problems: Vec<Problem>,
    notes: Vec<Problem>,
}

impl Collect {
    fn push(&mut self, r: Result<Vec<Item>, Problem>) {
        match r {
            Ok(items) => self.items.extend(items),
            Err(p) if self.problems.len() < MAX_PROBLEMS => self.problems.push(p),
            Err(_) => {}
        }
    }

    fn note(&mut self, unread: bool, text: &str, tag: String) {
        if unread && self.notes.len() < MAX_PROBLEMS {
            self.notes.push(Problem::advisory(ErrorCode::RequestedActionNotPossible, text.to_string()).at(tag));
        }
    }

    /// Leaves out the days after the selling horizon (the hotel's today plus
    /// [`MAX_DAYS_AHEAD`] days): nothing can be booked there, so a supplier cannot fill the
    /// database with them (nights to 9999); a note says so.
    fn within_horizon(&mut self, hotel: &Hotel, now: DateTime<Utc>) {
        let today = now.with_timezone(&hotel.time_zone).date_naive();
        let Some(last) = today.checked_add_days(chrono::Days::new(MAX_DAYS_AHEAD.unsigned_abs())) else { return };
        let mut cut = None;
        self.items.retain_mut(|item| {
            if item.span.end <= last {
                return true;
            }
            cut.get_or_insert_with(|| item.tag.clone());
            item.span.end = last;
            item.span.start <= last
        });
        if let Some(tag) = cut {
            self.note(
                true,
                &format!(
                    "The days after {last} are past the selling horizon ({MAX_DAYS_AHEAD} days ahead): not applied."
                ),
                tag,
            );
        }
    }

    fn finish(
        mut self,
        hotel: &Hotel,
        (now, stamp): (DateTime<Utc>, DateTime<Utc>),
        source: &str,
        root: &str,
    ) -> Result<Read, Vec<Problem>> {
        if !self.problems.is_empty() {
            return Err(self.problems);
        }
        self.within_horizon(hotel, now);
        check_size(&self.items, root).map_err(|p| vec![p])?;
        Ok(Read {
            notification: Notification {
                hotel: hotel.code.clone(),
                stamp,
                source: Some(source.to_string()),
                items: self.items,
            },
            notes: self.notes,
        })
    }
}

/// `OTA_HotelInvCountNotifRQ`: the rooms on sale per room type and days.
pub fn inv_count(cx: &Ctx, catalogue: &Catalogue, rq: &OtaHotelInvCountNotifRq) -> Result<Read, Vec<Problem>> {
    const BASE: &str = "/OTA_HotelInvCountNotifRQ/Inventories";
    let hotel = hotel(cx, catalogue, rq.inventories.hotel_code.as_deref(), BASE)?;
    let mut out = Collect::default();
    for (i, inv) in rq.inventories.inventory.iter().enumerate() {
        let tag = format!("{BASE}/Inventory[{}]", i + 1);
        out.note(inv.off_sell.is_some(), "OffSell is not kept by the gateway: not applied.", format!("{tag}/OffSell"));
        out.note(
            inv.status_application_control.rate_plan_code.is_some(),
            "Rooms on sale are of a room type, whatever the rate plan: the count is applied to the room type.",
            format!("{tag}/StatusApplicationControl/@RatePlanCode"),
        );
        out.push((|| {
            let sac = &inv.status_application_control;
            let sac_tag = format!("{tag}/StatusApplicationControl");
            let span = span(sac.start.as_ref(), sac.end.as_ref(), sac.duration.as_deref(), weekdays(sac), &sac_tag)?;
            let rooms = rooms(sac, hotel, false, &sac_tag)?;
            let [count] = inv.inv_counts.inv_count.as_slice() else {
                return Err(Problem::not_supported("One InvCount per Inventory is read: the rooms on sale.").at(format!("{tag}/InvCounts")));
            };
            let count_tag = format!("{tag}/InvCounts/InvCount");
            if let Some(t) = count.count_type.as_deref().filter(|t| !matches!(*t, "1" | "2")) {
                return Err(Problem::not_supported(format!("CountType {t:?} is not kept by the gateway: it keeps the rooms on sale (CountType 2, available, or 1, physical).")).at(format!("{count_tag}/@CountType")));
            }
            let Some(n) = count.count else {
                return Err(Problem::required("The rooms are Count.").at(format!("{count_tag}/@Count")));
            };
            let change = match count.action_type.clone().unwrap_or(InvCountActionType::Allocation) {
                InvCountActionType::Adjustment => Change::AdjustRooms(n),
                action => {
                    let Ok(n) = u32::try_from(n) else {
                        return Err(Problem::biz(ErrorCode::InvalidValue, format!("Count {n} is not a number of rooms (0 or more).")).at(format!("{count_tag}/@Count")));
                    };
                    match action {
                        InvCountActionType::Remaining => Change::RemainingRooms(n),
                        InvCountActionType::Used => {
                            return Err(Problem::not_supported("ActionType Used is not read: send the rooms on sale (Allocation), the rooms left (Remaining) or a change (Adjustment).")
                                .at(format!("{count_tag}/@ActionType")));
                        }
                        _ => Change::SetRooms(n),
                    }
                }
            };
            Ok(rooms.into_iter().map(|room| Item { tag: tag.clone(), room, span, change: change.clone() }).collect())
        })());
    }
    let stamp = stamp(cx, rq.time_stamp.as_ref(), "OTA_HotelInvCountNotifRQ")?;
    out.finish(hotel, (cx.now, stamp), &cx.requestor.id, "OTA_HotelInvCountNotifRQ")
}

/// `OTA_HotelAvailNotifRQ`: booking limits, restrictions and stay limits per room type, rate
/// plan and days.
pub fn avail(cx: &Ctx, catalogue: &Catalogue, rq: &OtaHotelAvailNotifRq) -> Result<Read, Vec<Problem>> {
    const BASE: &str = "/OTA_HotelAvailNotifRQ/AvailStatusMessages";
    let hotel = hotel(cx, catalogue, rq.avail_status_messages.hotel_code.as_deref(), BASE)?;
    let mut out = Collect::default();
    for (i, m) in rq.avail_status_messages.avail_status_message.iter().enumerate() {
        let tag = format!("{BASE}/AvailStatusMessage[{}]", i + 1);
        for (present, name) in [
            (m.hurdle_rate.is_some(), "HurdleRate"),
            (m.delta.is_some(), "Delta"),
            (m.best_available_rates.is_some(), "BestAvailableRates"),
        ] {
            out.note(present, &format!("{name} is not kept by the gateway: not applied."), format!("{tag}/{name}"));
        }
        let items = avail_status(m, hotel, catalogue, &tag, &mut out);
        out.push(items);
    }
    let stamp = stamp(cx, rq.time_stamp.as_ref(), "OTA_HotelAvailNotifRQ")?;
    out.finish(hotel, (cx.now, stamp), &cx.requestor.id, "OTA_HotelAvailNotifRQ")
}

/// The items of one `AvailStatusMessage`; what it sets that the gateway does not keep is
/// noted in `out`.
fn avail_status(
    m: &an::AvailStatusMessage,
    hotel: &Hotel,
    catalogue: &Catalogue,
    tag: &str,
    out: &mut Collect,
) -> Result<Vec<Item>, Problem> {
    let sac = &m.status_application_control;
    let sac_tag = format!("{tag}/StatusApplicationControl");
    let span = span(sac.start.as_ref(), sac.end.as_ref(), sac.duration.as_deref(), weekdays(sac), &sac_tag)?;
    let board = plan(sac, catalogue, &sac_tag)?;
    let mut changes: Vec<Change> = Vec::new();
    if m.booking_limit.is_some() || m.booking_limit_message_type.is_some() {
        out.note(
            board.is_some(),
            "Rooms on sale are of a room type, whatever the rate plan: the BookingLimit is applied to the room type.",
            format!("{sac_tag}/@RatePlanCode"),
        );
        changes.push(booking_limit(m, tag)?);
    }
    let plan = board.unwrap_or_else(|| EVERY_PLAN.to_string());
    if let Some(r) = &m.restriction_status {
        changes.extend(restriction_status(r, &plan, &format!("{tag}/RestrictionStatus"), out)?);
    }
    if let Some(los) = &m.lengths_of_stay {
        changes.extend(lengths_of_stay(los, &plan, &format!("{tag}/LengthsOfStay"), out)?);
    }
    let limited =
        changes.iter().any(|c| matches!(c, Change::SetRooms(_) | Change::AdjustRooms(_) | Change::ContentRooms));
    if limited && sac.inv_type_code.is_none() && sac.inv_code.is_none() {
        return Err(Problem::not_supported("Rooms on sale are kept per room type: a BookingLimit of the whole hotel is not; name the room type with InvTypeCode.")
            .at(format!("{sac_tag}/@InvTypeCode")));
    }
    let rooms = rooms(sac, hotel, !limited, &sac_tag)?;
    Ok(rooms
        .iter()
        .flat_map(|room| {
            changes.iter().map(move |change| Item {
                tag: tag.to_string(),
                room: room.clone(),
                span,
                change: change.clone(),
            })
        })
        .collect())
}

/// The rooms on sale an `AvailStatusMessage`'s `BookingLimit` sets.
fn booking_limit(m: &an::AvailStatusMessage, tag: &str) -> Result<Change, Problem> {
    let limit = || {
        m.booking_limit
            .ok_or_else(|| Problem::required("The rooms are BookingLimit.").at(format!("{tag}/@BookingLimit")))
    };
    Ok(match m.booking_limit_message_type.clone().unwrap_or(an::BookingLimitMessageType::SetLimit) {
        an::BookingLimitMessageType::SetLimit => Change::SetRooms(u32::try_from(limit()?).unwrap_or(u32::MAX)),
        an::BookingLimitMessageType::AdjustLimit => Change::AdjustRooms(i64::try_from(limit()?).unwrap_or(i64::MAX)),
        an::BookingLimitMessageType::RemoveLimit => Change::ContentRooms,
    })
}

/// The restriction a `RestrictionStatus` sets for a rate plan (none when it is one the gateway
/// does not keep: noted in `out`).
fn restriction_status(
    r: &an::RestrictionStatus,
    plan: &str,
    tag: &str,
    out: &mut Collect,
) -> Result<Option<Change>, Problem> {
    let kind = match r.restriction.clone().unwrap_or(an::Restriction::Master) {
        an::Restriction::Master => Some(Restriction::Closed),
        an::Restriction::Arrival => Some(Restriction::ClosedToArrival),
        an::Restriction::Departure => Some(Restriction::ClosedToDeparture),
        other => {
            out.note(
                true,
                &format!(
                    "Restriction {} is not kept by the gateway (Master, Arrival and Departure are): not applied.",
                    other.as_str()
                ),
                format!("{tag}/@Restriction"),
            );
            None
        }
    };
    let status = match r.status.clone() {
        Some(an::AvailabilityStatus::Open | an::AvailabilityStatus::RemoveCloseOnly) => kind.map(|k| (k, 0)),
        Some(an::AvailabilityStatus::Close) => kind.map(|k| (k, 1)),
        Some(an::AvailabilityStatus::ClosedOnArrival) => kind.map(|_| (Restriction::ClosedToArrival, 1)),
        None => {
            return Err(Problem::required("The restriction's Status is Open or Close.").at(format!("{tag}/@Status")));
        }
        Some(other) => {
            out.note(
                true,
                &format!("Status {} is not kept by the gateway (Open and Close are): not applied.", other.as_str()),
                format!("{tag}/@Status"),
            );
            None
        }
    };
    Ok(status.map(|(kind, closed)| Change::Restriction { board: plan.to_string(), kind, value: Some(closed) }))
}

/// The stay limits a `LengthsOfStay` sets for a rate plan (those the gateway does not keep are
/// noted in `out`).
fn lengths_of_stay(los: &an::LengthsOfStay, plan: &str, tag: &str, out: &mut Collect) -> Result<Vec<Change>, Problem> {
    let removals_only = los.length_of_stay.iter().all(|l| {
        matches!(
            l.min_max_message_type,
            Some(an::MinMaxMessageType::RemoveMinLos | an::MinMaxMessageType::RemoveMaxLos)
        )
    });
    if los.arrival_date_based == Some(false) && !removals_only {
        out.note(
            true,
            "Stay limits are of the arrival day here: limits not based on the arrival day (ArrivalDateBased false) are not applied.",
            format!("{tag}/@ArrivalDateBased"),
        );
        return Ok(Vec::new());
    }
    let mut changes = Vec::new();
    for (j, l) in los.length_of_stay.iter().enumerate() {
        let l_tag = format!("{tag}/LengthOfStay[{}]", j + 1);
        if l.time_unit.as_ref().is_some_and(|u| *u != TimeUnit::Day) {
            return Err(
                Problem::not_supported("Stay limits are in days (TimeUnit Day).").at(format!("{l_tag}/@TimeUnit"))
            );
        }
        let nights = || {
            l.time.and_then(|t| u32::try_from(t).ok()).ok_or_else(|| {
                Problem::required("The stay limit is Time, in days (0 or more).").at(format!("{l_tag}/@Time"))
            })
        };
        let (kind, value) = match l.min_max_message_type.clone() {
            Some(an::MinMaxMessageType::SetMinLos | an::MinMaxMessageType::MinLos) => {
                (Restriction::MinStay, Some(nights()?))
            }
            Some(an::MinMaxMessageType::SetMaxLos | an::MinMaxMessageType::MaxLos) => {
                (Restriction::MaxStay, Some(nights()?))
            }
            Some(an::MinMaxMessageType::RemoveMinLos) => (Restriction::MinStay, None),
            Some(an::MinMaxMessageType::RemoveMaxLos) => (Restriction::MaxStay, None),
            None => {
                return Err(Problem::required(
                    "The stay limit's MinMaxMessageType is SetMinLOS, SetMaxLOS, RemoveMinLOS or RemoveMaxLOS.",
                )
                .at(format!("{l_tag}/@MinMaxMessageType")));
            }
            Some(other) => {
                out.note(
                    true,
                    &format!("MinMaxMessageType {} is not kept by the gateway (SetMinLOS, SetMaxLOS, RemoveMinLOS and RemoveMaxLOS of the arrival day are): not applied.", other.as_str()),
                    format!("{l_tag}/@MinMaxMessageType"),
                );
                continue;
            }
        };
        changes.push(Change::Restriction { board: plan.to_string(), kind, value });
    }
    Ok(changes)
}

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
                out.push((|| {
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
                    let sold: std::collections::BTreeSet<&str> =
                        hotel.rates.iter().map(|r| r.currency.as_str()).collect();
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
                    let amount = values::amount(&amount.to_string())
                        .and_then(|a| values::in_currency(a, &currency))
                        .map_err(|e| {
                            Problem::biz(ErrorCode::InvalidValue, format!("The amount {e}."))
                                .at(format!("{a_tag}/@AmountAfterTax"))
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
                    let change = Change::Rate { board: board.clone(), currency, guests, amount };
                    Ok(rooms
                        .iter()
                        .map(|room| Item { tag: a_tag.clone(), room: room.clone(), span, change: change.clone() })
                        .collect())
                })());
            }
        }
    }
    let stamp = stamp(cx, rq.time_stamp.as_ref(), "OTA_HotelRateAmountNotifRQ")?;
    out.finish(hotel, (cx.now, stamp), &cx.requestor.id, "OTA_HotelRateAmountNotifRQ")
}
