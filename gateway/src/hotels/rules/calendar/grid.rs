//! The calendar's grid: room types × nights built from the content and the stored supply
//! values, each with who set it and when.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;
use rust_decimal::Decimal;
use serde::Serialize;

use super::UNKNOWN_SOURCE;
use crate::hotels::booking::{Night, Rooms};
use crate::hotels::catalogue::{Hotel, Rate};
use crate::hotels::supply::{EVERY_PLAN, Restriction, SetBy, Sourced, SourcedSupply};

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

/// One night's restrictions of a room type and rate plan: the plan's own or those set for
/// every plan, the newer of each kind.
fn restrictions_night(own: Option<&ByDay<'_>>, every: Option<&ByDay<'_>>, n: NaiveDate) -> RestrictionsNight {
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
            Restriction::ClosedToDeparture => out.closed_to_departure = value.is_some_and(|v| v > 0),
            Restriction::MinStay => out.min_stay = *value,
            Restriction::MaxStay => out.max_stay = *value,
        }
    }
    out.set = newest.map(Source::of);
    out
}

/// One night's amount of a room type, rate plan and currency: the supplied amount for any
/// number of guests, else the content's rate of that night; with the amounts per number of
/// guests supplied.
fn amount_night(by_night: Option<&ByNight<'_>>, content: &[&Rate], n: NaiveDate) -> AmountNight {
    let supplied = by_night.and_then(|m| m.get(&n).copied());
    let any = supplied.and_then(|a| a.iter().find(|(g, _, _)| *g == 0));
    let amount = any
        .map(|(_, a, _)| *a)
        .or_else(|| content.iter().filter(|r| r.from <= n && n <= r.to).max_by_key(|r| r.from).map(|r| r.nightly));
    AmountNight {
        amount: amount.map(|a| a.to_string()),
        by_guests: supplied
            .map(|all| {
                all.iter()
                    .map(|(g, a, by)| GuestAmount { guests: *g, amount: a.to_string(), set: Source::of(by) })
                    .collect()
            })
            .unwrap_or_default(),
        set: any.map(|(_, _, by)| Source::of(by)),
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
                let nights = nights.iter().map(|&n| restrictions_night(own, every, n)).collect();
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
                let nights = nights.iter().map(|&n| amount_night(by_night, &content, n)).collect();
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
