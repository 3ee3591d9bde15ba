//! What a hotel's supplier said, night by night, over the content (issue 21): the rooms on
//! sale, the restrictions (closed, closed to arrival or departure, minimum and maximum stay)
//! and the nightly amounts it pushed with OTA notifications. Held in memory with each hotel of
//! the catalogue ([`crate::hotels::catalogue::Hotel::supply`]); read by availability, Quote,
//! Commit and modify.
//!
//! Each value carries the [`Stamp`] of the message that set it: a message older than the value
//! never replaces it (the repo compares stamps when it applies a message). A restriction may be
//! set for one rate plan (board) or for every one (`""`): the newer of the two holds.

use std::collections::HashMap;

use chrono::{DateTime, NaiveDate, Utc};
use imbl::OrdMap;
use rust_decimal::Decimal;

/// When a supplier's message was made: its `TimeStamp` (else when it arrived).
pub type Stamp = DateTime<Utc>;

/// The rate plan code that stands for every rate plan (a restriction without `RatePlanCode`).
pub const EVERY_PLAN: &str = "";

/// A restriction a supplier sets on a night.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Restriction {
    /// The night is not sold (`RestrictionStatus@Restriction="Master"`).
    Closed,
    /// No stay arrives on this day.
    ClosedToArrival,
    /// No stay departs on this day.
    ClosedToDeparture,
    /// A stay arriving on this day lasts at least so many nights.
    MinStay,
    /// A stay arriving on this day lasts at most so many nights.
    MaxStay,
}

impl Restriction {
    /// Every restriction, in the order they are checked.
    pub const ALL: [Restriction; 5] = [
        Restriction::Closed,
        Restriction::ClosedToArrival,
        Restriction::ClosedToDeparture,
        Restriction::MinStay,
        Restriction::MaxStay,
    ];

    /// Its stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Restriction::Closed => "closed",
            Restriction::ClosedToArrival => "arrival",
            Restriction::ClosedToDeparture => "departure",
            Restriction::MinStay => "min_stay",
            Restriction::MaxStay => "max_stay",
        }
    }

    /// The restriction of a stored name.
    pub fn from_name(name: &str) -> Option<Restriction> {
        Restriction::ALL.into_iter().find(|r| r.as_str() == name)
    }
}

/// A value as a message set it, with the message's stamp. `None`: lifted (a restriction
/// opened, a stay limit removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamped<T> {
    /// The value.
    pub value: T,
    /// When the message that set it was made.
    pub stamp: Stamp,
}

/// The restrictions of one rate plan, by day and kind; `None`: lifted. A persistent map (as
/// [`Amounts`] and [`RoomSupply::rooms`]): a copy shares its nodes, so taking in one changed
/// night copies the path to it, not the year of values around it.
pub type Restrictions = OrdMap<(NaiveDate, Restriction), Stamped<Option<u32>>>;

/// Nightly amounts of one rate plan in one currency, by night and number of guests (0: any
/// number).
pub type Amounts = OrdMap<(NaiveDate, u32), Stamped<Decimal>>;

/// What a supplier said of one room type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoomSupply {
    /// Rooms on sale per night (over the content's units and allotments; `None`: the
    /// content's again).
    pub rooms: OrdMap<NaiveDate, Stamped<Option<u32>>>,
    /// Restrictions per rate plan ([`EVERY_PLAN`]: every one), night and kind; `None`: lifted.
    pub restrictions: HashMap<String, Restrictions>,
    /// Nightly amounts of one room, by rate plan (board) and currency.
    pub rates: HashMap<String, HashMap<String, Amounts>>,
}

/// Where a gateway's supply stands in the store's changes (see
/// `hotels::repo::supply::supply_position`): it has every change numbered below `below`, and of
/// those at or above it the ones in `seen` (PostgreSQL numbers a change with its transaction,
/// and transactions end in any order; on SQLite `seen` stays empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SupplyPosition {
    /// Every change numbered below it is had.
    pub below: i64,
    /// The changes at or above `below` that are had, in order.
    pub seen: Vec<i64>,
}

impl SupplyPosition {
    /// The position after reading `read` (the changes a read since this position found) at a
    /// store position of `below`.
    pub fn after(&self, below: i64, read: impl IntoIterator<Item = i64>) -> SupplyPosition {
        let below = below.max(self.below);
        let seen: std::collections::BTreeSet<i64> =
            self.seen.iter().copied().chain(read).filter(|c| *c >= below).collect();
        SupplyPosition { below, seen: seen.into_iter().collect() }
    }
}

/// What a supplier said of one hotel, by room type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HotelSupply {
    /// By room type code.
    pub rooms: HashMap<String, RoomSupply>,
}

/// Who set a supply value last and when: the source kept with the value (the channel
/// manager's requestor id, `operator:NAME` or `cli:USER` for a calendar edit; `None`: a value
/// from before sources were kept, of a hotel without a supplier) and the stamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetBy {
    /// Who.
    pub source: Option<String>,
    /// When (the stamp of the message or edit).
    pub stamp: Stamp,
}

/// A stored value with who set it.
pub type Sourced = (Option<u32>, SetBy);

/// A restriction's key: room type, rate plan, day, kind.
pub type RestrictionKey = (String, String, NaiveDate, Restriction);

/// An amount's key: room type, rate plan, currency, night.
pub type AmountKey = (String, String, String, NaiveDate);

/// One hotel's supply values over some nights as stored, each with who set it (what the
/// calendar reads: [`crate::hotels::calendar`]).
#[derive(Debug, Clone, Default)]
pub struct SourcedSupply {
    /// Rooms on sale by room type and night (`None`: the content's).
    pub rooms: HashMap<(String, NaiveDate), Sourced>,
    /// Restrictions by room type, rate plan ([`EVERY_PLAN`]: every one), day and kind.
    pub restrictions: HashMap<RestrictionKey, Sourced>,
    /// Nightly amounts by room type, rate plan, currency and night: per number of guests (0:
    /// any), ordered by it.
    pub rates: HashMap<AmountKey, Vec<(u32, Decimal, SetBy)>>,
}

/// Why a stay cannot be sold as asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restricted {
    /// A night of the stay is closed.
    Closed(NaiveDate),
    /// The arrival day is closed to arrival.
    ClosedToArrival(NaiveDate),
    /// The departure day is closed to departure.
    ClosedToDeparture(NaiveDate),
    /// A stay arriving that day lasts at least so many nights.
    MinStay(u32),
    /// A stay arriving that day lasts at most so many nights.
    MaxStay(u32),
}

impl std::fmt::Display for Restricted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Restricted::Closed(night) => write!(f, "the night of {night} is closed"),
            Restricted::ClosedToArrival(day) => write!(f, "{day} is closed to arrival"),
            Restricted::ClosedToDeparture(day) => write!(f, "{day} is closed to departure"),
            Restricted::MinStay(n) => {
                write!(f, "a stay arriving that day lasts at least {n} night(s)")
            }
            Restricted::MaxStay(n) => {
                write!(f, "a stay arriving that day lasts at most {n} night(s)")
            }
        }
    }
}

/// The restrictions that bear on one rate plan: its own and every plan's, each looked up once.
#[derive(Debug, Clone, Copy)]
struct PlanRestrictions<'s> {
    own: Option<&'s Restrictions>,
    every: Option<&'s Restrictions>,
}

impl PlanRestrictions<'_> {
    /// The restriction of a kind on a day: the newer of the plan's own and every plan's.
    fn get(&self, day: NaiveDate, kind: Restriction) -> Option<u32> {
        let own = self.own.and_then(|r| r.get(&(day, kind)));
        let every = self.every.and_then(|r| r.get(&(day, kind)));
        match (own, every) {
            (Some(a), Some(b)) => {
                if a.stamp >= b.stamp {
                    a.value
                } else {
                    b.value
                }
            }
            (Some(a), None) | (None, Some(a)) => a.value,
            (None, None) => None,
        }
    }
}

impl RoomSupply {
    fn plan_restrictions(&self, board: &str) -> PlanRestrictions<'_> {
        PlanRestrictions { own: self.restrictions.get(board), every: self.restrictions.get(EVERY_PLAN) }
    }

    /// The restriction of a kind on a day for a rate plan: the newer of the plan's own and
    /// every plan's.
    pub fn restriction(&self, board: &str, day: NaiveDate, kind: Restriction) -> Option<u32> {
        self.plan_restrictions(board).get(day, kind)
    }

    /// The first reason a stay from `start` to `end` with this rate plan is not sold, if any:
    /// a closed night, the arrival or departure day closed, a stay too short or too long.
    pub fn restricted(&self, board: &str, start: NaiveDate, end: NaiveDate) -> Option<Restricted> {
        if self.restrictions.is_empty() {
            return None;
        }
        let plan = self.plan_restrictions(board);
        let closed = |day, kind| plan.get(day, kind).is_some_and(|v| v > 0);
        let mut night = start;
        while night < end {
            if closed(night, Restriction::Closed) {
                return Some(Restricted::Closed(night));
            }
            night = night.succ_opt()?;
        }
        if closed(start, Restriction::ClosedToArrival) {
            return Some(Restricted::ClosedToArrival(start));
        }
        if closed(end, Restriction::ClosedToDeparture) {
            return Some(Restricted::ClosedToDeparture(end));
        }
        let nights = u32::try_from((end - start).num_days()).unwrap_or(u32::MAX);
        if let Some(min) = plan.get(start, Restriction::MinStay).filter(|min| nights < *min) {
            return Some(Restricted::MinStay(min));
        }
        if let Some(max) = plan.get(start, Restriction::MaxStay).filter(|max| nights > *max) {
            return Some(Restricted::MaxStay(max));
        }
        None
    }

    /// The nightly amounts of a rate plan in a currency, if it gave some.
    pub fn amounts(&self, board: &str, currency: &str) -> Option<&Amounts> {
        self.rates.get(board)?.get(currency)
    }

    /// The (rate plan, currency) pairs it has amounts for.
    pub fn plans(&self) -> impl Iterator<Item = (&str, &str)> {
        self.rates.iter().flat_map(|(b, by_currency)| by_currency.keys().map(move |c| (b.as_str(), c.as_str())))
    }
}

/// The amount of one night of a room for `guests` guests among the amounts of one rate plan and
/// currency: the amount for that many, else the amount for any number.
pub fn amount(amounts: &Amounts, night: NaiveDate, guests: u32) -> Option<Decimal> {
    let at = |n: u32| amounts.get(&(night, n)).map(|s| s.value);
    if guests > 0 { at(guests).or_else(|| at(0)) } else { at(0) }
}

impl HotelSupply {
    /// True when the supplier said nothing of this hotel.
    pub fn is_empty(&self) -> bool {
        self.rooms.is_empty()
    }

    /// What the supplier said of a room type.
    pub fn room(&self, code: &str) -> Option<&RoomSupply> {
        self.rooms.get(code)
    }

    /// True when it has values of nights before `first` (looking at each map's first night).
    pub fn has_before(&self, first: NaiveDate) -> bool {
        self.rooms.values().any(|r| {
            r.rooms.get_min().is_some_and(|(night, _)| *night < first)
                || r.restrictions.values().any(|v| v.get_min().is_some_and(|((night, _), _)| *night < first))
                || r.rates
                    .values()
                    .flat_map(HashMap::values)
                    .any(|a| a.get_min().is_some_and(|((night, _), _)| *night < first))
        })
    }

    /// Drops the values of nights before `first` (past nights, which nothing sells any more);
    /// true when it dropped any.
    pub fn drop_before(&mut self, first: NaiveDate) -> bool {
        let mut dropped = false;
        for room in self.rooms.values_mut() {
            dropped |= drop_keys_before(&mut room.rooms, &first);
            for values in room.restrictions.values_mut() {
                // Closed is the least kind: every kind of `first` is kept.
                dropped |= drop_keys_before(values, &(first, Restriction::Closed));
            }
            for amounts in room.rates.values_mut().flat_map(HashMap::values_mut) {
                dropped |= drop_keys_before(amounts, &(first, 0));
            }
            room.restrictions.retain(|_, values| !values.is_empty());
            for by_currency in room.rates.values_mut() {
                by_currency.retain(|_, amounts| !amounts.is_empty());
            }
            room.rates.retain(|_, by_currency| !by_currency.is_empty());
        }
        self.rooms.retain(|_, r| !(r.rooms.is_empty() && r.restrictions.is_empty() && r.rates.is_empty()));
        dropped
    }

    /// Takes the values of `newer` (read from the store after these), replacing those it has:
    /// each value costs the path to it, the values around it stay shared with the copies it
    /// was made from.
    pub fn merge(&mut self, newer: HotelSupply) {
        for (code, n) in newer.rooms {
            let room = self.rooms.entry(code).or_default();
            room.rooms.extend(n.rooms);
            for (plan, values) in n.restrictions {
                room.restrictions.entry(plan).or_default().extend(values);
            }
            for (plan, by_currency) in n.rates {
                let plan = room.rates.entry(plan).or_default();
                for (currency, amounts) in by_currency {
                    plan.entry(currency).or_default().extend(amounts);
                }
            }
        }
    }
}

/// Removes the keys of `map` before `first`; true when there were some.
fn drop_keys_before<K: Ord + Clone, V: Clone>(map: &mut OrdMap<K, V>, first: &K) -> bool {
    let past: Vec<K> = map.range(..first.clone()).map(|(k, _)| k.clone()).collect();
    for k in &past {
        map.remove(k);
    }
    !past.is_empty()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn at(secs: i64) -> Stamp {
        DateTime::from_timestamp(1_900_000_000 + secs, 0).unwrap()
    }

    fn set(r: &mut RoomSupply, plan: &str, day: &str, kind: Restriction, value: Option<u32>, stamp: i64) {
        r.restrictions.entry(plan.into()).or_default().insert((d(day), kind), Stamped { value, stamp: at(stamp) });
    }

    #[test]
    fn restrictions_hold_the_newer_of_the_plan_and_every_plan() {
        let mut r = RoomSupply::default();
        assert_eq!(r.restricted("BB", d("2030-06-01"), d("2030-06-03")), None);
        set(&mut r, EVERY_PLAN, "2030-06-02", Restriction::Closed, Some(1), 1);
        assert_eq!(r.restricted("BB", d("2030-06-01"), d("2030-06-03")), Some(Restricted::Closed(d("2030-06-02"))));
        assert_eq!(
            r.restricted("BB", d("2030-06-01"), d("2030-06-02")),
            None,
            "the departure day is not a night of the stay"
        );
        set(&mut r, "BB", "2030-06-02", Restriction::Closed, Some(0), 2);
        assert_eq!(r.restricted("BB", d("2030-06-01"), d("2030-06-03")), None, "opened for BB later");
        assert!(r.restricted("HB", d("2030-06-01"), d("2030-06-03")).is_some(), "still closed for the other plans");
        set(&mut r, EVERY_PLAN, "2030-06-02", Restriction::Closed, Some(1), 3);
        assert!(r.restricted("BB", d("2030-06-01"), d("2030-06-03")).is_some(), "closed for every plan later still");

        set(&mut r, EVERY_PLAN, "2030-07-01", Restriction::ClosedToArrival, Some(1), 1);
        set(&mut r, EVERY_PLAN, "2030-07-05", Restriction::ClosedToDeparture, Some(1), 1);
        set(&mut r, EVERY_PLAN, "2030-07-10", Restriction::MinStay, Some(3), 1);
        set(&mut r, EVERY_PLAN, "2030-07-10", Restriction::MaxStay, Some(5), 1);
        assert_eq!(
            r.restricted("BB", d("2030-07-01"), d("2030-07-03")),
            Some(Restricted::ClosedToArrival(d("2030-07-01")))
        );
        assert_eq!(r.restricted("BB", d("2030-06-30"), d("2030-07-03")), None, "passing through an arrival-closed day");
        assert_eq!(
            r.restricted("BB", d("2030-07-03"), d("2030-07-05")),
            Some(Restricted::ClosedToDeparture(d("2030-07-05")))
        );
        assert_eq!(r.restricted("BB", d("2030-07-10"), d("2030-07-12")), Some(Restricted::MinStay(3)));
        assert_eq!(r.restricted("BB", d("2030-07-10"), d("2030-07-13")), None);
        assert_eq!(r.restricted("BB", d("2030-07-10"), d("2030-07-16")), Some(Restricted::MaxStay(5)));
        assert_eq!(
            r.restricted("BB", d("2030-07-11"), d("2030-07-12")),
            None,
            "the stay limits are of the arrival day"
        );
        set(&mut r, EVERY_PLAN, "2030-07-10", Restriction::MinStay, None, 2);
        assert_eq!(r.restricted("BB", d("2030-07-10"), d("2030-07-12")), None, "lifted");
    }

    #[test]
    fn past_nights_are_dropped_and_the_rest_kept() {
        let mut r = RoomSupply::default();
        for (day, stamp) in [("2030-06-01", 1), ("2030-06-02", 2)] {
            r.rooms.insert(d(day), Stamped { value: Some(3), stamp: at(stamp) });
            set(&mut r, "BB", day, Restriction::MaxStay, Some(4), stamp);
            set(&mut r, EVERY_PLAN, day, Restriction::Closed, Some(1), stamp);
        }
        r.rates
            .entry("HB".into())
            .or_default()
            .entry("EUR".into())
            .or_default()
            .insert((d("2030-06-01"), 2), Stamped { value: Decimal::new(100, 0), stamp: at(0) });
        let mut hotel = HotelSupply { rooms: HashMap::from([("RMSD".to_string(), r)]) };
        let before = hotel.clone();
        assert!(!hotel.has_before(d("2030-06-01")) && hotel.has_before(d("2030-06-02")));
        assert!(!hotel.drop_before(d("2030-06-01")), "nothing before the first night");
        assert_eq!(hotel, before);
        assert!(hotel.drop_before(d("2030-06-02")));
        let r = hotel.room("RMSD").unwrap();
        assert_eq!(r.rooms.keys().copied().collect::<Vec<_>>(), [d("2030-06-02")]);
        assert_eq!(r.restriction("BB", d("2030-06-02"), Restriction::MaxStay), Some(4));
        assert_eq!(
            r.restriction("BB", d("2030-06-02"), Restriction::Closed),
            Some(1),
            "every kind of the first night kept"
        );
        assert_eq!(r.restriction("BB", d("2030-06-01"), Restriction::Closed), None);
        assert!(r.rates.is_empty(), "a plan without amounts left is gone");
        assert!(hotel.drop_before(d("2030-07-01")));
        assert!(hotel.is_empty(), "a room type without values left is gone");
    }

    #[test]
    fn an_amount_for_the_guests_else_for_any_number() {
        let mut r = RoomSupply::default();
        let amounts = r.rates.entry("BB".into()).or_default().entry("EUR".into()).or_default();
        amounts.insert((d("2030-06-01"), 0), Stamped { value: Decimal::new(100, 0), stamp: at(0) });
        amounts.insert((d("2030-06-01"), 1), Stamped { value: Decimal::new(80, 0), stamp: at(0) });
        let rate = |board: &str, currency: &str, night: &str, guests: u32| {
            amount(r.amounts(board, currency)?, d(night), guests)
        };
        assert_eq!(rate("BB", "EUR", "2030-06-01", 1), Some(Decimal::new(80, 0)));
        assert_eq!(rate("BB", "EUR", "2030-06-01", 2), Some(Decimal::new(100, 0)));
        assert_eq!(rate("BB", "EUR", "2030-06-01", 0), Some(Decimal::new(100, 0)));
        assert_eq!(rate("BB", "USD", "2030-06-01", 2), None);
        assert_eq!(rate("BB", "EUR", "2030-06-02", 2), None);
    }
}
