//! `/activitybook`: quote (`ResStatus="Quote"` or none) or book (`"Commit"`) one service of an
//! activity on one date for a list of participants.
//!
//! Validation: the activity, product and service exist (product and service may be left out
//! when there is only one); `Schedule` `Start` and `End` fall on one calendar date, today or
//! later, on which the product runs; every participant has a category the service prices and
//! a `ParticipantID` unique in the request; transfer services need a `PickupDropoff` at one of
//! the activity's pickup hotels, on the booking date; a Commit needs the partner's reference
//! (`TPA_Extensions/UniqueID` Type 36, `ID_Context="Client"`).
//!
//! A Quote prices and checks the places left, and stores nothing. A Commit runs in one
//! `IMMEDIATE` transaction: a booking with the same (requestor, Client reference) is answered
//! as it is (no second booking, no second decrement); otherwise the places are taken (never
//! below zero), and the booking, its participants and its pickup are stored under a new
//! Internal reference `ACT-nnnnnnn`. Cancellation (our decision): free until 48 hours before
//! the start, then 100 %.

use chrono::{Duration, NaiveDate, NaiveDateTime};
use ota_messages::common::{
    ActivityLocation, DateTimeSpan, ErrorCode, ErrorWarningType, IdContext, LocationContext, Region, RegionCode,
    ReservationIdCode, ResStatus, UniqueId,
};
use ota_messages::runtime::{self as rt, Response};
use ota_messages::tour_activity_book::{
    ActivityCancelPenalties, ActivityCancelPenalty, ActivityReservationDetails, BookPricing, BookPricingGroup, BookPricingSummary,
    BookingBasicInfo, CancelAmount, CancelDeadline, Individual, OtaTourActivityBookRq, OtaTourActivityBookRs, ParticipantCategory,
    ParticipantInfo, ParticipantPrice, PickupDropoff,
};
use rusqlite::{Connection, OptionalExtension, Transaction, params};
use rust_decimal::Decimal;

use super::availability::MAX_PARTICIPANTS;
use super::catalog::{self, Service};
use crate::db::{DbError, immediate};
use crate::errors::{Problem, errors, warnings};
use crate::ops::Ctx;

const ROOT: &str = "/OTA_TourActivityBookRQ";
const INFO: &str = "/OTA_TourActivityBookRQ/BookingInfo";

/// Free cancellation until this long before the start; 100 % after.
const FREE_CANCELLATION_HOURS: i64 = 48;

/// The longest client reference kept.
const MAX_REFERENCE_LEN: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Quote,
    Commit,
}

/// `/activitybook` (see the module docs).
pub async fn book(ctx: &Ctx, rq: &OtaTourActivityBookRq) -> OtaTourActivityBookRs {
    let action = match &rq.res_status {
        None | Some(ResStatus::Quote) => Action::Quote,
        Some(ResStatus::Commit) => Action::Commit,
        Some(other) => {
            return OtaTourActivityBookRs::from_errors(errors([Problem::biz(
                ErrorCode::InvalidActionStatusCode,
                format!("ResStatus {:?} is not supported; use Quote or Commit.", other.as_str()),
            )
            .at(format!("{ROOT}/@ResStatus"))]));
        }
    };
    let job = Job {
        rq: rq.clone(),
        action,
        breakdown: ctx.requestor.instance.as_deref() == Some("PriceBreakdown"),
        requestor: ctx.requestor.id.clone(),
        now: ctx.now.naive_utc(),
    };
    match ctx.db.call(move |conn| run(conn, &job)).await {
        Ok(rs) => rs,
        Err(e) => crate::ops::system_error(ctx, "activity booking", &e),
    }
}

struct Job {
    rq: OtaTourActivityBookRq,
    action: Action,
    breakdown: bool,
    requestor: String,
    now: NaiveDateTime,
}

/// A priced booking: what a Quote answers and a Commit stores.
#[derive(Debug, Clone, PartialEq)]
struct Booking {
    reference: Option<String>,
    client_reference: Option<String>,
    activity_id: String,
    product_code: String,
    service_code: String,
    service_date: NaiveDate,
    start: NaiveDateTime,
    end: NaiveDateTime,
    total: Decimal,
    currency: String,
    participants: Vec<Participant>,
    pickup: Option<Pickup>,
}

#[derive(Debug, Clone, PartialEq)]
struct Participant {
    participant_id: u64,
    category: String,
    age: Option<u64>,
    name_prefix: Option<String>,
    given_name: Option<String>,
    surname: Option<String>,
    amount: Decimal,
}

#[derive(Debug, Clone, PartialEq)]
struct Pickup {
    date_time: NaiveDateTime,
    location_name: String,
    pickup_ind: bool,
}

fn fail(problems: Vec<Problem>) -> Result<OtaTourActivityBookRs, DbError> {
    Ok(OtaTourActivityBookRs::from_errors(errors(problems)))
}

/// The partner's booking reference: `UniqueID` Type 36 with `ID_Context="Client"`.
fn client_reference(rq: &OtaTourActivityBookRq) -> Option<&UniqueId> {
    rq.tpa_extensions
        .as_ref()?
        .unique_id
        .iter()
        .find(|u| u.r#type == ReservationIdCode::Booking && u.id_context == Some(IdContext::Client))
}

fn run(conn: &mut Connection, job: &Job) -> Result<OtaTourActivityBookRs, DbError> {
    let rq = &job.rq;
    let info = &rq.booking_info;
    let mut problems = Vec::new();

    // The partner's reference.
    let client_ref = match client_reference(rq) {
        Some(u) => {
            let id = u.id.trim();
            if id.is_empty() || id.chars().count() > MAX_REFERENCE_LEN {
                problems.push(
                    Problem::biz(ErrorCode::InvalidValue, format!("The Client reference must have 1 to {MAX_REFERENCE_LEN} characters."))
                        .at(format!("{ROOT}/TPA_Extensions/UniqueID/@ID")),
                );
            }
            Some(id.to_string())
        }
        None if job.action == Action::Commit => {
            problems.push(
                Problem::required("A Commit needs the partner's booking reference: UniqueID Type 36 with ID_Context Client.")
                    .at(format!("{ROOT}/TPA_Extensions/UniqueID")),
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
    } else if date < job.now.date() {
        problems.push(Problem::biz(ErrorCode::StartDateInvalid, format!("The date {date} is in the past.")).at(format!("{INFO}/Schedule/@Start")));
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
        match p.individual.as_ref().and_then(|ind| ind.participant_id) {
            None => problems.push(Problem::required("The participant's Individual@ParticipantID is required.").at(format!("{at}/Individual/@ParticipantID"))),
            Some(id) if seen.contains(&id) => problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("ParticipantID {id} is used twice; it must be unique within the request."))
                    .at(format!("{at}/Individual/@ParticipantID")),
            ),
            Some(id) => seen.push(id),
        }
    }
    let activity_id = info.basic_info.tour_activity_id.trim();
    if activity_id.is_empty() {
        problems.push(Problem::required("TourActivityID is empty.").at(format!("{INFO}/BasicInfo/@TourActivityID")));
    }
    if !problems.is_empty() {
        return fail(problems);
    }

    // The activity, product and service.
    let Some(activity) = catalog::load_activity(conn, activity_id)? else {
        return fail(vec![
            Problem::biz(ErrorCode::InvalidValue, format!("Unknown tour activity {activity_id:?}.")).at(format!("{INFO}/BasicInfo/@TourActivityID")),
        ]);
    };
    let product = match pick(&activity.products, info.basic_info.supplier_product_code.as_deref(), |p| &p.code, "product", "SupplierProductCode") {
        Ok(p) => p,
        Err(p) => return fail(vec![p]),
    };
    let service = match pick(&product.services, info.basic_info.supplier_service_code.as_deref(), |s| &s.code, "service", "SupplierServiceCode") {
        Ok(s) => s,
        Err(p) => return fail(vec![p]),
    };
    let Some(session) = product.session(date) else {
        return fail(vec![
            Problem::biz(ErrorCode::InvalidDate, format!("Product {} of {} does not run on {date}.", product.code, activity.id))
                .at(format!("{INFO}/Schedule/@Start")),
        ]);
    };

    // Prices per participant.
    let mut participants = Vec::new();
    for (i, p) in info.participant_info.iter().enumerate() {
        let category = p.category.as_ref().map(|c| c.qualifier_info.as_str().trim().to_string()).unwrap_or_default();
        let ind = p.individual.clone().unwrap_or_default();
        match service.price(&category) {
            Some(amount) => participants.push(Participant {
                participant_id: ind.participant_id.unwrap_or_default(),
                category,
                age: ind.age,
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
        (None, true) => problems.push(
            Problem::required(format!("Pickup data is required for the transfer service {:?}.", service.code)).at(format!("{INFO}/PickupDropoff")),
        ),
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
                        Problem::biz(ErrorCode::InvalidValue, format!("The pickup ({dt}) is not on the booking date {date}."))
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
    if !problems.is_empty() {
        return fail(problems);
    }

    let Some(total) = participants.iter().try_fold(Decimal::ZERO, |sum, p| sum.checked_add(p.amount)) else {
        return fail(vec![Problem::biz(ErrorCode::InvalidValue, "The total is out of range.").at(format!("{INFO}/ParticipantInfo"))]);
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
    let size = booking.participants.len() as i64;

    match job.action {
        Action::Quote => {
            let left = catalog::places_left(conn, service, date)?;
            if left < size {
                return fail(vec![no_availability(service, date, left, size)]);
            }
            Ok(answer(&booking, job.breakdown, advisories))
        }
        Action::Commit => match immediate(conn, |tx| commit(tx, &booking, service, &job.requestor, job.now))? {
            Committed::New(stored) => Ok(answer(&stored, job.breakdown, advisories)),
            Committed::Existing(stored) => {
                if !same_booking(&stored, &booking) {
                    advisories.push(
                        Problem::new(
                            ErrorWarningType::Advisory,
                            ErrorCode::ReservationAlreadyExists,
                            format!(
                                "A booking with Client reference {:?} exists already; it is returned unchanged, and this request was not booked.",
                                stored.client_reference.as_deref().unwrap_or_default()
                            ),
                        )
                        .at(format!("{ROOT}/TPA_Extensions/UniqueID")),
                    );
                }
                Ok(answer(&stored, job.breakdown, advisories))
            }
            Committed::Full(left) => fail(vec![no_availability(service, date, left, size)]),
        },
    }
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

fn no_availability(service: &Service, date: NaiveDate, left: i64, size: i64) -> Problem {
    Problem::biz(
        ErrorCode::NoAvailability,
        format!("Service {} has {left} place(s) left on {date}; {size} requested.", service.code),
    )
    .at(format!("{INFO}/Schedule"))
}

/// Whether a repeated Commit asks for the booking already made.
fn same_booking(stored: &Booking, asked: &Booking) -> bool {
    let people = |b: &Booking| b.participants.iter().map(|p| (p.participant_id, p.category.clone())).collect::<Vec<_>>();
    stored.activity_id == asked.activity_id
        && stored.product_code == asked.product_code
        && stored.service_code == asked.service_code
        && stored.service_date == asked.service_date
        && people(stored) == people(asked)
}

enum Committed {
    New(Booking),
    Existing(Booking),
    Full(i64),
}

fn local(dt: NaiveDateTime) -> String {
    dt.format("%Y-%m-%dT%H:%M:%S").to_string()
}

/// Inside the `IMMEDIATE` transaction: the existing booking, or take the places and store.
fn commit(tx: &Transaction, booking: &Booking, service: &Service, requestor: &str, now: NaiveDateTime) -> Result<Committed, DbError> {
    let client_ref = booking.client_reference.clone().unwrap_or_default();
    if let Some(existing) = load_booking(tx, requestor, &client_ref)? {
        return Ok(Committed::Existing(existing));
    }
    let size = booking.participants.len() as i64;
    let date = booking.service_date.to_string();
    tx.execute(
        "INSERT INTO activity_allotment (service_id, date, places_left) VALUES (?1, ?2, ?3) ON CONFLICT (service_id, date) DO NOTHING",
        params![service.id, date, service.capacity],
    )?;
    let taken = tx.execute(
        "UPDATE activity_allotment SET places_left = places_left - ?3 WHERE service_id = ?1 AND date = ?2 AND places_left >= ?3",
        params![service.id, date, size],
    )?;
    if taken == 0 {
        let left: i64 =
            tx.query_row("SELECT places_left FROM activity_allotment WHERE service_id = ?1 AND date = ?2", params![service.id, date], |r| r.get(0))?;
        return Ok(Committed::Full(left));
    }
    let id: i64 = tx.query_row("SELECT COALESCE(MAX(id), 0) + 1 FROM activity_booking", [], |r| r.get(0))?;
    let reference = format!("ACT-{id:07}");
    tx.execute(
        "INSERT INTO activity_booking (id, reference, client_reference, requestor_id, activity_id, product_code, service_code,
                                       service_date, start_at, end_at, status, total, currency, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'Reserved', ?11, ?12, ?13)",
        params![
            id,
            reference,
            client_ref,
            requestor,
            booking.activity_id,
            booking.product_code,
            booking.service_code,
            date,
            local(booking.start),
            local(booking.end),
            booking.total.to_string(),
            booking.currency,
            now.format("%Y-%m-%dT%H:%M:%SZ").to_string()
        ],
    )?;
    for (i, p) in booking.participants.iter().enumerate() {
        tx.execute(
            "INSERT INTO activity_booking_participant (booking_id, participant_id, position, category, age, name_prefix, given_name, surname, amount)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                id,
                i64::try_from(p.participant_id).map_err(|_| DbError::Data(format!("participant id {}", p.participant_id)))?,
                i as i64,
                p.category,
                p.age.and_then(|a| i64::try_from(a).ok()),
                p.name_prefix,
                p.given_name,
                p.surname,
                p.amount.to_string()
            ],
        )?;
    }
    if let Some(pk) = &booking.pickup {
        tx.execute(
            "INSERT INTO activity_booking_pickup (booking_id, date_time, location_name, pickup_ind) VALUES (?1, ?2, ?3, ?4)",
            params![id, local(pk.date_time), pk.location_name, pk.pickup_ind],
        )?;
    }
    load_booking(tx, requestor, &client_ref)?
        .map(Committed::New)
        .ok_or_else(|| DbError::Data(format!("booking {reference} vanished after insert")))
}

fn parse_local(what: &str, value: &str) -> Result<NaiveDateTime, DbError> {
    NaiveDateTime::parse_from_str(value, "%Y-%m-%dT%H:%M:%S").map_err(|_| DbError::Data(format!("{what}: {value:?}")))
}

/// A stored booking by (requestor, Client reference).
fn load_booking(conn: &Connection, requestor: &str, client_ref: &str) -> Result<Option<Booking>, DbError> {
    type Row = (i64, String, String, String, String, String, String, String, String, String);
    let row: Option<Row> = conn
        .query_row(
            "SELECT id, reference, activity_id, product_code, service_code, service_date, start_at, end_at, total, currency
             FROM activity_booking WHERE requestor_id = ?1 AND client_reference = ?2",
            params![requestor, client_ref],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?)),
        )
        .optional()?;
    let Some((id, reference, activity_id, product_code, service_code, service_date, start, end, total, currency)) = row else {
        return Ok(None);
    };
    type PRow = (i64, String, Option<i64>, Option<String>, Option<String>, Option<String>, String);
    let mut stmt = conn.prepare_cached(
        "SELECT participant_id, category, age, name_prefix, given_name, surname, amount
         FROM activity_booking_participant WHERE booking_id = ?1 ORDER BY position",
    )?;
    let rows: Vec<PRow> =
        stmt.query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))?.collect::<Result<_, _>>()?;
    let participants = rows
        .into_iter()
        .map(|(pid, category, age, name_prefix, given_name, surname, amount)| {
            Ok(Participant {
                participant_id: u64::try_from(pid).map_err(|_| DbError::Data(format!("participant id {pid}")))?,
                category,
                age: age.and_then(|a| u64::try_from(a).ok()),
                name_prefix,
                given_name,
                surname,
                amount: catalog::decimal("participant amount", &amount)?,
            })
        })
        .collect::<Result<_, DbError>>()?;
    let pickup: Option<(String, String, bool)> = conn
        .query_row("SELECT date_time, location_name, pickup_ind FROM activity_booking_pickup WHERE booking_id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    let pickup = pickup
        .map(|(dt, location_name, pickup_ind)| Ok::<_, DbError>(Pickup { date_time: parse_local("pickup", &dt)?, location_name, pickup_ind }))
        .transpose()?;
    Ok(Some(Booking {
        reference: Some(reference),
        client_reference: Some(client_ref.to_string()),
        activity_id,
        product_code,
        service_code,
        service_date: NaiveDate::parse_from_str(&service_date, "%Y-%m-%d").map_err(|_| DbError::Data(format!("service date {service_date:?}")))?,
        start: parse_local("start", &start)?,
        end: parse_local("end", &end)?,
        total: catalog::decimal("total", &total)?,
        currency,
        participants,
        pickup,
    }))
}

/// The answer for a quoted or stored booking.
fn answer(b: &Booking, breakdown: bool, advisories: Vec<Problem>) -> OtaTourActivityBookRs {
    let mut confirmation = Vec::new();
    if let Some(c) = &b.client_reference {
        confirmation.push(UniqueId { r#type: ReservationIdCode::Booking, id: c.clone(), id_context: Some(IdContext::Client) });
    }
    if let Some(r) = &b.reference {
        confirmation.push(UniqueId { r#type: ReservationIdCode::Booking, id: r.clone(), id_context: Some(IdContext::Internal) });
    }
    let participant_info = b
        .participants
        .iter()
        .map(|p| ParticipantInfo {
            category: Some(ParticipantCategory {
                qualifier_info: p.category.parse().unwrap_or_else(|never: std::convert::Infallible| match never {}),
            }),
            individual: Some(Individual {
                age: p.age,
                participant_id: Some(p.participant_id),
                given_name: p.given_name.clone(),
                name_prefix: p.name_prefix.clone(),
                surname: p.surname.clone(),
            }),
        })
        .collect();
    let participant_price = if breakdown {
        b.participants
            .iter()
            .map(|p| ParticipantPrice { participant_id: p.participant_id, amount: rt::Decimal(p.amount), currency_code: b.currency.clone() })
            .collect()
    } else {
        Vec::new()
    };
    let details = ActivityReservationDetails {
        basic_info: BookingBasicInfo {
            tour_activity_id: b.activity_id.clone(),
            supplier_product_code: Some(b.product_code.clone()),
            supplier_service_code: Some(b.service_code.clone()),
        },
        confirmation,
        schedule: DateTimeSpan { start: rt::DateTime::local(b.start), end: rt::DateTime::local(b.end) },
        location: Some(ActivityLocation {
            context: LocationContext::Service,
            region: Region { region_code: RegionCode::Product, value: b.activity_id.clone() },
        }),
        participant_info,
        pricing: BookPricing {
            summary: BookPricingSummary { amount: rt::Decimal(b.total), currency_code: b.currency.clone() },
            participant_price,
            group: Some(BookPricingGroup { known_groupsize: b.participants.len() as u64 }),
        },
        pickup_dropoff: b.pickup.as_ref().map(|p| PickupDropoff {
            date_time: Some(rt::DateTime::local(p.date_time)),
            location_name: Some(p.location_name.clone()),
            pickup_ind: Some(p.pickup_ind),
        }),
        cancel_penalties: Some(ActivityCancelPenalties {
            cancel_penalty: vec![ActivityCancelPenalty {
                deadline: CancelDeadline { absolute_deadline: rt::DateTime::local(b.start - Duration::hours(FREE_CANCELLATION_HOURS)) },
                amount_percent: CancelAmount { amount: rt::Decimal(b.total), currency_code: b.currency.clone() },
            }],
        }),
    };
    let rs = OtaTourActivityBookRs::success(details);
    if advisories.is_empty() { rs } else { rs.with_warnings(warnings(advisories)) }
}
