//! An edit of a range of the calendar: checked (every refusal names its field) and turned into
//! the same notification a supplier's message is read into; what it applied and what not.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::Serialize;

use super::{Invalid, MAX_AMOUNT, MAX_ROOMS, MAX_STAY, check_nights, day, invalid};
use crate::hotels::catalogue::Hotel;
use crate::hotels::rules::MAX_DAYS_AHEAD;
use crate::hotels::rules::supply::{Applied, Change, Item, MAX_VALUES, Notification, Span};
use crate::hotels::supply::{EVERY_PLAN, Restriction, Stamp};

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
