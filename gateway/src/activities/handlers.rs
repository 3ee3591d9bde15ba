//! The four activity operations, thin: check the request, ask the rules, read or write through
//! the repo, map to the answer.

use super::Area;
use super::booking::Booking;
use super::catalogue::Activity;
use super::mapping::{self, TextChooser};
use super::reader;
use super::repo::{self, bookings::CommitError};
use super::rules::{self, ADULT, AvailabilityMode};
use crate::errors::{Problem, warnings};
use crate::shared::action::{Action, Asked};
use crate::shared::booking::{Committed, Kind, RESERVED};
use crate::shared::context::{Ctx, OpError};
use crate::shared::events::{self, EventKind};
use crate::shared::history::{self, By, Change, State};
use crate::shared::lang::Languages;
use crate::shared::policy_repo::{self, ACTIVITY_RULES};
use crate::store::Conn;
use ota_messages::common::{ErrorCode, ErrorWarningType};
use ota_messages::product_descriptive_info::{
    OtaProductDescriptiveInfoRq, OtaProductDescriptiveInfoRs, TourActivityDescriptiveResult,
};
use ota_messages::tour_activity_avail::{OtaTourActivityAvailRq, OtaTourActivityAvailRs};
use ota_messages::tour_activity_book::{OtaTourActivityBookRq, OtaTourActivityBookRs};
use ota_messages::tour_activity_search::{OtaTourActivitySearchRq, OtaTourActivitySearchRs};

/// `/activitysearch`: the activities the locations select that run on a date of the range
/// (from today on), with their first and last date, texts, location and cheapest adult price.
/// The prices of one answer are in one currency (`ProcessingInformation@PricingCurrency`): that
/// of the first activity priced; an activity priced only in other currencies has no `Pricing`.
pub async fn search(cx: &Ctx, area: &Area, rq: &OtaTourActivitySearchRq) -> Result<OtaTourActivitySearchRs, OpError> {
    const ROOT: &str = "/OTA_TourActivitySearchRQ";
    let criteria = &rq.search_criteria;
    let (start, end) = (criteria.date_time_pref.start.0, criteria.date_time_pref.end.0);
    rules::check_range(start, end, &format!("{ROOT}/SearchCriteria/DateTimePref"))?;
    let catalogue = &area.catalogue;
    let tag = format!("{ROOT}/SearchCriteria");
    let selection = reader::activities_asked(
        catalogue,
        criteria.basic_info.as_ref(),
        &criteria.location_pref,
        &tag,
        &format!("{tag}/LocationPref"),
    )?;
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let limit = max_responses(rq.max_responses);
    let from = start.max(earliest_today(cx));

    let mut infos = Vec::new();
    let mut served_in = Vec::new();
    let mut fallbacks = Vec::new();
    let mut currency: Option<&str> = None;
    let mut prices = Vec::new();
    for a in selection.ids.iter().filter_map(|id| catalogue.activity(id)) {
        if infos.len() >= limit {
            break;
        }
        let Some((first, last, cheapest)) = runs_between(a, from, end, a.now_here(cx.now), currency) else { continue };
        if let Some((price, in_currency, ..)) = cheapest {
            currency.get_or_insert(in_currency);
            prices.push(price);
        }
        let text = languages.pick(&a.texts);
        if let Some((lang, _)) = text {
            if !languages.is_requested(lang) {
                fallbacks.push(format!("{} ({lang})", a.id));
            }
            served_in.push(lang.to_string());
        }
        infos.push(mapping::search_info(a, first, last, cheapest, text.map(|(_, t)| t)));
    }

    let mut notes = Vec::new();
    if infos.is_empty() {
        notes.push(
            Problem::new(
                ErrorWarningType::Advisory,
                ErrorCode::NoAvailability,
                format!("No activity found for these locations between {start} and {end}."),
            )
            .at(format!("{ROOT}/SearchCriteria")),
        );
    }
    if !fallbacks.is_empty() {
        notes.push(
            Problem::new(
                ErrorWarningType::Advisory,
                ErrorCode::LanguageCodeInvalid,
                format!(
                    "Texts are not available in {:?} for {}; they are returned in the language shown.",
                    languages.requested().unwrap_or_default(),
                    fallbacks.join(", ")
                ),
            )
            .at(format!("{ROOT}/@PrimaryLangID")),
        );
    }
    let mut rs = OtaTourActivitySearchRs::success();
    if !notes.is_empty() {
        rs = rs.with_warnings(warnings(notes));
    }
    rs.primary_lang_id = most_frequent(&served_in);
    rs.processing_information = currency.map(|c| mapping::search_processing_information(c, &prices));
    rs.tour_activity_info = infos;
    Ok(rs)
}

/// The first and last date an activity runs in `from..=to` (a session that began before `now`
/// does not count, nor a date more than [`rules::MAX_DAYS_AHEAD`] days ahead), and the
/// cheapest adult price of the products that run then (in `currency`, when given); `None` when
/// it does not run.
fn runs_between<'a>(
    a: &'a Activity,
    from: chrono::NaiveDate,
    to: chrono::NaiveDate,
    now: chrono::NaiveDateTime,
    currency: Option<&str>,
) -> Option<(chrono::NaiveDate, chrono::NaiveDate, Option<mapping::Cheapest<'a>>)> {
    let mut first: Option<chrono::NaiveDate> = None;
    let mut last: Option<chrono::NaiveDate> = None;
    let mut cheapest: Option<mapping::Cheapest<'_>> = None;
    for p in &a.products {
        let mut dates = p
            .dates(from, to.min(rules::last_bookable(now.date())))
            .filter(|d| p.session(*d).is_some_and(|s| s.start > now));
        let Some(d1) = dates.next() else { continue };
        let dn = dates.last().unwrap_or(d1);
        first = Some(first.map_or(d1, |f| f.min(d1)));
        last = Some(last.map_or(dn, |l| l.max(dn)));
        for s in &p.services {
            if let Some(price) = s.price(ADULT)
                && currency.is_none_or(|c| c == s.currency)
                && cheapest.is_none_or(|(best, ..)| price < best)
            {
                cheapest = Some((price, s.currency.as_str(), p.code.as_str(), s.code.as_str()));
            }
        }
    }
    Some((first?, last?, cheapest))
}

/// `/activityavailability`: the services of the selected activities that can take the whole
/// party on a date of the period, priced for the party. `Instance="MF002"`: one "price from"
/// per product and service; otherwise every date with the group price and the pickup.
pub async fn availability(
    cx: &Ctx,
    area: &Area,
    rq: &OtaTourActivityAvailRq,
) -> Result<OtaTourActivityAvailRs, OpError> {
    const ROOT: &str = "/OTA_TourActivityAvailRQ/TourActivity";
    let query = reader::availability_query(rq);
    let catalogue = &area.catalogue;
    let ta = &rq.tour_activity;
    let selection =
        reader::activities_asked(catalogue, ta.basic_info.as_ref(), &ta.location, ROOT, &format!("{ROOT}/Location"));
    let (query, selection) = match (query, selection) {
        (Ok(q), Ok(s)) => (q, s),
        (q, s) => return Err(OpError::Rejected(q.err().into_iter().chain(s.err()).flatten().collect())),
    };
    let activities: Vec<&Activity> = selection.ids.iter().filter_map(|id| catalogue.activity(id)).collect();
    rules::check_against(&query, &activities)?;
    let mode = if cx.requestor.instance.as_deref() == Some("MF002") {
        AvailabilityMode::PriceFrom
    } else {
        AvailabilityMode::AllPrices
    };
    let from = query.start.max(earliest_today(cx));
    let end = query.end;
    let ids: Vec<String> = activities.iter().map(|a| a.id.clone()).collect();
    let booked = area
        .kept
        .places_booked
        .get_or_read(
            (ids.clone(), from, end),
            cx.peek(move |c| Box::pin(async move { Ok(repo::places::places_booked(c, &ids, from, end).await?) })),
        )
        .await?;
    let offers = rules::offers(
        &activities,
        &query,
        selection.hotel.as_deref(),
        cx.now,
        mode,
        max_responses(rq.max_responses),
        |a, p, s, d| s.capacity(d) - booked.on(&a.id, &p.code, &s.code, d),
    );
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let mut rs = OtaTourActivityAvailRs::success();
    if offers.is_empty() {
        rs = rs.with_warnings(warnings([Problem::new(
            ErrorWarningType::Advisory,
            ErrorCode::NoAvailability,
            format!(
                "No activity service can take {} participant(s) between {} and {} within the criteria.",
                query.size, query.start, query.end
            ),
        )
        .at(ROOT)]));
    }
    rs.primary_lang_id = offers.first().and_then(|o| languages.pick(&o.activity.texts)).map(|(l, _)| l.to_string());
    rs.tour_activity_info = mapping::availability_infos(&offers, mode, &languages);
    Ok(rs)
}

/// `/activitynbc`: the static content of one activity, in the requested language (or every
/// language for `PrimaryLangID="*"`); a warning says when the primary language was missing.
pub async fn descriptive_info(
    area: &Area,
    rq: &OtaProductDescriptiveInfoRq,
) -> Result<OtaProductDescriptiveInfoRs, OpError> {
    const ROOT: &str = "/OTA_ProductDescriptiveInfoRQ";
    let tag = format!("{ROOT}/ProductDescriptiveInfos/TourActivityDescriptiveInfo/@TourActivityID");
    let id = rq.product_descriptive_infos.tour_activity_descriptive_info.tour_activity_id.trim();
    if id.is_empty() {
        return Err(Problem::required("TourActivityID is empty.").at(tag).into());
    }
    let catalogue = &area.catalogue;
    let a = catalogue
        .activity(id)
        .ok_or_else(|| Problem::biz(ErrorCode::InvalidValue, format!("Unknown tour activity {id:?}.")).at(&tag))?;
    let languages = Languages::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let mut chooser = TextChooser::new(&languages);
    let contents = mapping::descriptive_contents(a, &catalogue.category_names, &catalogue.type_names, &mut chooser);
    let mut notes = Vec::new();
    if !chooser.fallbacks.is_empty() {
        notes.push(
            Problem::new(
                ErrorWarningType::Advisory,
                ErrorCode::LanguageCodeInvalid,
                format!(
                    "Texts of {} are not available in {:?}; they are returned in {}.",
                    a.id,
                    languages.requested().unwrap_or_default(),
                    chooser.fallbacks.join(", ")
                ),
            )
            .at(format!("{ROOT}/@PrimaryLangID")),
        );
    }
    let rs = OtaProductDescriptiveInfoRs::success(TourActivityDescriptiveResult {
        tour_activity_descriptive_content: contents,
    });
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// `/activitybook`: Quote prices and checks the places and stores nothing; Commit books once
/// per (requestor, Client reference), never beyond the places (see the module docs of
/// [`super`]); no `ResStatus` is what the requestor's dialect says ([`Action::of_request`]).
pub async fn book(cx: &Ctx, area: &Area, rq: &OtaTourActivityBookRq) -> Result<OtaTourActivityBookRs, OpError> {
    let (action, no_status) = Action::of_request(
        rq.res_status.as_ref(),
        cx.requestor.dialect,
        "/OTA_TourActivityBookRQ/@ResStatus",
        Asked::Booking,
    )?;
    let with_breakdown = cx.requestor.wants_price_breakdown();
    let (booking, mut notes) = reader::book::price_booking(&area.catalogue, rq, action.commits(), cx.now)?;
    notes.extend(no_status);
    let size = booking.participants.len();
    let capacity = area
        .catalogue
        .activity(&booking.activity_id)
        .and_then(|a| a.product(&booking.product_code))
        .and_then(|p| p.service(&booking.service_code))
        .map_or(0, |s| s.capacity(booking.service_date));
    let answer = match action {
        Action::Quote => {
            let key = booking.service_key();
            let date = booking.service_date;
            let booked = cx
                .peek(move |c| Box::pin(async move { Ok(repo::places::places_booked_on(c, &key, date).await?) }))
                .await?;
            let left = (capacity - booked).max(0);
            if left < size as i64 {
                return Err(rules::no_availability(&booking.service_code, booking.service_date, left, size).into());
            }
            booking
        }
        Action::Commit => {
            let requestor = cx.requestor.id.clone();
            let now = cx.now;
            let asked = booking.clone();
            let committed = cx
                .write(move |c| {
                    Box::pin(async move {
                        commit(c, &requestor, &asked, now).await.map_err(|e| match e {
                            CommitError::Full { left } => {
                                rules::no_availability(&asked.service_code, asked.service_date, left, size).into()
                            }
                            CommitError::ServiceGone => rules::service_gone(&asked).into(),
                            CommitError::ReferenceTaken => rules::reference_taken(&asked).into(),
                            CommitError::Store(e) => OpError::Store(e),
                        })
                    })
                })
                .await?;
            match committed {
                Committed::New(stored) => {
                    crate::metrics::booking_committed("activity");
                    stored
                }
                Committed::Existing(stored) => {
                    if !rules::same_as_asked(&stored, &booking) {
                        notes.push(rules::already_booked(&stored));
                    }
                    stored
                }
            }
        }
    };
    let rs = OtaTourActivityBookRs::success(mapping::reservation_details(&answer, with_breakdown));
    Ok(if notes.is_empty() { rs } else { rs.with_warnings(warnings(notes)) })
}

/// Books, in the caller's write transaction: the booking already made with this (requestor,
/// Client reference), or else `b` stored under a new Internal reference with its places taken
/// (never beyond those offered) and its policy's penalties fixed. On an error the transaction
/// is rolled back.
async fn commit(
    c: &mut Conn<'_>,
    requestor: &str,
    b: &Booking,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Committed<Booking>, CommitError> {
    let client_ref = b.client_reference.clone().unwrap_or_default();
    if let Some(existing) = repo::bookings::claim(c, requestor, &client_ref).await? {
        return Ok(Committed::Existing(existing));
    }
    let key = b.service_key();
    let capacity = repo::places::capacity_on(c, &key, b.service_date).await?.ok_or(CommitError::ServiceGone)?;
    let reference = repo::bookings::free_reference(c).await?;
    let id = repo::bookings::insert(c, requestor, b, &reference, now).await?;
    if !repo::places::take(c, &key, b.service_date, b.participants.len() as i64, capacity).await? {
        let booked = repo::places::places_booked_on(c, &key, b.service_date).await?;
        return Err(CommitError::Full { left: (capacity - booked).max(0) });
    }
    // The policy in force now is fixed into the booking: a later change of the content does
    // not change what was sold.
    let policy = policy_repo::policy_of(c, ACTIVITY_RULES, &key.activity_id).await?;
    repo::bookings::insert_penalties(c, id, &policy.penalties(b.start)).await?;
    let state = State { status: RESERVED, total: b.total, currency: &b.currency };
    history::record(c, Kind::Activity, &reference, Change::Created, By::Partner(requestor), now, state).await?;
    if let Some(pk) = &b.pickup {
        // The supplier of the pickup hotel is told, in the same transaction.
        events::record(c, Kind::Activity, &reference, &pk.location_name, EventKind::New, None, now.timestamp_millis())
            .await?;
    }
    Ok(Committed::New(Booking { reference: Some(reference), ..b.clone() }))
}

/// The earliest date that is today somewhere (UTC−12): no activity's own today is before it, so
/// nothing bookable is left out (each activity's dates are then cut at its own now).
fn earliest_today(cx: &Ctx) -> chrono::NaiveDate {
    (cx.now - chrono::Duration::hours(12)).date_naive()
}

/// `MaxResponses` as a count (none or 0: no limit).
fn max_responses(n: Option<u64>) -> usize {
    n.filter(|n| *n > 0).and_then(|n| usize::try_from(n).ok()).unwrap_or(usize::MAX)
}

/// The language most texts of the payload are in (the first of them on ties).
fn most_frequent(served: &[String]) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for l in served {
        match counts.iter_mut().find(|(x, _)| x == l) {
            Some((_, n)) => *n += 1,
            None => counts.push((l, 1)),
        }
    }
    counts.into_iter().rev().max_by_key(|(_, n)| *n).map(|(l, _)| l.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_payload_language_is_the_most_frequent() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(most_frequent(&l(&["es", "en", "es"])).as_deref(), Some("es"));
        assert_eq!(most_frequent(&l(&["en", "es"])).as_deref(), Some("en"));
        assert_eq!(most_frequent(&[]), None);
        assert_eq!(max_responses(Some(0)), usize::MAX);
    }
}
