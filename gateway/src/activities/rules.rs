//! The business rules of the activity operations, on domain values only (no database, no
//! I/O): date ranges, the activities a request's locations select, the party and its price,
//! the checks and pricing of a booking, what availability offers.

use chrono::{NaiveDate, NaiveDateTime};
use ota_messages::common::{ActivityLocation, ErrorCode, ErrorWarningType, IdContext, PricingMethod, RegionCode, ReservationIdCode};
use ota_messages::tour_activity_avail::OtaTourActivityAvailRq;
use ota_messages::tour_activity_book::OtaTourActivityBookRq;
use rust_decimal::Decimal;

use super::catalogue::{Activity, Catalogue, NearbyHotel, Product, Service, Session};
use crate::errors::Problem;

/// The longest date range of a search or availability request, in days (both ends included).
pub const MAX_RANGE_DAYS: i64 = 28;

/// The most participants of one request.
pub const MAX_PARTICIPANTS: u64 = 999;

/// Free cancellation until this long before the start; 100 % after.
pub const FREE_CANCELLATION_HOURS: i64 = 48;

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
        return Err(Problem::biz(ErrorCode::InvalidStartEndDateCombination, format!("The end date ({end}) is before the start date ({start}).")).at(tag));
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

/// Resolves the `Location` / `LocationPref` list of a search or availability request. `tag`
/// is the XPath of the repeated element. Unknown product codes and unsupported `RegionCode`s
/// are errors; a hotel with no activities near it simply selects nothing.
pub fn select(catalogue: &Catalogue, locations: &[ActivityLocation], tag: &str) -> Result<Selection, Vec<Problem>> {
    if locations.is_empty() {
        return Err(vec![Problem::required("A location is required: a Source hotel code or a Service product code.").at(tag)]);
    }
    let mut problems = Vec::new();
    let mut named: Vec<String> = Vec::new();
    let mut near: Vec<String> = Vec::new();
    let mut hotel = None;
    for (i, loc) in locations.iter().enumerate() {
        let at = format!("{tag}[{}]/Region", i + 1);
        let code = loc.region.value.trim();
        if code.is_empty() {
            problems.push(Problem::required("The Region text (a hotel or product code) is empty.").at(at));
            continue;
        }
        match &loc.region.region_code {
            RegionCode::HotelCode => {
                hotel.get_or_insert_with(|| code.to_string());
                near.extend(catalogue.near(code).iter().cloned());
            }
            RegionCode::Product => match catalogue.of_product(code) {
                Some(a) => named.push(a.id.clone()),
                None => problems.push(Problem::biz(ErrorCode::InvalidValue, format!("Unknown product code {code:?}.")).at(at)),
            },
            RegionCode::Other(other) => problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("RegionCode {other:?} is not supported; use HotelCode or Product."))
                    .at(format!("{at}/@RegionCode")),
            ),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut ids: Vec<String> = Vec::new();
    for id in named.into_iter().chain(near) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    Ok(Selection { ids, hotel })
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
            Some(p) => PartyPrice { total: p.total.checked_add(amount)?, highest_unit: p.highest_unit.max(unit), lowest_unit: p.lowest_unit.min(unit) },
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

const AVAIL: &str = "/OTA_TourActivityAvailRQ/TourActivity";

/// Checks an availability request (every problem at once).
pub fn availability_query(rq: &OtaTourActivityAvailRq) -> Result<AvailabilityQuery, Vec<Problem>> {
    let ta = &rq.tour_activity;
    let (start, end) = (ta.schedule.start_period.0, ta.schedule.end_period.0);
    let mut problems = Vec::new();
    if let Err(p) = check_range(start, end, &format!("{AVAIL}/Schedule")) {
        return Err(vec![p]);
    }
    let mut party: Vec<PartyCategory> = Vec::new();
    if ta.participant_count.is_empty() {
        problems.push(Problem::required("At least one ParticipantCount is required.").at(format!("{AVAIL}/ParticipantCount")));
    }
    for (i, pc) in ta.participant_count.iter().enumerate() {
        let category = pc.qualifier_info.as_str().trim().to_string();
        if pc.quantity > MAX_PARTICIPANTS {
            problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Quantity {} is above the limit of {MAX_PARTICIPANTS}.", pc.quantity))
                    .at(format!("{AVAIL}/ParticipantCount[{}]/@Quantity", i + 1)),
            );
            continue;
        }
        match party.iter_mut().find(|c| c.category == category) {
            Some(c) => c.quantity += pc.quantity,
            None => party.push(PartyCategory { category, quantity: pc.quantity, position: i + 1 }),
        }
    }
    let size: u64 = party.iter().map(|c| c.quantity).sum();
    if problems.is_empty() && !(1..=MAX_PARTICIPANTS).contains(&size) {
        problems.push(
            Problem::biz(ErrorCode::InvalidValue, format!("The party has {size} participants; between 1 and {MAX_PARTICIPANTS} are allowed."))
                .at(format!("{AVAIL}/ParticipantCount")),
        );
    }
    party.retain(|c| c.quantity > 0);

    let mut limit = None;
    if let Some(gp) = ta.multimodal_offer.as_ref().map(|m| &m.requested_offer.guideline_pricing) {
        let gp_tag = format!("{AVAIL}/MultimodalOffer/RequestedOffer/GuidelinePricing");
        let per_person = match &gp.method {
            Some(PricingMethod::PerPerson) => Some(true),
            Some(PricingMethod::PerGroup) | None => Some(false),
            Some(PricingMethod::Other(m)) => {
                problems.push(
                    Problem::biz(ErrorCode::InvalidValue, format!("Pricing method {m:?} is not supported; use PerPerson or PerGroup."))
                        .at(format!("{gp_tag}/Method")),
                );
                None
            }
        };
        if let (Some(per_person), Some(max)) = (per_person, &gp.maximum_price) {
            if max.amount.0.is_sign_negative() {
                problems.push(Problem::biz(ErrorCode::InvalidValue, "MaximumPrice@Amount is negative.").at(format!("{gp_tag}/MaximumPrice/@Amount")));
            } else {
                limit = Some(PriceLimit { per_person, amount: max.amount.0, currency: max.currency_code.clone() });
            }
        }
    }
    if problems.is_empty() { Ok(AvailabilityQuery { start, end, party, size, limit }) } else { Err(problems) }
}

/// Checks the query against the selected activities: every category is priced by some
/// selected service, and the price limit's currency is theirs.
pub fn check_against(query: &AvailabilityQuery, activities: &[&Activity]) -> Result<(), Vec<Problem>> {
    let services = || activities.iter().flat_map(|a| a.products.iter().flat_map(|p| p.services.iter()));
    let mut problems = Vec::new();
    for c in &query.party {
        if services().next().is_some() && !services().any(|s| s.price(&c.category).is_some()) {
            problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Participant category {:?} is not offered by the selected activities.", c.category))
                    .at(format!("{AVAIL}/ParticipantCount[{}]/QualifierInfo", c.position)),
            );
        }
    }
    if let Some(currency) = query.limit.as_ref().and_then(|l| l.currency.as_deref())
        && let Some(other) = services().map(|s| s.currency.as_str()).find(|c| *c != currency)
    {
        problems.push(
            Problem::biz(ErrorCode::InvalidCurrencyCode, format!("MaximumPrice is in {currency}; the prices are in {other}."))
                .at(format!("{AVAIL}/MultimodalOffer/RequestedOffer/GuidelinePricing/MaximumPrice/@CurrencyCode")),
        );
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

/// The key of a service in the places booked: activity, product and service codes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServiceKey {
    /// `TourActivityID`.
    pub activity_id: String,
    /// `SupplierProductCode`.
    pub product_code: String,
    /// `SupplierServiceCode`.
    pub service_code: String,
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
/// from today on (`now`; at most [`MAX_DAYS_AHEAD`] days after today) whose service starts after
/// `now` (a session that has begun, or whose pickup has, is not offered) and whose places left
/// take the party (`places_left(activity, product, service, date)`), priced; transfers only
/// when they pick up at the customer's hotel (or no hotel was given); within the price limit;
/// at most `max` offers.
pub fn offers<'c>(
    activities: &[&'c Activity],
    query: &AvailabilityQuery,
    hotel_code: Option<&str>,
    now: NaiveDateTime,
    mode: AvailabilityMode,
    max: usize,
    places_left: impl Fn(&Activity, &Product, &Service, NaiveDate) -> i64,
) -> Vec<Offer<'c>> {
    let size = i64::try_from(query.size).unwrap_or(i64::MAX);
    let mut out = Vec::new();
    for a in activities {
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

/// A priced activity booking: what a Quote answers and a Commit stores.
#[derive(Debug, Clone, PartialEq)]
pub struct Booking {
    /// The Internal reference (after a Commit).
    pub reference: Option<String>,
    /// The partner's reference.
    pub client_reference: Option<String>,
    /// `TourActivityID`.
    pub activity_id: String,
    /// `SupplierProductCode`.
    pub product_code: String,
    /// `SupplierServiceCode`.
    pub service_code: String,
    /// The date of the session.
    pub service_date: NaiveDate,
    /// Start (the pickup, for a transfer).
    pub start: NaiveDateTime,
    /// End (the return, for a transfer).
    pub end: NaiveDateTime,
    /// The price of the whole booking.
    pub total: Decimal,
    /// Its currency.
    pub currency: String,
    /// The participants.
    pub participants: Vec<Participant>,
    /// The pickup of a transfer.
    pub pickup: Option<Pickup>,
}

impl Booking {
    /// The service booked.
    pub fn service_key(&self) -> ServiceKey {
        ServiceKey { activity_id: self.activity_id.clone(), product_code: self.product_code.clone(), service_code: self.service_code.clone() }
    }

    /// Whether a repeated Commit asks for this booking (same service, date and participants).
    pub fn same_as(&self, asked: &Booking) -> bool {
        let people = |b: &Booking| b.participants.iter().map(|p| (p.participant_id, p.category.clone())).collect::<Vec<_>>();
        self.service_key() == asked.service_key() && self.service_date == asked.service_date && people(self) == people(asked)
    }

    /// The end of free cancellation.
    pub fn free_cancellation_until(&self) -> NaiveDateTime {
        self.start - chrono::Duration::hours(FREE_CANCELLATION_HOURS)
    }
}

/// A participant of a booking, with its price.
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    /// `ParticipantID` (unique in the booking).
    pub participant_id: i64,
    /// Participant category (AQC code).
    pub category: String,
    /// Age.
    pub age: Option<i64>,
    /// `NamePrefix`.
    pub name_prefix: Option<String>,
    /// `GivenName`.
    pub given_name: Option<String>,
    /// `Surname`.
    pub surname: Option<String>,
    /// The participant's price.
    pub amount: Decimal,
}

/// The pickup of a transfer booking.
#[derive(Debug, Clone, PartialEq)]
pub struct Pickup {
    /// When (local).
    pub date_time: NaiveDateTime,
    /// Where (the hotel code).
    pub location_name: String,
    /// `PickupInd`.
    pub pickup_ind: bool,
}

const BOOK: &str = "/OTA_TourActivityBookRQ";
const INFO: &str = "/OTA_TourActivityBookRQ/BookingInfo";

/// The partner's booking reference: `UniqueID` Type 36 with `ID_Context="Client"`.
fn client_reference(rq: &OtaTourActivityBookRq) -> Option<&str> {
    rq.tpa_extensions
        .as_ref()?
        .unique_id
        .iter()
        .find(|u| u.r#type == ReservationIdCode::Booking && u.id_context == Some(IdContext::Client))
        .map(|u| u.id.trim())
}

/// A priced booking and the advisories (warnings) of the request.
pub type Priced = (Booking, Vec<Problem>);

/// Checks and prices a booking request against the catalogue (every problem at once, as far
/// as the request can be understood). `commit`: a Client reference is then required; `now`:
/// the local date-time (dates before today, a service that has begun and dates more than
/// [`MAX_DAYS_AHEAD`] days ahead are refused).
pub fn price_booking(catalogue: &Catalogue, rq: &OtaTourActivityBookRq, commit: bool, now: NaiveDateTime) -> Result<Priced, Vec<Problem>> {
    let info = &rq.booking_info;
    let mut problems = Vec::new();

    let client_ref = match client_reference(rq) {
        Some(id) => {
            if id.is_empty() || id.chars().count() > MAX_REFERENCE_LEN {
                problems.push(
                    Problem::biz(ErrorCode::InvalidValue, format!("The Client reference must have 1 to {MAX_REFERENCE_LEN} characters."))
                        .at(format!("{BOOK}/TPA_Extensions/UniqueID/@ID")),
                );
            }
            Some(id.to_string())
        }
        None if commit => {
            problems.push(
                Problem::required("A Commit needs the partner's booking reference: UniqueID Type 36 with ID_Context Client.")
                    .at(format!("{BOOK}/TPA_Extensions/UniqueID")),
            );
            None
        }
        None => None,
    };

    // One calendar date, not in the past.
    let (start, end) = (info.schedule.start.local, info.schedule.end.local);
    let date = start.date();
    if end.date() != date || end < start {
        problems.push(
            Problem::biz(
                ErrorCode::InvalidStartEndDateCombination,
                format!("Start ({}) and End ({}) must fall on one calendar date, End not before Start: one date per service.", info.schedule.start, info.schedule.end),
            )
            .at(format!("{INFO}/Schedule")),
        );
    } else if date < now.date() {
        problems.push(Problem::biz(ErrorCode::StartDateInvalid, format!("The date {date} is in the past.")).at(format!("{INFO}/Schedule/@Start")));
    } else if date > last_bookable(now.date()) {
        problems.push(
            Problem::biz(
                ErrorCode::StartDateInvalid,
                format!("The date {date} is too far ahead: activities can be booked at most {MAX_DAYS_AHEAD} days ahead, until {}.", last_bookable(now.date())),
            )
            .at(format!("{INFO}/Schedule/@Start")),
        );
    }

    // Participants: a category and a unique ParticipantID each.
    if info.participant_info.is_empty() {
        problems.push(Problem::required("At least one ParticipantInfo is required.").at(format!("{INFO}/ParticipantInfo")));
    } else if info.participant_info.len() as u64 > MAX_PARTICIPANTS {
        problems.push(
            Problem::biz(ErrorCode::InvalidValue, format!("At most {MAX_PARTICIPANTS} participants can be booked at once.")).at(format!("{INFO}/ParticipantInfo")),
        );
    }
    let mut seen = Vec::new();
    for (i, p) in info.participant_info.iter().enumerate() {
        let at = format!("{INFO}/ParticipantInfo[{}]", i + 1);
        if p.category.is_none() {
            problems.push(Problem::required("The participant's Category (QualifierInfo) is required.").at(format!("{at}/Category")));
        }
        let individual = p.individual.as_ref();
        match individual.and_then(|ind| ind.participant_id) {
            None => problems.push(Problem::required("The participant's Individual@ParticipantID is required.").at(format!("{at}/Individual/@ParticipantID"))),
            Some(id) if i64::try_from(id).is_err() => problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("ParticipantID {id} is too large; at most {}.", i64::MAX))
                    .at(format!("{at}/Individual/@ParticipantID")),
            ),
            Some(id) if seen.contains(&id) => problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("ParticipantID {id} is used twice; it must be unique within the request."))
                    .at(format!("{at}/Individual/@ParticipantID")),
            ),
            Some(id) => seen.push(id),
        }
        if let Some(age) = individual.and_then(|ind| ind.age)
            && age > 150
        {
            problems.push(Problem::biz(ErrorCode::InvalidValue, format!("Age {age} is not a person's age (0 to 150).")).at(format!("{at}/Individual/@Age")));
        }
    }
    let activity_id = info.basic_info.tour_activity_id.trim();
    if activity_id.is_empty() {
        problems.push(Problem::required("TourActivityID is empty.").at(format!("{INFO}/BasicInfo/@TourActivityID")));
    }
    if !problems.is_empty() {
        return Err(problems);
    }

    // The activity, product and service.
    let Some(activity) = catalogue.activity(activity_id) else {
        return Err(vec![
            Problem::biz(ErrorCode::InvalidValue, format!("Unknown tour activity {activity_id:?}.")).at(format!("{INFO}/BasicInfo/@TourActivityID")),
        ]);
    };
    let product = pick(&activity.products, info.basic_info.supplier_product_code.as_deref(), |p| &p.code, "product", "SupplierProductCode")
        .map_err(|p| vec![p])?;
    let service = pick(&product.services, info.basic_info.supplier_service_code.as_deref(), |s| &s.code, "service", "SupplierServiceCode")
        .map_err(|p| vec![p])?;
    let Some(session) = product.session(date) else {
        return Err(vec![
            Problem::biz(ErrorCode::InvalidDate, format!("Product {} of {} does not run on {date}.", product.code, activity.id)).at(format!("{INFO}/Schedule/@Start")),
        ]);
    };

    // Prices per participant.
    let mut participants = Vec::new();
    for (i, p) in info.participant_info.iter().enumerate() {
        let category = p.category.as_ref().map(|c| c.qualifier_info.as_str().trim().to_string()).unwrap_or_default();
        let ind = p.individual.clone().unwrap_or_default();
        match service.price(&category) {
            Some(amount) => participants.push(Participant {
                participant_id: ind.participant_id.and_then(|id| i64::try_from(id).ok()).unwrap_or_default(),
                category,
                age: ind.age.and_then(|a| i64::try_from(a).ok()),
                name_prefix: ind.name_prefix,
                given_name: ind.given_name,
                surname: ind.surname,
                amount,
            }),
            None => problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Participant category {category:?} is not offered by service {}.", service.code))
                    .at(format!("{INFO}/ParticipantInfo[{}]/Category/@QualifierInfo", i + 1)),
            ),
        }
    }

    // The pickup of a transfer.
    let mut advisories = Vec::new();
    let mut pickup = None;
    let mut hotel = None;
    match (&info.pickup_dropoff, service.transfer) {
        (None, true) => problems
            .push(Problem::required(format!("Pickup data is required for the transfer service {:?}.", service.code)).at(format!("{INFO}/PickupDropoff"))),
        (Some(pd), true) => {
            let location = pd.location_name.as_deref().map(str::trim).unwrap_or_default();
            if location.is_empty() {
                problems.push(
                    Problem::required("PickupDropoff@LocationName (the hotel code) is required for a transfer.").at(format!("{INFO}/PickupDropoff/@LocationName")),
                );
            } else {
                hotel = activity.hotel(location).filter(|h| h.pickup);
                if hotel.is_none() && activity.pickup_hotels().next().is_some() {
                    let known: Vec<&str> = activity.pickup_hotels().map(|h| h.code.as_str()).collect();
                    problems.push(
                        Problem::biz(ErrorCode::InvalidValue, format!("No pickup at {location:?}; pickups are at {}.", known.join(", ")))
                            .at(format!("{INFO}/PickupDropoff/@LocationName")),
                    );
                }
            }
            let default_time = service.span(session, hotel).start;
            let date_time = match pd.date_time {
                Some(dt) if dt.local.date() != date => {
                    problems.push(
                        Problem::biz(ErrorCode::InvalidValue, format!("The pickup ({dt}) is not on the booking date {date}.")).at(format!("{INFO}/PickupDropoff/@DateTime")),
                    );
                    default_time
                }
                Some(dt) if dt.local > session.start => {
                    problems.push(
                        Problem::biz(ErrorCode::InvalidValue, format!("The pickup ({dt}) is after the start of the activity ({}).", session.start))
                            .at(format!("{INFO}/PickupDropoff/@DateTime")),
                    );
                    default_time
                }
                Some(dt) => dt.local,
                None => default_time,
            };
            pickup = Some(Pickup { date_time, location_name: location.to_string(), pickup_ind: pd.pickup_ind.unwrap_or(true) });
        }
        (Some(_), false) => advisories.push(
            Problem::new(ErrorWarningType::Advisory, ErrorCode::InvalidValue, format!("Service {:?} has no transfer; PickupDropoff was ignored.", service.code))
                .at(format!("{INFO}/PickupDropoff")),
        ),
        (None, false) => {}
    }
    // A service that has begun (for a transfer: whose pickup has) can no longer be booked.
    let begins = service.span(session, hotel).start;
    if begins <= now {
        problems.push(
            Problem::biz(ErrorCode::StartDateInvalid, format!("The service of {date} began at {}; it can no longer be booked.", begins.time()))
                .at(format!("{INFO}/Schedule/@Start")),
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some(total) = participants.iter().try_fold(Decimal::ZERO, |sum, p| sum.checked_add(p.amount)) else {
        return Err(vec![Problem::biz(ErrorCode::InvalidValue, "The total is out of range.").at(format!("{INFO}/ParticipantInfo"))]);
    };
    let span = service.span(session, hotel);
    let booking = Booking {
        reference: None,
        client_reference: client_ref,
        activity_id: activity.id.clone(),
        product_code: product.code.clone(),
        service_code: service.code.clone(),
        service_date: date,
        start: span.start,
        end: span.end,
        total,
        currency: service.currency.clone(),
        participants,
        pickup,
    };
    Ok((booking, advisories))
}

/// Finds the product or service a code names; without a code, the only one there is.
fn pick<'a, T>(items: &'a [T], code: Option<&str>, code_of: impl Fn(&T) -> &String, what: &str, attr: &str) -> Result<&'a T, Problem> {
    let tag = format!("{INFO}/BasicInfo/@{attr}");
    match code.map(str::trim) {
        Some(code) => items
            .iter()
            .find(|x| code_of(x) == code)
            .ok_or_else(|| Problem::biz(ErrorCode::InvalidValue, format!("Unknown {what} {code:?} for this activity.")).at(tag)),
        None => match items {
            [only] => Ok(only),
            _ => {
                let codes: Vec<&str> = items.iter().map(|x| code_of(x).as_str()).collect();
                Err(Problem::required(format!("{attr} is required: the {what}s are {}.", codes.join(", "))).at(tag))
            }
        },
    }
}

/// The error of a booking that does not fit the places left.
pub fn no_availability(service_code: &str, date: NaiveDate, left: i64, size: usize) -> Problem {
    Problem::biz(ErrorCode::NoAvailability, format!("Service {service_code} has {left} place(s) left on {date}; {size} requested.")).at(format!("{INFO}/Schedule"))
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
        format!("Client reference {:?} names a hotel booking already; each booking needs its own.", b.client_reference.as_deref().unwrap_or_default()),
    )
    .at(format!("{BOOK}/TPA_Extensions/UniqueID"))
}

/// The error of a Commit whose service left the catalogue while it was made.
pub fn service_gone(b: &Booking) -> Problem {
    Problem::biz(ErrorCode::InvalidValue, format!("Service {} of product {} of {} is no longer offered.", b.service_code, b.product_code, b.activity_id))
        .at(format!("{INFO}/BasicInfo"))
}

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
        assert_eq!(check_range(d("2030-01-01"), d("2030-01-29"), "/t").unwrap_err().code, ErrorCode::SearchCriteriaInvalid);
        assert_eq!(check_range(d("2030-01-02"), d("2030-01-01"), "/t").unwrap_err().code, ErrorCode::InvalidStartEndDateCombination);
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
            cats.iter().enumerate().map(|(i, (c, q))| PartyCategory { category: c.to_string(), quantity: *q, position: i + 1 }).collect::<Vec<_>>()
        };
        let p = price_party(&s, &party(&[("10", 2), ("8", 1)])).unwrap();
        assert_eq!((p.total, p.highest_unit, p.lowest_unit), (Decimal::new(7375, 2), Decimal::new(2950, 2), Decimal::new(1475, 2)));
        assert!(price_party(&s, &party(&[("7", 1)])).is_none());
        let per_person = PriceLimit { per_person: true, amount: Decimal::new(30, 0), currency: None };
        let per_group = PriceLimit { per_person: false, amount: Decimal::new(30, 0), currency: None };
        assert!(per_person.admits(&p) && !per_group.admits(&p));
    }
}
