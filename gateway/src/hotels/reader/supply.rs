//! The supply notifications read into a [`Notification`]: the hotel (owned by the supplier),
//! the stamp, and one item per room type and change, each with its `Tag`. Everything the
//! gateway cannot take as asked is a problem naming it (the whole message is refused); what
//! 2016B allows and changes nothing here (`HurdleRate`, `OffSell`, a child's amount, …) is
//! named in a warning.

use chrono::{DateTime, Utc};
use ota_messages::common::{ErrorCode, InvCodeApplication, StatusApplicationControl, TimeUnit};
use ota_messages::hotel_avail_notif::{self as an, OtaHotelAvailNotifRq};
use ota_messages::hotel_inv_count_notif::{InvCountActionType, OtaHotelInvCountNotifRq};
use ota_messages::runtime::{self as rt, Zone};

use crate::errors::Problem;
use crate::hotels::catalogue::{Catalogue, Hotel};
use crate::hotels::rules::MAX_DAYS_AHEAD;
use crate::hotels::rules::supply::{Change, Item, Notification, Span, check_size};
use crate::hotels::supply::{EVERY_PLAN, Restriction};
use crate::shared::context::Ctx;

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
pub(super) fn hotel<'c>(
    cx: &Ctx,
    catalogue: &'c Catalogue,
    code: Option<&str>,
    tag: &str,
) -> Result<&'c Hotel, Vec<Problem>> {
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
pub(super) fn stamp(cx: &Ctx, time_stamp: Option<&rt::DateTime>, root: &str) -> Result<DateTime<Utc>, Vec<Problem>> {
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
pub(super) fn span(
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
pub(super) fn weekdays(c: &StatusApplicationControl) -> [Option<bool>; 7] {
    [c.mon, c.tue, c.weds, c.thur, c.fri, c.sat, c.sun]
}

/// The room types a `StatusApplicationControl` names (`InvTypeCode`, or `InvCode` read as a
/// room type); every room type of the hotel when it names none and `every` allows it.
pub(super) fn rooms(
    c: &StatusApplicationControl,
    hotel: &Hotel,
    every: bool,
    tag: &str,
) -> Result<Vec<String>, Problem> {
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
pub(super) fn plan(c: &StatusApplicationControl, catalogue: &Catalogue, tag: &str) -> Result<Option<String>, Problem> {
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
pub(super) struct Collect {
    items: Vec<Item>,
    problems: Vec<Problem>,
    notes: Vec<Problem>,
}

impl Collect {
    pub(super) fn push(&mut self, r: Result<Vec<Item>, Problem>) {
        match r {
            Ok(items) => self.items.extend(items),
            Err(p) if self.problems.len() < MAX_PROBLEMS => self.problems.push(p),
            Err(_) => {}
        }
    }

    pub(super) fn note(&mut self, unread: bool, text: &str, tag: String) {
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

    pub(super) fn finish(
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
