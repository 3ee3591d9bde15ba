//! The business rules of the activity operations, on domain values only (no database, no
//! I/O): date ranges, the activities a request's locations select, the party and its price,
//! the checks and pricing of a booking, what availability offers.

use chrono::{DateTime, NaiveDate, Utc};
use ota_messages::common::{ErrorCode, ErrorWarningType};
use rust_decimal::Decimal;

use super::booking::Booking;
use super::catalogue::{Activity, NearbyHotel, Product, Service, Session};
use crate::errors::Problem;

/// The longest date range of a search or availability request, in days (both ends included).
pub const MAX_RANGE_DAYS: i64 = 28;

/// The most participants of one request.
pub const MAX_PARTICIPANTS: u64 = 999;

/// The longest client reference kept.
pub const MAX_REFERENCE_LEN: usize = 64;

/// How far ahead an activity can be booked, offered or found, in days after today (a booking
/// on the last date that can be written, 9999-12-31, would end in a year OTA cannot write).
pub const MAX_DAYS_AHEAD: i64 = 730;

/// The last date an activity can be booked, offered or found: [`MAX_DAYS_AHEAD`] days after
/// `today`.
pub fn last_bookable(today: NaiveDate) -> NaiveDate {
    today + chrono::Duration::days(MAX_DAYS_AHEAD)
}

/// The participant category whose price is a search's indicative `MinPrice` (adults).
pub const ADULT: &str = "10";

// ---------------------------------------------------------------------------------------------
// Dates and locations

/// Checks a request's date range: End not before Start, at most [`MAX_RANGE_DAYS`] days.
pub fn check_range(start: NaiveDate, end: NaiveDate, tag: &str) -> Result<(), Problem> {
    if end < start {
        return Err(Problem::biz(
            ErrorCode::InvalidStartEndDateCombination,
            format!("The end date ({end}) is before the start date ({start})."),
        )
        .at(tag));
    }
    let days = (end - start).num_days() + 1;
    if days > MAX_RANGE_DAYS {
        return Err(Problem::biz(
            ErrorCode::SearchCriteriaInvalid,
            format!("The date range {start} – {end} spans {days} days; at most {MAX_RANGE_DAYS} days are allowed."),
        )
        .at(tag));
    }
    Ok(())
}

/// The activities a request's locations select, and the customer's hotel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Activity ids: those named by a product code first, then those near the hotel(s).
    pub ids: Vec<String>,
    /// The first Source hotel code (for pickups).
    pub hotel: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// The party and its price

/// One category of the party: its code, how many, and where the request named it first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartyCategory {
    /// The participant category (AQC code).
    pub category: String,
    /// How many participants.
    pub quantity: u64,
    /// The position (1-based) of its first `ParticipantCount`.
    pub position: usize,
}

/// The price of a party for one service.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartyPrice {
    /// The whole party.
    pub total: Decimal,
    /// The highest price per participant.
    pub highest_unit: Decimal,
    /// The lowest price per participant.
    pub lowest_unit: Decimal,
}

/// Prices the party with a service; `None` when a category has no price there.
pub fn price_party(s: &Service, party: &[PartyCategory]) -> Option<PartyPrice> {
    let mut out: Option<PartyPrice> = None;
    for c in party {
        let unit = s.price(&c.category)?;
        let amount = unit.checked_mul(Decimal::from(c.quantity))?;
        out = Some(match out {
            None => PartyPrice { total: amount, highest_unit: unit, lowest_unit: unit },
            Some(p) => PartyPrice {
                total: p.total.checked_add(amount)?,
                highest_unit: p.highest_unit.max(unit),
                lowest_unit: p.lowest_unit.min(unit),
            },
        });
    }
    out
}

/// How `MaximumPrice` applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceLimit {
    /// Every participant's price must be within it (`PerPerson`), else the party's total.
    pub per_person: bool,
    /// The limit.
    pub amount: Decimal,
    /// Its currency, if given.
    pub currency: Option<String>,
}

impl PriceLimit {
    /// Whether a party price is within the limit.
    pub fn admits(&self, price: &PartyPrice) -> bool {
        (if self.per_person { price.highest_unit } else { price.total }) <= self.amount
    }
}

/// The pricing mode of availability, from the Type 22 `Instance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AvailabilityMode {
    /// `MF001` and default: every date, group prices, pickups.
    AllPrices,
    /// `MF002`: one "price from" per service.
    PriceFrom,
}

/// An availability request, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct AvailabilityQuery {
    /// First date asked for.
    pub start: NaiveDate,
    /// Last date asked for.
    pub end: NaiveDate,
    /// The party by category.
    pub party: Vec<PartyCategory>,
    /// How many participants.
    pub size: u64,
    /// `MaximumPrice`, if any.
    pub limit: Option<PriceLimit>,
}

/// Checks the query against the selected activities: every category is priced by some
/// selected service, and the price limit's currency is theirs.
pub fn check_against(query: &AvailabilityQuery, activities: &[&Activity]) -> Result<(), Vec<Problem>> {
    let services = || activities.iter().flat_map(|a| a.products.iter().flat_map(|p| p.services.iter()));
    let mut problems = Vec::new();
    for c in &query.party {
        if services().next().is_some() && !services().any(|s| s.price(&c.category).is_some()) {
            problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("Participant category {:?} is not offered by the selected activities.", c.category),
                )
                .at(format!("{AVAIL}/ParticipantCount[{}]/QualifierInfo", c.position)),
            );
        }
    }
    if let Some(currency) = query.limit.as_ref().and_then(|l| l.currency.as_deref())
        && let Some(other) = services().map(|s| s.currency.as_str()).find(|c| *c != currency)
    {
        problems.push(
            Problem::biz(
                ErrorCode::InvalidCurrencyCode,
                format!("MaximumPrice is in {currency}; the prices are in {other}."),
            )
            .at(format!("{AVAIL}/MultimodalOffer/RequestedOffer/GuidelinePricing/MaximumPrice/@CurrencyCode")),
        );
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

/// One offer of availability: a service on a session, priced for the party.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer<'c> {
    /// The activity.
    pub activity: &'c Activity,
    /// The product.
    pub product: &'c Product,
    /// The service.
    pub service: &'c Service,
    /// The session (first one for `PriceFrom`).
    pub session: Session,
    /// The customer's hotel, when the activity is near it.
    pub hotel: Option<&'c NearbyHotel>,
    /// The party's price.
    pub price: PartyPrice,
}

/// What availability offers: per service of the selected activities, the dates of the query
/// from the activity's today on (`utc` as a local time of its place; at most [`MAX_DAYS_AHEAD`]
/// days after that) whose service starts after that local time (a session that has begun, or whose pickup has, is not offered) and whose places left
/// take the party (`places_left(activity, product, service, date)`), priced; transfers only
/// when they pick up at the customer's hotel (or no hotel was given); within the price limit;
/// at most `max` offers.
pub fn offers<'c>(
    activities: &[&'c Activity],
    query: &AvailabilityQuery,
    hotel_code: Option<&str>,
    utc: DateTime<Utc>,
    mode: AvailabilityMode,
    max: usize,
    places_left: impl Fn(&Activity, &Product, &Service, NaiveDate) -> i64,
) -> Vec<Offer<'c>> {
    let size = i64::try_from(query.size).unwrap_or(i64::MAX);
    let mut out = Vec::new();
    for a in activities {
        let now = a.now_here(utc);
        let hotel = hotel_code.and_then(|h| a.hotel(h));
        for p in &a.products {
            for s in &p.services {
                if s.transfer && hotel_code.is_some() && !hotel.is_some_and(|h| h.pickup) {
                    continue; // no pickup at the customer's hotel
                }
                let Some(price) = price_party(s, &query.party) else { continue };
                if query.limit.as_ref().is_some_and(|l| !l.admits(&price)) {
                    continue;
                }
                let (from, to) = (query.start.max(now.date()), query.end.min(last_bookable(now.date())));
                let starts_later = |d: &NaiveDate| p.session(*d).is_some_and(|x| s.span(x, hotel).start > now);
                let mut dates = p.dates(from, to).filter(|d| starts_later(d) && places_left(a, p, s, *d) >= size);
                let sessions: Vec<Session> = match mode {
                    AvailabilityMode::AllPrices => dates.filter_map(|d| p.session(d)).collect(),
                    AvailabilityMode::PriceFrom => dates.next().and_then(|d| p.session(d)).into_iter().collect(),
                };
                for session in sessions {
                    if out.len() >= max {
                        return out;
                    }
                    out.push(Offer { activity: a, product: p, service: s, session, hotel, price });
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Booking

/// A priced booking and the advisories (warnings) of the request.
pub type Priced = (Booking, Vec<Problem>);

/// The error of a booking that does not fit the places left.
pub fn no_availability(service_code: &str, date: NaiveDate, left: i64, size: usize) -> Problem {
    Problem::biz(
        ErrorCode::NoAvailability,
        format!("Service {service_code} has {left} place(s) left on {date}; {size} requested."),
    )
    .at(format!("{INFO}/Schedule"))
}

/// Whether a repeated Commit asks for the booking already made with its Client reference: the
/// same service, date and participants.
pub fn same_as_asked(stored: &Booking, asked: &Booking) -> bool {
    let people =
        |b: &Booking| b.participants.iter().map(|p| (p.participant_id, p.category.clone())).collect::<Vec<_>>();
    stored.service_key() == asked.service_key()
        && stored.service_date == asked.service_date
        && people(stored) == people(asked)
}

/// The warning of a repeated Commit that asked for something else than the booking made.
pub fn already_booked(stored: &Booking) -> Problem {
    Problem::new(
        ErrorWarningType::Advisory,
        ErrorCode::ReservationAlreadyExists,
        format!(
            "A booking with Client reference {:?} exists already; it is returned unchanged, and this request was not booked.",
            stored.client_reference.as_deref().unwrap_or_default()
        ),
    )
    .at(format!("{BOOK}/TPA_Extensions/UniqueID"))
}

/// The error of a Commit whose Client reference names a hotel booking of the requestor.
pub fn reference_taken(b: &Booking) -> Problem {
    Problem::biz(
        ErrorCode::ReservationAlreadyExists,
        format!(
            "Client reference {:?} names a hotel booking already; each booking needs its own.",
            b.client_reference.as_deref().unwrap_or_default()
        ),
    )
    .at(format!("{BOOK}/TPA_Extensions/UniqueID"))
}

/// The error of a Commit whose service left the catalogue while it was made.
pub fn service_gone(b: &Booking) -> Problem {
    Problem::biz(
        ErrorCode::InvalidValue,
        format!("Service {} of product {} of {} is no longer offered.", b.service_code, b.product_code, b.activity_id),
    )
    .at(format!("{INFO}/BasicInfo"))
}

/// Where an availability request's activity is (the `Tag` of its problems).
pub const AVAIL: &str = "/OTA_TourActivityAvailRQ/TourActivity";

/// The root of a book request (the `Tag` of its problems).
pub const BOOK: &str = "/OTA_TourActivityBookRQ";

/// A book request's `BookingInfo` (the `Tag` of its problems).
pub const INFO: &str = "/OTA_TourActivityBookRQ/BookingInfo";

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_are_at_most_28_days_and_in_order() {
        assert!(check_range(d("2030-01-01"), d("2030-01-28"), "/t").is_ok());
        assert_eq!(
            check_range(d("2030-01-01"), d("2030-01-29"), "/t").unwrap_err().code,
            ErrorCode::SearchCriteriaInvalid
        );
        assert_eq!(
            check_range(d("2030-01-02"), d("2030-01-01"), "/t").unwrap_err().code,
            ErrorCode::InvalidStartEndDateCombination
        );
    }

    #[test]
    fn a_party_is_priced_per_category() {
        let s = Service {
            code: "TIC".into(),
            transfer: false,
            currency: "EUR".into(),
            capacity: 20,
            capacity_on: Default::default(),
            pickup_minutes: 0,
            return_minutes: 0,
            texts: Default::default(),
            prices: [("10".to_string(), Decimal::new(2950, 2)), ("8".to_string(), Decimal::new(1475, 2))].into(),
        };
        let party = |cats: &[(&str, u64)]| {
            cats.iter()
                .enumerate()
                .map(|(i, (c, q))| PartyCategory { category: c.to_string(), quantity: *q, position: i + 1 })
                .collect::<Vec<_>>()
        };
        let p = price_party(&s, &party(&[("10", 2), ("8", 1)])).unwrap();
        assert_eq!(
            (p.total, p.highest_unit, p.lowest_unit),
            (Decimal::new(7375, 2), Decimal::new(2950, 2), Decimal::new(1475, 2))
        );
        assert!(price_party(&s, &party(&[("7", 1)])).is_none());
        let per_person = PriceLimit { per_person: true, amount: Decimal::new(30, 0), currency: None };
        let per_group = PriceLimit { per_person: false, amount: Decimal::new(30, 0), currency: None };
        assert!(per_person.admits(&p) && !per_group.admits(&p));
    }
}
