//! Cancellation (`/bookcancel`), on domain values only, the same for hotel and activity
//! bookings: what cancelling costs now, and what is left (what a request names is read by
//! [`reader`](super::reader)).
//!
//! Rules:
//! - `UniqueID` Type 36 names a booking, Type 37 one item of it (a hotel room, an activity
//!   booking's service), by its Client or Internal reference (`ID_Context`; none: either).
//! - Every item has the penalties fixed when it was booked; cancelling costs the highest
//!   percentage in force now of its price ([`cost`]). A booking's cost is the sum over its live
//!   items.
//! - An item that has started (a stay from its arrival day, an activity from its start) can no
//!   longer be cancelled (Type 3, Code 172).
//! - Cancelling the last live item cancels the booking.
//! - Cancelling what is already cancelled: a Quote is refused (Type 3, Code 95); a Commit is
//!   answered with the outcome stored the first time (the same penalty, not a second one).

use chrono::NaiveDateTime;
use ota_messages::common::{ErrorCode, ErrorWarningType};
use rust_decimal::Decimal;

use crate::activities::repo::bookings::Stored as ActivityStored;
use crate::errors::Problem;
use crate::hotels::booking::{Booking as HotelBooking, CANCELLED};
use crate::shared::booking::Kind;
use crate::shared::cancellation::{Cancellation, Cost, Penalty, cost, percent_of, total_cost};

/// The request's reference, under every error `Tag`.
pub const TAG: &str = "/OTA_CancelRQ/UniqueID";

/// What a cancel request names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The reference.
    pub id: String,
    /// An item (Type 37), else the whole booking (Type 36).
    pub item: bool,
    /// Look the reference up as a Client one.
    pub by_client: bool,
    /// Look the reference up as an Internal one.
    pub by_internal: bool,
}

/// One cancellable item of a booking.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Its number within the booking (a room's `IndexNumber`; 1 for an activity booking).
    pub index: u64,
    /// Its Internal item reference (Type 37).
    pub reference: String,
    /// Its price.
    pub price: Decimal,
    /// The penalties fixed when it was booked.
    pub penalties: Vec<Penalty>,
    /// When it starts (local).
    pub starts_at: NaiveDateTime,
    /// When and at what cost it was cancelled.
    pub cancelled: Option<Cancellation>,
}

/// A booking as cancellation sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Cancellable {
    /// Hotel or activity.
    pub kind: Kind,
    /// The Internal reference.
    pub internal: String,
    /// The Client reference.
    pub client: String,
    /// The currency of every amount.
    pub currency: String,
    /// The items.
    pub items: Vec<Item>,
    /// Whether the booking is cancelled.
    pub cancelled: bool,
}

/// What a cancellation does, or did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The items cancelled (now, or before for a repeated Commit), each with its cost.
    pub items: Vec<(u64, Cost)>,
    /// The cost of them all.
    pub cost: Cost,
    /// When it was, or is, registered.
    pub at: NaiveDateTime,
    /// Whether the booking is cancelled afterwards.
    pub whole: bool,
    /// Whether an item cancelled cancels the booking because it was the last live one.
    pub last_item: bool,
    /// Whether it had all been cancelled before (a repeated Commit).
    pub repeated: bool,
}

/// What cancelling the booking (`item`: `None`) or one item of it costs at `now`, or what it
/// cost when it was cancelled before.
pub fn plan(b: &Cancellable, item: Option<u64>, now: NaiveDateTime) -> Result<Outcome, Problem> {
    let targets: Vec<&Item> = match item {
        Some(index) => b.items.iter().filter(|i| i.index == index).collect(),
        None => b.items.iter().filter(|i| i.cancelled.is_none() || b.cancelled).collect(),
    };
    let done = |i: &Item| i.cancelled.is_some() || b.cancelled;
    if !targets.is_empty() && targets.iter().all(|i| done(i)) {
        let items: Vec<(u64, Cost)> = targets
            .iter()
            .map(|i| {
                let penalty = i.cancelled.map_or(Decimal::ZERO, |c| c.penalty);
                (i.index, Cost { percent: percent_of(penalty, i.price), amount: penalty })
            })
            .collect();
        let parts: Vec<(Cost, Decimal)> = items.iter().zip(&targets).map(|((_, c), i)| (*c, i.price)).collect();
        let at = targets.iter().filter_map(|i| i.cancelled.map(|c| c.at)).max().unwrap_or(now);
        return Ok(Outcome {
            items,
            cost: total_cost(&parts),
            at,
            whole: b.cancelled,
            last_item: false,
            repeated: true,
        });
    }
    let live: Vec<&Item> = targets.into_iter().filter(|i| !done(i)).collect();
    if live.is_empty() {
        return Err(Problem::biz(
            ErrorCode::BookingReferenceNotFound,
            format!("Booking {} has no item {}.", b.internal, item.unwrap_or_default()),
        )
        .at(TAG));
    }
    if let Some(started) = live.iter().find(|i| i.starts_at <= now) {
        return Err(Problem::biz(
            ErrorCode::RequestedActionNotPossible,
            format!(
                "Booking {} can no longer be cancelled: item {} started at {}.",
                b.internal, started.index, started.starts_at
            ),
        )
        .at(TAG));
    }
    let items: Vec<(u64, Cost)> = live.iter().map(|i| (i.index, cost(&i.penalties, i.price, now))).collect();
    let parts: Vec<(Cost, Decimal)> = items.iter().zip(&live).map(|((_, c), i)| (*c, i.price)).collect();
    let left = b.items.iter().filter(|i| i.cancelled.is_none()).count();
    let whole = live.len() == left;
    Ok(Outcome { items, cost: total_cost(&parts), at: now, whole, last_item: whole && item.is_some(), repeated: false })
}

/// The error of a Quote on what is already cancelled, or the warning of a repeated Commit.
pub fn already_cancelled(b: &Cancellable, kind: ErrorWarningType) -> Problem {
    Problem::new(
        kind,
        ErrorCode::BookingAlreadyCancelled,
        format!("Booking {} is already cancelled; nothing more is charged.", b.internal),
    )
    .at(TAG)
}

/// The warning of an item cancel that cancels the whole booking.
pub fn last_item(b: &Cancellable, index: u64, commit: bool) -> Problem {
    let what = if commit { "the whole booking is cancelled" } else { "cancelling it cancels the whole booking" };
    Problem::advisory(
        ErrorCode::BookingAlreadyCancelled,
        format!("Item {index} is the last live item of booking {}: {what}.", b.internal),
    )
    .at(TAG)
}

/// The error of a reference that names no booking of the requestor (or another's).
pub fn not_found(id: &str) -> Problem {
    Problem::biz(ErrorCode::BookingReferenceNotFound, format!("Booking {id} was not found.")).at(TAG)
}

/// A hotel booking as cancellation sees it: its room stays are its items.
pub fn of_hotel(b: &HotelBooking) -> Cancellable {
    Cancellable {
        kind: Kind::Hotel,
        internal: b.internal_ref.clone(),
        client: b.client_ref.clone(),
        currency: b.currency.clone(),
        items: b
            .rooms
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let index = r.index.unwrap_or(i as u64 + 1);
                Item {
                    index,
                    reference: format!("{}-{index}", b.internal_ref),
                    price: r.total.unwrap_or_default(),
                    penalties: r.penalties.clone(),
                    starts_at: r.starts_at(),
                    cancelled: r.cancelled,
                }
            })
            .collect(),
        cancelled: b.is_cancelled(),
    }
}

/// A hotel booking after a cancellation: its rooms cancelled at their cost (`RoomStayStatus`
/// `Cancelled`), the booking
/// cancelled when none is left, `updated` its new last change.
pub fn cancel_hotel(b: &HotelBooking, o: &Outcome, updated: NaiveDateTime) -> HotelBooking {
    let mut after = b.clone();
    for (i, r) in after.rooms.iter_mut().enumerate() {
        let index = r.index.unwrap_or(i as u64 + 1);
        if let Some((_, c)) = o.items.iter().find(|(n, _)| *n == index) {
            r.cancelled = Some(Cancellation { at: o.at, penalty: c.amount });
            r.status = Some(CANCELLED.to_string());
        }
    }
    if o.whole {
        after.status = CANCELLED.to_string();
    }
    after.updated = updated;
    after
}

/// An activity booking as cancellation sees it: its one service is its one item.
pub(crate) fn of_activity(s: &ActivityStored) -> Cancellable {
    let b = &s.booking;
    let internal = b.reference.clone().unwrap_or_default();
    Cancellable {
        kind: Kind::Activity,
        client: b.client_reference.clone().unwrap_or_default(),
        currency: b.currency.clone(),
        items: vec![Item {
            index: 1,
            reference: format!("{internal}-1"),
            price: b.total,
            penalties: s.penalties.clone(),
            starts_at: b.start,
            cancelled: s.cancelled,
        }],
        internal,
        cancelled: s.cancelled.is_some(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn t(s: &str) -> NaiveDateTime {
        s.parse().unwrap()
    }

    fn item(index: u64, price: &str) -> Item {
        Item {
            index,
            reference: format!("B-{index}"),
            price: price.parse().unwrap(),
            penalties: vec![
                Penalty { deadline: Some(t("2030-06-24T00:00:00")), percent: Decimal::from(25) },
                Penalty { deadline: Some(t("2030-06-29T00:00:00")), percent: Decimal::ONE_HUNDRED },
            ],
            starts_at: t("2030-07-01T00:00:00"),
            cancelled: None,
        }
    }

    fn booking() -> Cancellable {
        Cancellable {
            kind: Kind::Hotel,
            internal: "B".into(),
            client: "C".into(),
            currency: "EUR".into(),
            items: vec![item(1, "100.00"), item(2, "300.00")],
            cancelled: false,
        }
    }

    #[test]
    fn a_whole_cancel_costs_what_each_live_item_costs_now() {
        let free = plan(&booking(), None, t("2030-06-01T10:00:00")).unwrap();
        assert_eq!(free.cost.amount, Decimal::ZERO);
        assert!(free.whole && !free.repeated && !free.last_item);
        let late = plan(&booking(), None, t("2030-06-25T10:00:00")).unwrap();
        assert_eq!(late.cost.amount.to_string(), "100.00");
        assert_eq!(late.cost.percent, Decimal::from(25));
        assert_eq!(late.items.len(), 2);
    }

    #[test]
    fn the_last_live_item_cancels_the_booking() {
        let mut b = booking();
        let first = plan(&b, Some(1), t("2030-06-30T00:00:00")).unwrap();
        assert!(!first.whole);
        assert_eq!(first.cost.amount.to_string(), "100.00");
        b.items[0].cancelled = Some(Cancellation { at: t("2030-06-30T00:00:00"), penalty: first.cost.amount });
        let second = plan(&b, Some(2), t("2030-06-30T01:00:00")).unwrap();
        assert!(second.whole && second.last_item);
        // The whole booking now is its one live item.
        assert_eq!(plan(&b, None, t("2030-06-30T01:00:00")).unwrap().items, vec![(2, second.cost)]);
    }

    #[test]
    fn a_repeated_cancel_answers_the_stored_penalty() {
        let mut b = booking();
        for i in &mut b.items {
            i.cancelled = Some(Cancellation { at: t("2030-06-25T10:00:00"), penalty: i.price / Decimal::from(4) });
        }
        b.cancelled = true;
        let again = plan(&b, None, t("2030-06-30T00:00:00")).unwrap();
        assert!(again.repeated && again.whole);
        assert_eq!(again.cost.amount.to_string(), "100.00");
        assert_eq!(again.at, t("2030-06-25T10:00:00"));
        assert!(plan(&b, Some(2), t("2030-06-30T00:00:00")).unwrap().repeated);
    }

    #[test]
    fn started_items_and_unknown_items_are_refused() {
        assert_eq!(
            plan(&booking(), None, t("2030-07-01T00:00:00")).unwrap_err().code,
            ErrorCode::RequestedActionNotPossible
        );
        assert_eq!(
            plan(&booking(), Some(9), t("2030-06-01T00:00:00")).unwrap_err().code,
            ErrorCode::BookingReferenceNotFound
        );
    }
}
