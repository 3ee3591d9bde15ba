//! The hotel's calendar (issue 31, `docs/hotels/calendar.md`), on domain values only: the grid
//! of room types × nights built from the content and the stored supply values (each with who set
//! it and when), and an edit of a range checked and turned into the same [`Notification`] a
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

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Datelike, Months, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::Serialize;

use crate::hotels::booking::{Night, Rooms};
use crate::hotels::catalogue::Hotel;
use crate::hotels::rules::MAX_DAYS_AHEAD;
use crate::hotels::rules::supply::{Applied, Change, Item, MAX_VALUES, Notification, Span};
use crate::hotels::supply::{EVERY_PLAN, Restriction, SetBy, Sourced, SourcedSupply, Stamp};

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

/// Who set a cell last, as shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// The channel manager's requestor id, `operator:NAME` or `cli:USER`; "channel manager"
    /// when not known.
    pub by: String,
    /// When (UTC, RFC 3339 with milliseconds).
    pub at: String,
}

impl Source {
    fn of(set: &SetBy) -> Source {
        Source {
            by: set.source.clone().unwrap_or_else(|| UNKNOWN_SOURCE.to_string()),
            at: set.stamp.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "set by {} at {}", self.by, self.at)
    }
}

/// The rooms of a room type on one night.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoomsNight {
    /// On sale: the supplier's value, else the content's.
    pub on_sale: u32,
    /// True when the supplier's value (else the content's units and allotments).
    pub supplied: bool,
    /// Sold through the gateway.
    pub sold: i64,
    /// Who set the supplier's value, when it did.
    pub set: Option<Source>,
}

/// The restrictions of a room type and rate plan on one day (the newer of the plan's own and
/// every plan's, kind by kind).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RestrictionsNight {
    /// The night is not sold.
    pub closed: bool,
    /// No stay arrives that day.
    pub closed_to_arrival: bool,
    /// No stay departs that day.
    pub closed_to_departure: bool,
    /// A stay arriving that day lasts at least so many nights.
    pub min_stay: Option<u32>,
    /// A stay arriving that day lasts at most so many nights.
    pub max_stay: Option<u32>,
    /// Who set the newest of these values, when any was set.
    pub set: Option<Source>,
}

/// The restrictions of a room type and rate plan, night by night.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanRestrictions {
    /// The rate plan (board); `""`: every plan (a room type without rates).
    pub plan: String,
    /// One per night of the page.
    pub nights: Vec<RestrictionsNight>,
}

/// The amount of one night of a room with a rate plan in a currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AmountNight {
    /// For any number of guests: the supplier's, else the content's (none: not priced).
    pub amount: Option<String>,
    /// The supplier's amounts for a number of guests (0: any), each with who set it.
    pub by_guests: Vec<GuestAmount>,
    /// Who set the amount for any number of guests, when the supplier did.
    pub set: Option<Source>,
}

/// The supplier's amount for a number of guests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuestAmount {
    /// Guests (0: any number).
    pub guests: u32,
    /// The amount.
    pub amount: String,
    /// Who set it.
    pub set: Source,
}

/// The amounts of a room type with a rate plan in a currency, night by night.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanAmounts {
    /// The rate plan (board).
    pub plan: String,
    /// ISO 4217.
    pub currency: String,
    /// One per night of the page.
    pub nights: Vec<AmountNight>,
}

/// One room type's part of the calendar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoomCalendar {
    /// The room type's code.
    pub code: String,
    /// Its name (the first text's).
    pub name: String,
    /// The rooms, one per night.
    pub rooms: Vec<RoomsNight>,
    /// The restrictions per rate plan.
    pub restrictions: Vec<PlanRestrictions>,
    /// The amounts per rate plan and currency.
    pub amounts: Vec<PlanAmounts>,
}

/// A hotel's calendar over some nights.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Calendar {
    /// The hotel's code.
    pub hotel: String,
    /// Its name.
    pub name: String,
    /// The first night.
    pub from: String,
    /// The last night (included).
    pub to: String,
    /// The nights, in order (`YYYY-MM-DD`).
    pub nights: Vec<String>,
    /// The room types, in the content's order.
    pub rooms: Vec<RoomCalendar>,
}

/// The rate plans (boards) of a room type in the content, and in the supply values read.
fn plans_of(hotel: &Hotel, room: &str, supply: &SourcedSupply) -> Vec<(String, String)> {
    let mut plans: BTreeSet<(String, String)> =
        hotel.rates.iter().filter(|r| r.room == room).map(|r| (r.board.clone(), r.currency.clone())).collect();
    plans.extend(supply.rates.keys().filter(|k| k.0 == room).map(|k| (k.1.clone(), k.2.clone())));
    plans.into_iter().collect()
}

/// A room type and rate plan's restrictions by day and kind.
type ByDay<'s> = HashMap<(NaiveDate, Restriction), &'s Sourced>;

/// A room type, rate plan and currency's amounts (per number of guests) by night.
type ByNight<'s> = HashMap<NaiveDate, &'s Vec<(u32, Decimal, SetBy)>>;

/// The newer of two stamped values.
fn newer<'a>(a: Option<&'a Sourced>, b: Option<&'a Sourced>) -> Option<&'a Sourced> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if x.1.stamp >= y.1.stamp { x } else { y }),
        (x, y) => x.or(y),
    }
}

/// The calendar of `hotel` from `from` to `to` (both included): its content, the supply values
/// read (`supply`) and the rooms sold (`sold`); only the room type `only` when given.
pub fn build(
    hotel: &Hotel,
    (from, to): (NaiveDate, NaiveDate),
    supply: &SourcedSupply,
    sold: &Rooms,
    only: Option<&str>,
) -> Calendar {
    let nights: Vec<NaiveDate> = from.iter_days().take_while(|d| *d <= to).collect();
    // The values indexed by borrowed codes: a cell's look-up allocates nothing.
    let mut on_sale: HashMap<(&str, NaiveDate), &Sourced> = HashMap::new();
    for ((room, night), v) in &supply.rooms {
        on_sale.insert((room.as_str(), *night), v);
    }
    let mut restricted: HashMap<(&str, &str), ByDay<'_>> = HashMap::new();
    for ((room, board, night, kind), v) in &supply.restrictions {
        restricted.entry((room.as_str(), board.as_str())).or_default().insert((*night, *kind), v);
    }
    let mut priced: HashMap<(&str, &str, &str), ByNight<'_>> = HashMap::new();
    for ((room, board, currency, night), v) in &supply.rates {
        priced.entry((room.as_str(), board.as_str(), currency.as_str())).or_default().insert(*night, v);
    }
    let mut rooms = Vec::new();
    for room in hotel.rooms.iter().filter(|r| only.is_none_or(|o| o == r.code)) {
        let code = room.code.as_str();
        let mut night_key = Night { hotel: hotel.code.clone(), room_type: code.to_string(), night: from };
        let rooms_row = nights
            .iter()
            .map(|&n| {
                night_key.night = n;
                let set = on_sale.get(&(code, n)).copied();
                let supplied = set.and_then(|(v, _)| *v);
                RoomsNight {
                    on_sale: supplied.unwrap_or_else(|| room.on_sale(n)),
                    supplied: supplied.is_some(),
                    sold: sold.get(&night_key).copied().unwrap_or(0),
                    set: set.map(|(_, by)| Source::of(by)),
                }
            })
            .collect();
        let plans = plans_of(hotel, code, supply);
        let mut boards: Vec<String> = plans.iter().map(|(b, _)| b.clone()).collect();
        boards.dedup();
        if boards.is_empty() {
            boards.push(EVERY_PLAN.to_string());
        }
        let restrictions = boards
            .into_iter()
            .map(|board| {
                let own = restricted.get(&(code, board.as_str()));
                let every = restricted.get(&(code, EVERY_PLAN));
                let nights = nights
                    .iter()
                    .map(|&n| {
                        let mut out = RestrictionsNight::default();
                        let mut newest: Option<&SetBy> = None;
                        for kind in Restriction::ALL {
                            let own = own.and_then(|m| m.get(&(n, kind)).copied());
                            let every = every.and_then(|m| m.get(&(n, kind)).copied());
                            let Some((value, by)) = newer(own, every) else { continue };
                            if newest.is_none_or(|m| m.stamp < by.stamp) {
                                newest = Some(by);
                            }
                            match kind {
                                Restriction::Closed => out.closed = value.is_some_and(|v| v > 0),
                                Restriction::ClosedToArrival => out.closed_to_arrival = value.is_some_and(|v| v > 0),
                                Restriction::ClosedToDeparture => {
                                    out.closed_to_departure = value.is_some_and(|v| v > 0)
                                }
                                Restriction::MinStay => out.min_stay = *value,
                                Restriction::MaxStay => out.max_stay = *value,
                            }
                        }
                        out.set = newest.map(Source::of);
                        out
                    })
                    .collect();
                PlanRestrictions { plan: board, nights }
            })
            .collect();
        let amounts = plans
            .into_iter()
            .map(|(board, currency)| {
                let content: Vec<_> = hotel
                    .rates
                    .iter()
                    .filter(|r| r.room == code && r.board == board && r.currency == currency)
                    .collect();
                let by_night = priced.get(&(code, board.as_str(), currency.as_str()));
                let nights = nights
                    .iter()
                    .map(|&n| {
                        let supplied = by_night.and_then(|m| m.get(&n).copied());
                        let any = supplied.and_then(|a| a.iter().find(|(g, _, _)| *g == 0));
                        let amount = any.map(|(_, a, _)| *a).or_else(|| {
                            content
                                .iter()
                                .filter(|r| r.from <= n && n <= r.to)
                                .max_by_key(|r| r.from)
                                .map(|r| r.nightly)
                        });
                        AmountNight {
                            amount: amount.map(|a| a.to_string()),
                            by_guests: supplied
                                .map(|all| {
                                    all.iter()
                                        .map(|(g, a, by)| GuestAmount {
                                            guests: *g,
                                            amount: a.to_string(),
                                            set: Source::of(by),
                                        })
                                        .collect()
                                })
                                .unwrap_or_default(),
                            set: any.map(|(_, _, by)| Source::of(by)),
                        }
                    })
                    .collect();
                PlanAmounts { plan: board, currency, nights }
            })
            .collect();
        rooms.push(RoomCalendar {
            code: code.to_string(),
            name: room
                .texts
                .get("en")
                .or_else(|| room.texts.values().next())
                .map(|t| t.name.clone())
                .unwrap_or_default(),
            rooms: rooms_row,
            restrictions,
            amounts,
        });
    }
    Calendar {
        hotel: hotel.code.clone(),
        name: hotel.name.clone(),
        from: from.to_string(),
        to: to.to_string(),
        nights: nights.iter().map(ToString::to_string).collect(),
        rooms,
    }
}

/// What an edit asks for, as given (the console's form, the CLI's options).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditAsk {
    /// The first night (`YYYY-MM-DD`).
    pub from: String,
    /// The last night (included).
    pub to: String,
    /// Only these days of the week (`Mon,Tue`; empty: every day).
    pub weekdays: Vec<String>,
    /// The room types (empty: every one).
    pub rooms: Vec<String>,
    /// The rate plans (empty: every one).
    pub plans: Vec<String>,
    /// What to do: `rooms`, `close`, `open`, `cta`, `no-cta`, `ctd`, `no-ctd`, `min-stay`,
    /// `max-stay`, `amount`.
    pub action: String,
    /// The number of `rooms`, `min-stay`, `max-stay` (0: no limit), the `amount`.
    pub value: String,
    /// The currency of an amount.
    pub currency: String,
    /// The number of guests of an amount (empty or 0: any number).
    pub guests: String,
}

/// What an edit sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The rooms on sale.
    Rooms(u32),
    /// Closed (true) or open (false).
    Closed(bool),
    /// Closed to arrival or not.
    ClosedToArrival(bool),
    /// Closed to departure or not.
    ClosedToDeparture(bool),
    /// The minimum stay (`None`: no limit).
    MinStay(Option<u32>),
    /// The maximum stay (`None`: no limit).
    MaxStay(Option<u32>),
    /// The nightly amount.
    Amount {
        /// The amount.
        amount: Decimal,
        /// ISO 4217.
        currency: String,
        /// For this many guests (0: any number).
        guests: u32,
    },
}

impl Action {
    /// Says what it sets.
    pub fn describe(&self) -> String {
        let limit = |v: &Option<u32>| v.map_or_else(|| "no limit".to_string(), |n| format!("{n} night(s)"));
        match self {
            Action::Rooms(n) => format!("rooms on sale {n}"),
            Action::Closed(true) => "closed".into(),
            Action::Closed(false) => "open".into(),
            Action::ClosedToArrival(c) => format!("closed to arrival {}", if *c { "yes" } else { "no" }),
            Action::ClosedToDeparture(c) => format!("closed to departure {}", if *c { "yes" } else { "no" }),
            Action::MinStay(v) => format!("minimum stay {}", limit(v)),
            Action::MaxStay(v) => format!("maximum stay {}", limit(v)),
            Action::Amount { amount, currency, guests } => format!(
                "amount {amount} {currency}{}",
                if *guests == 0 { String::new() } else { format!(" for {guests} guest(s)") }
            ),
        }
    }
}

/// An edit, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// The hotel.
    pub hotel: String,
    /// The nights.
    pub span: Span,
    /// The room types (each in the content).
    pub rooms: Vec<String>,
    /// The rate plans asked for (each sold by the hotel; empty: every one).
    pub plans: Vec<String>,
    /// What it sets.
    pub action: Action,
}

/// A whole number in `0..=max`.
fn whole(field: &'static str, text: &str, max: u32) -> Result<u32, Invalid> {
    let t = text.trim();
    if t.is_empty() {
        return Err(invalid(field, "a number is needed"));
    }
    match t.parse::<i64>() {
        Ok(n) if n < 0 => Err(invalid(field, "not negative")),
        Ok(n) => u32::try_from(n).ok().filter(|n| *n <= max).ok_or_else(|| invalid(field, format!("at most {max}"))),
        Err(_) => Err(invalid(field, "a whole number")),
    }
}

const WEEKDAYS: [&str; 7] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"];

/// The days of the week named (`Mon,Tue`, any case; several values or one with commas).
fn weekdays(given: &[String]) -> Result<Option<[bool; 7]>, Invalid> {
    let mut out = [false; 7];
    let mut any = false;
    for name in given.iter().flat_map(|g| g.split(',')).map(str::trim).filter(|s| !s.is_empty()) {
        let lower = name.to_ascii_lowercase();
        let Some(i) = WEEKDAYS.iter().position(|w| lower.starts_with(w) && lower.len() <= 9) else {
            return Err(invalid("weekdays", "days of the week as Mon,Tue,Wed,Thu,Fri,Sat,Sun"));
        };
        out[i] = true;
        any = true;
    }
    Ok(any.then_some(out))
}

/// Checks an edit of `hotel` asked at `now`: every field, then the number of values it sets.
pub fn check_edit(ask: &EditAsk, hotel: &Hotel, now: DateTime<Utc>) -> Result<Edit, Invalid> {
    let today = hotel.today(now);
    let from = day("from", &ask.from)?;
    let to = day("to", &ask.to)?;
    if from < today {
        return Err(invalid("from", format!("{from} is past (today at the hotel is {today})")));
    }
    check_nights(from, to)?;
    if (to - today).num_days() > MAX_DAYS_AHEAD {
        return Err(invalid("to", format!("at most {MAX_DAYS_AHEAD} days ahead (the selling horizon)")));
    }
    let weekdays = weekdays(&ask.weekdays)?;
    let mut rooms: Vec<String> = Vec::new();
    for r in ask.rooms.iter().map(|r| r.trim()).filter(|r| !r.is_empty()) {
        if hotel.room(r).is_none() {
            return Err(invalid("room", format!("{:?} is not a room type of this hotel", clip(r))));
        }
        if !rooms.iter().any(|x| x == r) {
            rooms.push(r.to_string());
        }
    }
    if rooms.is_empty() {
        rooms = hotel.rooms.iter().map(|r| r.code.clone()).collect();
    }
    if rooms.is_empty() {
        return Err(invalid("room", "this hotel has no room type"));
    }
    let mut plans: Vec<String> = Vec::new();
    for p in ask.plans.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        if !hotel.rates.iter().any(|r| r.board == p) {
            return Err(invalid("plan", format!("{:?} is not a rate plan (board) of this hotel", clip(p))));
        }
        if !plans.iter().any(|x| x == p) {
            plans.push(p.to_string());
        }
    }
    let stay = |field, v: &str| whole(field, v, MAX_STAY).map(|n| (n > 0).then_some(n));
    let action = match ask.action.trim() {
        "rooms" => Action::Rooms(whole("rooms", &ask.value, MAX_ROOMS)?),
        "close" => Action::Closed(true),
        "open" => Action::Closed(false),
        "cta" => Action::ClosedToArrival(true),
        "no-cta" => Action::ClosedToArrival(false),
        "ctd" => Action::ClosedToDeparture(true),
        "no-ctd" => Action::ClosedToDeparture(false),
        "min-stay" => Action::MinStay(stay("min_stay", &ask.value)?),
        "max-stay" => Action::MaxStay(stay("max_stay", &ask.value)?),
        "amount" => {
            let text = ask.value.trim();
            let plain = text.bytes().all(|b| b.is_ascii_digit() || b == b'.' || b == b'-');
            let amount: Decimal = text
                .parse()
                .ok()
                .filter(|_| plain)
                .ok_or_else(|| invalid("amount", "a decimal number such as 95.00"))?;
            if amount.is_sign_negative() {
                return Err(invalid("amount", "not negative"));
            }
            if amount > Decimal::from(MAX_AMOUNT) || amount.scale() > 4 {
                return Err(invalid("amount", format!("at most {MAX_AMOUNT}, with at most 4 decimals")));
            }
            let currency = ask.currency.trim().to_string();
            if currency.len() != 3 || !currency.bytes().all(|b| b.is_ascii_uppercase()) {
                return Err(invalid("currency", "three capital letters (ISO 4217), such as EUR"));
            }
            let guests = if ask.guests.trim().is_empty() { 0 } else { whole("guests", &ask.guests, 99)? };
            if plans.is_empty() {
                for room in &rooms {
                    if !hotel.rates.iter().any(|r| &r.room == room && r.currency == currency) {
                        return Err(invalid(
                            "plan",
                            format!("room type {room} has no rate plan in {currency}: name the rate plan"),
                        ));
                    }
                }
            }
            Action::Amount { amount, currency, guests }
        }
        other => {
            return Err(invalid(
                "action",
                format!(
                    "{:?} is not one of rooms, close, open, cta, no-cta, ctd, no-ctd, min-stay, max-stay, amount",
                    clip(other)
                ),
            ));
        }
    };
    let edit = Edit { hotel: hotel.code.clone(), span: Span { start: from, end: to, weekdays }, rooms, plans, action };
    let values: usize = items(&edit, hotel).iter().map(|i| i.span.len()).sum();
    if values > MAX_VALUES {
        return Err(invalid("to", format!("an edit sets at most {MAX_VALUES} values, this one {values}")));
    }
    Ok(edit)
}

/// A value cut for an error message.
fn clip(v: &str) -> String {
    v.chars().take(40).collect()
}

/// The items of an edit, one per room type (and rate plan where it is of rate plans); each
/// item's tag says what it sets, for the result.
fn items(edit: &Edit, hotel: &Hotel) -> Vec<Item> {
    let mut out = Vec::new();
    let what = edit.action.describe();
    for room in &edit.rooms {
        let item = |plan: Option<&str>, change: Change| Item {
            tag: match plan {
                Some(p) if !p.is_empty() => format!("room {room}, plan {p}: {what}"),
                _ => format!("room {room}: {what}"),
            },
            room: room.clone(),
            span: edit.span,
            change,
        };
        let restriction = |kind: Restriction, value: Option<u32>| -> Vec<Item> {
            let plans: Vec<&str> =
                if edit.plans.is_empty() { vec![EVERY_PLAN] } else { edit.plans.iter().map(String::as_str).collect() };
            plans
                .into_iter()
                .map(|p| item(Some(p), Change::Restriction { board: p.to_string(), kind, value }))
                .collect()
        };
        match &edit.action {
            Action::Rooms(n) => out.push(item(None, Change::SetRooms(*n))),
            Action::Closed(c) => out.extend(restriction(Restriction::Closed, Some(u32::from(*c)))),
            Action::ClosedToArrival(c) => out.extend(restriction(Restriction::ClosedToArrival, Some(u32::from(*c)))),
            Action::ClosedToDeparture(c) => {
                out.extend(restriction(Restriction::ClosedToDeparture, Some(u32::from(*c))))
            }
            Action::MinStay(v) => out.extend(restriction(Restriction::MinStay, *v)),
            Action::MaxStay(v) => out.extend(restriction(Restriction::MaxStay, *v)),
            Action::Amount { amount, currency, guests } => {
                let plans: Vec<String> = if edit.plans.is_empty() {
                    let mut boards: Vec<String> = hotel
                        .rates
                        .iter()
                        .filter(|r| &r.room == room && &r.currency == currency)
                        .map(|r| r.board.clone())
                        .collect();
                    boards.sort();
                    boards.dedup();
                    boards
                } else {
                    edit.plans.clone()
                };
                for p in plans {
                    let change =
                        Change::Rate { board: p.clone(), currency: currency.clone(), guests: *guests, amount: *amount };
                    out.push(item(Some(&p), change));
                }
            }
        }
    }
    out
}

/// The notification an edit is applied as: the same value a supplier's message is read into,
/// stamped `stamp`, its values kept with `source` (`operator:NAME`, `cli:USER`).
pub fn notification(edit: &Edit, hotel: &Hotel, stamp: Stamp, source: &str) -> Notification {
    Notification { hotel: edit.hotel.clone(), stamp, source: Some(source.to_string()), items: items(edit, hotel) }
}

/// Values kept because a newer one was there (set by a later message or edit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotApplied {
    /// What (room type, rate plan, change).
    pub what: String,
    /// The first such day.
    pub from: String,
    /// How many such days.
    pub days: usize,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditOutcome {
    /// The hotel.
    pub hotel: String,
    /// What it set, in words.
    pub action: String,
    /// The stamp it carries (UTC, RFC 3339).
    pub stamp: String,
    /// Who it is kept as set by.
    pub source: String,
    /// Values written.
    pub applied: usize,
    /// Values not written: a newer value was kept.
    pub not_applied: Vec<NotApplied>,
    /// Warnings: rooms on sale set below the rooms sold.
    pub warnings: Vec<String>,
}

impl EditOutcome {
    /// What applying `n` found.
    pub fn of(edit: &Edit, n: &Notification, applied: &Applied) -> EditOutcome {
        EditOutcome {
            hotel: edit.hotel.clone(),
            action: edit.action.describe(),
            stamp: n.stamp.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            source: n.source.clone().unwrap_or_default(),
            applied: applied.written,
            not_applied: applied
                .older
                .iter()
                .map(|(what, from, days)| NotApplied { what: what.clone(), from: from.to_string(), days: *days })
                .collect(),
            warnings: applied
                .below_sold
                .iter()
                .map(|(_, room, night, on_sale, sold)| {
                    format!("room type {room}, night of {night}: {on_sale} room(s) on sale is below the {sold} sold")
                })
                .collect(),
        }
    }

    /// The outcome in sentences.
    pub fn sentences(&self) -> Vec<String> {
        let mut out = vec![format!("{}: {} value(s) applied ({}).", self.hotel, self.applied, self.action)];
        for n in &self.not_applied {
            out.push(format!(
                "Not applied to {} day(s) from {} ({}): a newer value (a later channel-manager message or edit) is kept.",
                n.days, n.from, n.what
            ));
        }
        out.extend(self.warnings.iter().map(|w| format!("Warning: {w}.")));
        out
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::hotels::catalogue::{Rate, RoomType};

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
