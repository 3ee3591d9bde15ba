//! The hotel's calendar (issue 31, `docs/hotels/calendar.md`), on domain values only: the grid
//! of room types × nights built from the content and the stored supply values (each with who set
//! it and when), and an edit of a range checked and turned into the same [`Notification`](crate::hotels::rules::supply::Notification) a
//! supplier's message is read into, so it is applied by the same code (stamped, never over a
//! newer value).
//!
//! Rules:
//! - A page or an edit covers at most [`MAX_NIGHTS`] nights; without dates, a page is today and
//!   the 13 months after ([`DEFAULT_MONTHS`]).
//! - An edit names existing room types and rate plans (boards the hotel's content sells), nights
//!   from today up to the selling horizon, one change; counts are whole and not negative, an
//!   amount a decimal ≥ 0 with a three-letter currency. Every refusal names its field.
//! - Without room types an edit is of every room type; without rate plans, a restriction is of
//!   every rate plan (`""`), an amount of every plan the room type is sold with in the currency.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the limits, a page's nights, refusals naming their field |
//! | [`grid`] | the grid of room types × nights from the content and the stored supply values |
//! | [`edit`] | an edit of a range checked and turned into a [`Notification`](crate::hotels::rules::supply::Notification); its outcome |

pub mod edit;
pub mod grid;

use chrono::{Datelike, Months, NaiveDate};

/// The most nights one page shows or one edit sets.
pub const MAX_NIGHTS: i64 = 400;

/// How many months a page shows when no end is given.
pub const DEFAULT_MONTHS: u32 = 13;

/// The most rooms on sale an edit sets.
pub const MAX_ROOMS: u32 = 100_000;

/// The longest stay limit an edit sets (nights).
pub const MAX_STAY: u32 = 365;

/// The largest nightly amount an edit sets.
pub const MAX_AMOUNT: u32 = 10_000_000;

/// What a source of `None` is shown as.
pub const UNKNOWN_SOURCE: &str = "channel manager";

/// A refused value: the field it is in and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct Invalid {
    /// The field (`from`, `to`, `weekdays`, `room`, `plan`, `rooms`, `min_stay`, `max_stay`,
    /// `amount`, `currency`, `guests`, `action`, `hotel`).
    pub field: &'static str,
    /// Why.
    pub message: String,
}

fn invalid(field: &'static str, message: impl Into<String>) -> Invalid {
    Invalid { field, message: message.into() }
}

/// A day given as `YYYY-MM-DD`.
fn day(field: &'static str, text: &str) -> Result<NaiveDate, Invalid> {
    let t = text.trim();
    NaiveDate::parse_from_str(t, "%Y-%m-%d").map_err(|_| invalid(field, "a day as YYYY-MM-DD"))
}

/// The nights of a page: `from` (default: `today`) to `to` (default: [`DEFAULT_MONTHS`] months
/// later, the night before), at most [`MAX_NIGHTS`].
pub fn page_range(from: Option<&str>, to: Option<&str>, today: NaiveDate) -> Result<(NaiveDate, NaiveDate), Invalid> {
    let from = match from.map(str::trim).filter(|s| !s.is_empty()) {
        Some(f) => day("from", f)?,
        None => today,
    };
    let to = match to.map(str::trim).filter(|s| !s.is_empty()) {
        Some(t) => day("to", t)?,
        None => from
            .checked_add_months(Months::new(DEFAULT_MONTHS))
            .and_then(|d| d.pred_opt())
            .ok_or_else(|| invalid("from", "too late a day"))?,
    };
    check_nights(from, to)?;
    Ok((from, to))
}

/// `to` not before `from`, at most [`MAX_NIGHTS`] nights.
fn check_nights(from: NaiveDate, to: NaiveDate) -> Result<(), Invalid> {
    if to < from {
        return Err(invalid("to", format!("{to} is before {from}")));
    }
    let nights = (to - from).num_days() + 1;
    if nights > MAX_NIGHTS {
        return Err(invalid("to", format!("at most {MAX_NIGHTS} nights at once, not {nights}")));
    }
    Ok(())
}

/// The first day of the month after `day`'s, and of the month before (a page's paging).
pub fn months_around(day: NaiveDate) -> (NaiveDate, NaiveDate) {
    let first = day.with_day(1).unwrap_or(day);
    (
        first.checked_sub_months(Months::new(1)).unwrap_or(first),
        first.checked_add_months(Months::new(1)).unwrap_or(first),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use chrono::{DateTime, Utc};
    use rust_decimal::Decimal;

    use super::edit::*;
    use super::grid::*;
    use super::*;
    use crate::hotels::booking::{Night, Rooms};
    use crate::hotels::catalogue::{Hotel, Rate, RoomType};
    use crate::hotels::rules::supply::Change;
    use crate::hotels::supply::{EVERY_PLAN, Restriction, SetBy, SourcedSupply};

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn hotel() -> Hotel {
        let room = |code: &str| RoomType {
            code: code.into(),
            texts: Default::default(),
            units: 5,
            max_guests: None,
            allotment: vec![],
        };
        let mut h = Hotel::bare("H1", vec![room("DBL"), room("SGL")]);
        for board in ["BB", "RO"] {
            h.rates.push(Rate {
                room: "DBL".into(),
                board: board.into(),
                currency: "EUR".into(),
                from: d("2030-01-01"),
                to: d("2030-12-31"),
                nightly: Decimal::new(10000, 2),
            });
        }
        h
    }

    fn now() -> DateTime<Utc> {
        "2030-05-01T12:00:00Z".parse().unwrap()
    }

    fn ask(action: &str, value: &str) -> EditAsk {
        EditAsk {
            from: "2030-06-01".into(),
            to: "2030-06-07".into(),
            action: action.into(),
            value: value.into(),
            currency: "EUR".into(),
            ..EditAsk::default()
        }
    }

    fn field(a: &EditAsk) -> &'static str {
        check_edit(a, &hotel(), now()).unwrap_err().field
    }

    #[test]
    fn every_refusal_names_its_field() {
        assert_eq!(field(&EditAsk { from: "1 June".into(), ..ask("close", "") }), "from");
        assert_eq!(field(&EditAsk { from: "2030-04-30".into(), ..ask("close", "") }), "from");
        assert_eq!(field(&EditAsk { to: "2030-05-31".into(), ..ask("close", "") }), "to");
        assert_eq!(field(&EditAsk { to: "2031-07-10".into(), ..ask("close", "") }), "to", "over 400 nights");
        assert_eq!(field(&EditAsk { weekdays: vec!["Mon,Funday".into()], ..ask("close", "") }), "weekdays");
        assert_eq!(field(&EditAsk { rooms: vec!["<script>".into()], ..ask("close", "") }), "room");
        assert_eq!(field(&EditAsk { plans: vec!["HB".into()], ..ask("close", "") }), "plan");
        assert_eq!(field(&ask("rooms", "-1")), "rooms");
        assert_eq!(field(&ask("rooms", "many")), "rooms");
        assert_eq!(field(&ask("min-stay", "-2")), "min_stay");
        assert_eq!(field(&ask("max-stay", "9999")), "max_stay");
        assert_eq!(field(&ask("amount", "-5")), "amount");
        assert_eq!(field(&ask("amount", "1e5")), "amount");
        assert_eq!(field(&EditAsk { currency: "eur".into(), ..ask("amount", "5") }), "currency");
        assert_eq!(field(&EditAsk { guests: "-1".into(), ..ask("amount", "5") }), "guests");
        assert_eq!(
            field(&EditAsk { rooms: vec!["SGL".into()], ..ask("amount", "5") }),
            "plan",
            "SGL has no rate plan: one must be named"
        );
        assert_eq!(field(&ask("explode", "")), "action");
        let e = check_edit(&ask("rooms", "-1"), &hotel(), now()).unwrap_err();
        assert_eq!(e.to_string(), "rooms: not negative");
    }

    #[test]
    fn an_edit_is_the_notification_of_its_room_types_and_plans() {
        let h = hotel();
        let e =
            check_edit(&EditAsk { weekdays: vec!["sat".into(), "Sun".into()], ..ask("close", "") }, &h, now()).unwrap();
        assert_eq!(e.rooms, vec!["DBL", "SGL"], "every room type when none is named");
        assert_eq!(e.span.days().collect::<Vec<_>>(), vec![d("2030-06-01"), d("2030-06-02")]);
        let n = notification(&e, &h, now(), "operator:ann");
        assert_eq!(n.source.as_deref(), Some("operator:ann"));
        assert_eq!(n.items.len(), 2);
        assert_eq!(
            n.items[0].change,
            Change::Restriction { board: EVERY_PLAN.into(), kind: Restriction::Closed, value: Some(1) }
        );

        let e = check_edit(&EditAsk { rooms: vec!["DBL".into()], ..ask("amount", "95.50") }, &h, now()).unwrap();
        let n = notification(&e, &h, now(), "cli:root");
        let boards: Vec<_> = n
            .items
            .iter()
            .map(|i| match &i.change {
                Change::Rate { board, amount, .. } => (board.clone(), amount.to_string()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(boards, vec![("BB".into(), "95.50".into()), ("RO".into(), "95.50".into())]);

        let e = check_edit(&EditAsk { plans: vec!["RO".into()], ..ask("min-stay", "0") }, &h, now()).unwrap();
        assert_eq!(e.action, Action::MinStay(None), "0 lifts the limit");
        assert_eq!(notification(&e, &h, now(), "x").items.len(), 2, "one per room type, for RO only");
    }

    #[test]
    fn a_page_is_13_months_at_most_400_nights() {
        let today = d("2030-05-01");
        assert_eq!(page_range(None, None, today).unwrap(), (today, d("2031-05-31")));
        assert_eq!(page_range(Some("2030-06-01"), Some("2030-06-30"), today).unwrap().1, d("2030-06-30"));
        assert_eq!(page_range(Some("2030-06-01"), Some("2031-12-30"), today).unwrap_err().field, "to");
        assert_eq!(page_range(Some("x"), None, today).unwrap_err().field, "from");
        assert_eq!(months_around(d("2030-06-17")), (d("2030-05-01"), d("2030-07-01")));
    }

    #[test]
    fn the_grid_shows_each_value_with_who_set_it() {
        let h = hotel();
        let mut s = SourcedSupply::default();
        let at = |secs: i64| SetBy { source: None, stamp: DateTime::from_timestamp(1_900_000_000 + secs, 0).unwrap() };
        let cm = |secs: i64| SetBy { source: Some("CM1".into()), ..at(secs) };
        s.rooms.insert(("DBL".into(), d("2030-06-02")), (Some(2), cm(1)));
        s.restrictions.insert(("DBL".into(), "".into(), d("2030-06-01"), Restriction::Closed), (Some(1), at(1)));
        s.restrictions.insert(
            ("DBL".into(), "BB".into(), d("2030-06-01"), Restriction::Closed),
            (Some(0), SetBy { source: Some("operator:ann".into()), ..at(2) }),
        );
        s.rates.insert(
            ("DBL".into(), "RO".into(), "EUR".into(), d("2030-06-02")),
            vec![(0, Decimal::new(8000, 2), cm(3))],
        );
        let mut sold = Rooms::new();
        sold.insert(Night { hotel: "H1".into(), room_type: "DBL".into(), night: d("2030-06-02") }, 1);
        let c = build(&h, (d("2030-06-01"), d("2030-06-02")), &s, &sold, Some("DBL"));
        assert_eq!(c.rooms.len(), 1);
        let r = &c.rooms[0];
        assert_eq!((r.rooms[0].on_sale, r.rooms[0].supplied, r.rooms[0].set.clone()), (5, false, None));
        assert_eq!((r.rooms[1].on_sale, r.rooms[1].sold), (2, 1));
        assert_eq!(r.rooms[1].set.as_ref().unwrap().by, "CM1");
        let bb = r.restrictions.iter().find(|p| p.plan == "BB").unwrap();
        let ro = r.restrictions.iter().find(|p| p.plan == "RO").unwrap();
        assert!(!bb.nights[0].closed, "opened for BB later");
        assert_eq!(bb.nights[0].set.as_ref().unwrap().by, "operator:ann");
        assert!(ro.nights[0].closed);
        assert_eq!(ro.nights[0].set.as_ref().unwrap().by, UNKNOWN_SOURCE);
        let ro_amounts = r.amounts.iter().find(|p| p.plan == "RO").unwrap();
        assert_eq!(ro_amounts.nights[0].amount.as_deref(), Some("100.00"), "the content's");
        assert_eq!(ro_amounts.nights[0].set, None);
        assert_eq!(ro_amounts.nights[1].amount.as_deref(), Some("80.00"), "the supplier's");
        assert_eq!(ro_amounts.nights[1].set.as_ref().unwrap().by, "CM1");
    }
}
