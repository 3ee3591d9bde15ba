//! A supplier's notification on domain values: which values of one hotel it sets, night by
//! night, and what the answer says of them.
//!
//! Rules (see gateway/README.md, "Supply notifications"):
//! - A notification names one hotel; the supplier must own it (else the same answer as for a
//!   hotel that does not exist).
//! - Each item names a room type, dates (`Start` to `End`, both included, optionally only some
//!   days of the week) and one change: rooms on sale (set, or adjusted by a number), a
//!   restriction (a night closed, closed to arrival or departure, a minimum or maximum stay; for
//!   one rate plan or every one) or a nightly amount (per rate plan, currency and number of
//!   guests).
//! - Every value carries the notification's stamp: a value set by a newer notification is kept
//!   (the answer warns, naming the item and its first such night); a repeat of the same
//!   notification changes nothing and gets the same answer.
//! - Rooms on sale below the rooms already sold are applied (the hotel's system knows its
//!   rooms; none is sold until the count is above the sold again) and the answer warns, naming
//!   the night.

use chrono::{Datelike, NaiveDate};
use ota_messages::common::ErrorCode;
use rust_decimal::Decimal;

use crate::errors::Problem;
use crate::hotels::supply::{Restriction, Stamp};

/// The most values (nights × items) one notification sets: a larger one is refused whole.
pub const MAX_VALUES: usize = 50_000;

/// The most warnings an answer lists (a count says how many more there were).
const MAX_WARNINGS: usize = 20;

/// The days an item applies to: `start` to `end`, both included, on the days of the week
/// given (`None`: every day).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The first day.
    pub start: NaiveDate,
    /// The last day (included).
    pub end: NaiveDate,
    /// Monday to Sunday: whether the item applies on that day.
    pub weekdays: Option<[bool; 7]>,
}

impl Span {
    /// The days, in order.
    pub fn days(&self) -> impl Iterator<Item = NaiveDate> + '_ {
        self.start
            .iter_days()
            .take_while(|d| *d <= self.end)
            .filter(|d| self.weekdays.is_none_or(|w| w[d.weekday().num_days_from_monday() as usize]))
    }

    /// How many days (an upper bound when only some days of the week apply).
    pub fn len(&self) -> usize {
        usize::try_from((self.end - self.start).num_days() + 1).unwrap_or(0)
    }

    /// True when it has no day.
    pub fn is_empty(&self) -> bool {
        self.end < self.start
    }
}

/// What an item changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The rooms on sale: set to a number.
    SetRooms(u32),
    /// The rooms on sale: moved by a number (never below 0), from what is on sale now.
    AdjustRooms(i64),
    /// The rooms on sale: so many left to sell, over the rooms sold here.
    RemainingRooms(u32),
    /// The rooms on sale: the content's again (`RemoveLimit`).
    ContentRooms,
    /// A restriction of a rate plan ([`crate::hotels::supply::EVERY_PLAN`]: every one);
    /// `None` lifts it (opens the day, removes the stay limit).
    Restriction {
        /// The rate plan (board).
        board: String,
        /// Which restriction.
        kind: Restriction,
        /// Closed (1) or open (0); a stay limit in nights; `None`: lifted.
        value: Option<u32>,
    },
    /// The amount of one night of a room.
    Rate {
        /// The rate plan (board).
        board: String,
        /// ISO 4217.
        currency: String,
        /// For this many guests (0: any number).
        guests: u32,
        /// The amount.
        amount: Decimal,
    },
}

/// One item of a notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Where it is in the message (the answer's `Tag`).
    pub tag: String,
    /// The room type.
    pub room: String,
    /// The days.
    pub span: Span,
    /// The change.
    pub change: Change,
}

/// A supplier's notification, read: one hotel, the stamp of its values, its items in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// The hotel.
    pub hotel: String,
    /// The message's `TimeStamp` (else when it arrived).
    pub stamp: Stamp,
    /// Who sent it, kept with every value it sets: the channel manager's requestor id, or
    /// `operator:NAME` / `cli:USER` for an edit of the calendar (`None`: not known).
    pub source: Option<String>,
    /// The items.
    pub items: Vec<Item>,
}

/// What applying a notification found, for the answer's warnings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Values written.
    pub written: usize,
    /// Per item (by its tag): the first day a newer notification had set, and how many such.
    pub older: Vec<(String, NaiveDate, usize)>,
    /// Rooms on sale set below the rooms sold: the item's tag, the room type, the night, the
    /// rooms on sale and sold.
    pub below_sold: Vec<(String, String, NaiveDate, u32, i64)>,
}

impl Applied {
    /// Notes a value kept because a newer notification set it.
    pub fn older(&mut self, tag: &str, day: NaiveDate) {
        match self.older.last_mut() {
            Some((t, _, n)) if t == tag => *n += 1,
            _ => self.older.push((tag.to_string(), day, 1)),
        }
    }

    /// The answer's warnings.
    pub fn warnings(&self) -> Vec<Problem> {
        let mut out: Vec<Problem> = self
            .older
            .iter()
            .map(|(tag, day, n)| {
                Problem::advisory(
                    ErrorCode::RequestedActionNotPossible,
                    format!("Not applied to {n} day(s) from {day}: a notification with a later TimeStamp already set them; the later state is kept."),
                )
                .at(tag.clone())
            })
            .chain(self.below_sold.iter().map(|(tag, room, night, on_sale, sold)| {
                Problem::advisory(
                    ErrorCode::InvalidValue,
                    format!("Room type {room}, night of {night}: {on_sale} room(s) on sale is below the {sold} already sold; applied, and none is sold until the count is above the rooms sold."),
                )
                .at(tag.clone())
            }))
            .collect();
        if out.len() > MAX_WARNINGS {
            let more = out.len() - (MAX_WARNINGS - 1);
            out.truncate(MAX_WARNINGS - 1);
            out.push(Problem::advisory(
                ErrorCode::RequestedActionNotPossible,
                format!("{more} more warning(s) like the above."),
            ));
        }
        out
    }
}

/// Refuses a notification setting more than [`MAX_VALUES`] values.
pub fn check_size(items: &[Item], root: &str) -> Result<(), Problem> {
    let values: usize = items.iter().map(|i| i.span.len()).sum();
    if values > MAX_VALUES {
        return Err(Problem::biz(
            ErrorCode::RequestedActionNotPossible,
            format!("A notification sets at most {MAX_VALUES} values (days × items); this one sets {values}: send it in parts."),
        )
        .at(format!("/{root}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_span_has_its_days_of_the_week() {
        let every = Span { start: d("2030-06-03"), end: d("2030-06-09"), weekdays: None };
        assert_eq!(every.days().count(), 7);
        assert_eq!(every.len(), 7);
        let weekends = Span { weekdays: Some([false, false, false, false, false, true, true]), ..every };
        assert_eq!(weekends.days().collect::<Vec<_>>(), vec![d("2030-06-08"), d("2030-06-09")]);
        let none = Span { start: d("2030-06-03"), end: d("2030-06-02"), weekdays: None };
        assert!(none.is_empty() && none.days().next().is_none());
    }

    #[test]
    fn warnings_name_each_item_once_and_are_bounded() {
        let mut a = Applied::default();
        a.older("/X/Item[1]", d("2030-06-01"));
        a.older("/X/Item[1]", d("2030-06-02"));
        a.older("/X/Item[2]", d("2030-06-05"));
        let w = a.warnings();
        assert_eq!(w.len(), 2);
        assert!(format!("{w:?}").contains("2 day(s) from 2030-06-01"), "{w:?}");
        for i in 0..30 {
            a.older(&format!("/X/Item[{}]", i + 3), d("2030-06-01"));
        }
        assert_eq!(a.warnings().len(), MAX_WARNINGS);
    }
}
