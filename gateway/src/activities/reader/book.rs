//! `OTA_TourActivityBookRQ` read: the booking asked for (participants, schedule, pickup, the
//! client's reference, the payment), priced from the catalogue.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use ota_messages::common::{ErrorCode, ErrorWarningType, IdContext, ReservationIdCode};
use ota_messages::tour_activity_book::{BookingInfo, OtaTourActivityBookRq};
use rust_decimal::Decimal;

use crate::activities::booking::{Booking, Participant, Pickup};
use crate::activities::catalogue::{Activity, Catalogue, NearbyHotel, Service, Session};
use crate::activities::rules::*;
use crate::errors::Problem;
use crate::shared::cards;

/// The partner's booking reference: `UniqueID` Type 36 with `ID_Context="Client"`.
fn client_reference(rq: &OtaTourActivityBookRq) -> Option<&str> {
    rq.tpa_extensions
        .as_ref()?
        .unique_id
        .iter()
        .find(|u| u.r#type == ReservationIdCode::Booking && u.id_context == Some(IdContext::Client))
        .map(|u| u.id.trim())
}

/// Checks and prices a booking request against the catalogue (every problem at once, as far
/// as the request can be understood). `commit`: a Client reference is then required; `utc`:
/// now, compared as a local time of the activity's place (dates before its today, a service that
/// has begun and dates more than [`MAX_DAYS_AHEAD`] days ahead are refused).
pub fn price_booking(
    catalogue: &Catalogue,
    rq: &OtaTourActivityBookRq,
    commit: bool,
    utc: DateTime<Utc>,
) -> Result<Priced, Vec<Problem>> {
    let info = &rq.booking_info;
    let mut problems = Vec::new();
    // Now in the activity's place (its sessions are local times there); UTC for an unknown one,
    // which is refused below.
    let now = catalogue.activity(info.basic_info.tour_activity_id.trim()).map_or(utc.naive_utc(), |a| a.now_here(utc));

    let client_ref = checked_client_reference(rq, commit, &mut problems);

    // One calendar date, not in the past.
    let Some((start, end)) = schedule(info, &mut problems) else { return Err(problems) };
    let date = start.date();
    check_date((start, end), now, &mut problems);

    check_participants(info, &mut problems);
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
            Problem::biz(ErrorCode::InvalidValue, format!("Unknown tour activity {activity_id:?}."))
                .at(format!("{INFO}/BasicInfo/@TourActivityID")),
        ]);
    };
    let product = pick(
        &activity.products,
        info.basic_info.supplier_product_code.as_deref(),
        |p| &p.code,
        "product",
        "SupplierProductCode",
    )
    .map_err(|p| vec![p])?;
    // Without a SupplierServiceCode (OpenTravel has none), the service the request describes:
    // with a PickupDropoff a transfer service, without one a service without transfer.
    let described: Vec<&Service> =
        product.services.iter().filter(|s| s.transfer == info.pickup_dropoff.is_some()).collect();
    let candidates: Vec<&Service> = match info.basic_info.supplier_service_code {
        None if !described.is_empty() => described,
        _ => product.services.iter().collect(),
    };
    let service = *pick(
        &candidates,
        info.basic_info.supplier_service_code.as_deref(),
        |s| &s.code,
        "service",
        "SupplierServiceCode",
    )
    .map_err(|p| vec![p])?;
    let Some(session) = product.session(date) else {
        return Err(vec![
            Problem::biz(
                ErrorCode::InvalidDate,
                format!("Product {} of {} does not run on {date}.", product.code, activity.id),
            )
            .at(format!("{INFO}/Schedule/@Start")),
        ]);
    };

    let participants = priced_participants(info, service, &mut problems);

    let mut advisories = Vec::new();
    let (pickup, hotel) = pickup_of(info, activity, service, session, date, &mut problems, &mut advisories);
    // A service that has begun (for a transfer: whose pickup has) can no longer be booked.
    let begins = service.span(session, hotel).start;
    if begins <= now {
        problems.push(
            Problem::biz(
                ErrorCode::StartDateInvalid,
                format!("The service of {date} began at {}; it can no longer be booked.", begins.time()),
            )
            .at(format!("{INFO}/Schedule/@Start")),
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some(total) = participants.iter().try_fold(Decimal::ZERO, |sum, p| sum.checked_add(p.amount)) else {
        return Err(vec![
            Problem::biz(ErrorCode::InvalidValue, "The total is out of range.").at(format!("{INFO}/ParticipantInfo")),
        ]);
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

/// The partner's booking reference, checked: needed on a Commit, 1 to [`MAX_REFERENCE_LEN`]
/// characters.
fn checked_client_reference(rq: &OtaTourActivityBookRq, commit: bool, problems: &mut Vec<Problem>) -> Option<String> {
    match client_reference(rq) {
        Some(id) => {
            if id.is_empty() || id.chars().count() > MAX_REFERENCE_LEN {
                problems.push(
                    Problem::biz(
                        ErrorCode::InvalidValue,
                        format!("The Client reference must have 1 to {MAX_REFERENCE_LEN} characters."),
                    )
                    .at(format!("{BOOK}/TPA_Extensions/UniqueID/@ID")),
                );
            }
            Some(id.to_string())
        }
        None if commit => {
            problems.push(
                Problem::required(
                    "A Commit needs the partner's booking reference: UniqueID Type 36 with ID_Context Client.",
                )
                .at(format!("{BOOK}/TPA_Extensions/UniqueID")),
            );
            None
        }
        None => None,
    }
}

/// A booking's schedule: one calendar date, End not before Start, from today to the last
/// bookable date.
fn check_date((start, end): (NaiveDateTime, NaiveDateTime), now: NaiveDateTime, problems: &mut Vec<Problem>) {
    let date = start.date();
    if end.date() != date || end < start {
        problems.push(
            Problem::biz(
                ErrorCode::InvalidStartEndDateCombination,
                format!(
                    "Start ({}) and End ({}) must fall on one calendar date, End not before Start: one date per service.",
                    start.format("%Y-%m-%dT%H:%M:%S"),
                    end.format("%Y-%m-%dT%H:%M:%S")
                ),
            )
            .at(format!("{INFO}/Schedule")),
        );
    } else if date < now.date() {
        problems.push(
            Problem::biz(ErrorCode::StartDateInvalid, format!("The date {date} is in the past."))
                .at(format!("{INFO}/Schedule/@Start")),
        );
    } else if date > last_bookable(now.date()) {
        problems.push(
            Problem::biz(
                ErrorCode::StartDateInvalid,
                format!("The date {date} is too far ahead: activities can be booked at most {MAX_DAYS_AHEAD} days ahead, until {}.", last_bookable(now.date())),
            )
            .at(format!("{INFO}/Schedule/@Start")),
        );
    }
}

/// Finds the product or service a code names; without a code, the only one there is.
fn pick<'a, T>(
    items: &'a [T],
    code: Option<&str>,
    code_of: impl Fn(&T) -> &String,
    what: &str,
    attr: &str,
) -> Result<&'a T, Problem> {
    let tag = format!("{INFO}/BasicInfo/@{attr}");
    match code.map(str::trim) {
        Some(code) => items.iter().find(|x| code_of(x) == code).ok_or_else(|| {
            Problem::biz(ErrorCode::InvalidValue, format!("Unknown {what} {code:?} for this activity.")).at(tag)
        }),
        None => match items {
            [only] => Ok(only),
            _ => {
                let codes: Vec<&str> = items.iter().map(|x| code_of(x).as_str()).collect();
                Err(Problem::required(format!("{attr} is required: the {what}s are {}.", codes.join(", "))).at(tag))
            }
        },
    }
}

/// Checks the participants of a book request: one at least, not too many, each with a
/// category, a unique `ParticipantID` and a person's age.
fn check_participants(info: &BookingInfo, problems: &mut Vec<Problem>) {
    if info.participant_info.is_empty() {
        problems
            .push(Problem::required("At least one ParticipantInfo is required.").at(format!("{INFO}/ParticipantInfo")));
    } else if info.participant_info.len() as u64 > MAX_PARTICIPANTS {
        problems.push(
            Problem::biz(
                ErrorCode::InvalidValue,
                format!("At most {MAX_PARTICIPANTS} participants can be booked at once."),
            )
            .at(format!("{INFO}/ParticipantInfo")),
        );
    }
    let mut seen = Vec::new();
    for (i, p) in info.participant_info.iter().enumerate() {
        let at = format!("{INFO}/ParticipantInfo[{}]", i + 1);
        match p.category.as_ref().map(|c| (&c.qualifier_info_attr, &c.qualifier_info)) {
            None | Some((None, None)) => {
                problems.push(
                    Problem::required("The participant's Category (QualifierInfo) is required.")
                        .at(format!("{at}/Category")),
                );
            }
            Some((Some(attr), Some(element))) if attr != element => problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!(
                        "Category@QualifierInfo {:?} and Category/QualifierInfo {:?} name two categories; give one.",
                        attr.as_str(),
                        element.as_str()
                    ),
                )
                .at(format!("{at}/Category/QualifierInfo")),
            ),
            Some(_) => {}
        }
        let individual = p.individual.as_ref();
        match individual.and_then(|ind| ind.participant_id) {
            None => problems.push(
                Problem::required("The participant's Individual@ParticipantID is required.")
                    .at(format!("{at}/Individual/@ParticipantID")),
            ),
            Some(id) if i64::try_from(id).is_err() => problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("ParticipantID {id} is too large; at most {}.", i64::MAX),
                )
                .at(format!("{at}/Individual/@ParticipantID")),
            ),
            Some(id) if seen.contains(&id) => problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("ParticipantID {id} is used twice; it must be unique within the request."),
                )
                .at(format!("{at}/Individual/@ParticipantID")),
            ),
            Some(id) => seen.push(id),
        }
        if let Some(age) = individual.and_then(|ind| ind.age)
            && age > 150
        {
            problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Age {age} is not a person's age (0 to 150)."))
                    .at(format!("{at}/Individual/@Age")),
            );
        }
        if let Some(age) = p.category.as_ref().and_then(|c| c.age)
            && age > 150
        {
            problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Age {age} is not a person's age (0 to 150)."))
                    .at(format!("{at}/Category/@Age")),
            );
        }
    }
}

/// The participants of a book request, priced by their categories in `service`.
fn priced_participants(info: &BookingInfo, service: &Service, problems: &mut Vec<Problem>) -> Vec<Participant> {
    let mut participants = Vec::new();
    for (i, p) in info.participant_info.iter().enumerate() {
        let category = p
            .category
            .as_ref()
            .and_then(|c| c.qualifier_info_attr.as_ref().or(c.qualifier_info.as_ref()))
            .map(|q| q.as_str().trim().to_string())
            .unwrap_or_default();
        let ind = p.individual.clone().unwrap_or_default();
        // The age from Individual, else OpenTravel's Category@Age.
        let age = ind.age.or(p.category.as_ref().and_then(|c| c.age));
        match service.price(&category) {
            Some(amount) => participants.push(Participant {
                participant_id: ind.participant_id.and_then(|id| i64::try_from(id).ok()).unwrap_or_default(),
                category,
                age: age.and_then(|a| i64::try_from(a).ok()),
                // A card number typed into a name keeps only its last four digits.
                name_prefix: ind.name_prefix.map(cards::owned_without_card_numbers),
                given_name: ind.given_name.map(cards::owned_without_card_numbers),
                surname: ind.surname.map(cards::owned_without_card_numbers),
                amount,
            }),
            None => problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("Participant category {category:?} is not offered by service {}.", service.code),
                )
                .at(format!("{INFO}/ParticipantInfo[{}]/Category/@QualifierInfo", i + 1)),
            ),
        }
    }
    participants
}

/// The span a booking's `Schedule` gives: Start and End as written (their wall-clock date and
/// time; a date alone is the start of that date for Start, its end for End), End absent: the
/// end of Start's date. A value that is no calendar date or time is a problem at its attribute.
fn schedule(info: &BookingInfo, problems: &mut Vec<Problem>) -> Option<(NaiveDateTime, NaiveDateTime)> {
    let read = |value: &str, attribute: &str, end_of_day: bool, problems: &mut Vec<Problem>| {
        let (date, time) = value.split_once('T').unwrap_or((value, ""));
        // The wall-clock time: the fraction and zone (checked by the decoder's pattern) are dropped.
        let time = time.get(..8).unwrap_or(time);
        let parsed = NaiveDate::parse_from_str(date, "%Y-%m-%d").ok().and_then(|d| match time {
            "" if end_of_day => d.and_hms_opt(23, 59, 59),
            "" => d.and_hms_opt(0, 0, 0),
            t => NaiveTime::parse_from_str(t, "%H:%M:%S").ok().map(|t| d.and_time(t)),
        });
        if parsed.is_none() {
            problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("{attribute} {value:?} is not a calendar date (and time)."),
                )
                .at(format!("{INFO}/Schedule/@{attribute}")),
            );
        }
        parsed
    };
    let start = read(&info.schedule.start, "Start", false, problems);
    let end = match &info.schedule.end {
        Some(end) => read(end, "End", true, problems),
        None => start.and_then(|s| s.date().and_hms_opt(23, 59, 59)),
    };
    start.zip(end)
}

/// The pickup of a transfer service (at one of the activity's pickup hotels, on the booking's
/// date, not after the start), and that hotel; an advisory when a service without transfer was
/// given one.
#[allow(clippy::too_many_arguments)]
fn pickup_of<'c>(
    info: &BookingInfo,
    activity: &'c Activity,
    service: &Service,
    session: Session,
    date: NaiveDate,
    problems: &mut Vec<Problem>,
    advisories: &mut Vec<Problem>,
) -> (Option<Pickup>, Option<&'c NearbyHotel>) {
    let mut pickup = None;
    let mut hotel = None;
    match (&info.pickup_dropoff, service.transfer) {
        (None, true) => problems.push(
            Problem::required(format!("Pickup data is required for the transfer service {:?}.", service.code))
                .at(format!("{INFO}/PickupDropoff")),
        ),
        (Some(pd), true) => {
            let location = pd.location_name.as_deref().map(str::trim).unwrap_or_default();
            if location.is_empty() {
                problems.push(
                    Problem::required(
                        "PickupDropoff@LocationName (the hotel's code or name) is required for a transfer.",
                    )
                    .at(format!("{INFO}/PickupDropoff/@LocationName")),
                );
            } else {
                hotel = activity.pickup_hotel(location);
                if hotel.is_none() && activity.pickup_hotels().next().is_some() {
                    let known: Vec<&str> = activity.pickup_hotels().map(|h| h.code.as_str()).collect();
                    problems.push(
                        Problem::biz(
                            ErrorCode::InvalidValue,
                            format!("No pickup at {location:?}; pickups are at {}.", known.join(", ")),
                        )
                        .at(format!("{INFO}/PickupDropoff/@LocationName")),
                    );
                }
            }
            let default_time = service.span(session, hotel).start;
            let date_time = match pd.date_time {
                Some(dt) if dt.local.date() != date => {
                    problems.push(
                        Problem::biz(
                            ErrorCode::InvalidValue,
                            format!("The pickup ({dt}) is not on the booking date {date}."),
                        )
                        .at(format!("{INFO}/PickupDropoff/@DateTime")),
                    );
                    default_time
                }
                Some(dt) if dt.local > session.start => {
                    problems.push(
                        Problem::biz(
                            ErrorCode::InvalidValue,
                            format!("The pickup ({dt}) is after the start of the activity ({}).", session.start),
                        )
                        .at(format!("{INFO}/PickupDropoff/@DateTime")),
                    );
                    default_time
                }
                Some(dt) => dt.local,
                None => default_time,
            };
            // The hotel's code, however the request named it.
            let location_name = hotel.map_or(location, |h| h.code.as_str()).to_string();
            pickup = Some(Pickup { date_time, location_name, pickup_ind: pd.pickup_ind.unwrap_or(true) });
        }
        (Some(_), false) => advisories.push(
            Problem::new(
                ErrorWarningType::Advisory,
                ErrorCode::InvalidValue,
                format!("Service {:?} has no transfer; PickupDropoff was ignored.", service.code),
            )
            .at(format!("{INFO}/PickupDropoff")),
        ),
        (None, false) => {}
    }
    (pickup, hotel)
}
