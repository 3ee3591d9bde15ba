//! `/activitysearch`: catalogue discovery. The activities the locations select that run on at
//! least one date of the range (today on), with their first and last date in the range, names
//! and descriptions in the requested language, location and the cheapest adult price.

use chrono::NaiveDate;
use ota_messages::common::{ErrorCode, ErrorWarningType, TourActivityBasicInfo};
use ota_messages::runtime::{self as rt, Response};
use ota_messages::tour_activity_search::{
    OtaTourActivitySearchRq, OtaTourActivitySearchRs, SearchActivityDescription, SearchActivityPricing, SearchActivitySchedule,
    SearchTourActivityInfo,
};
use rusqlite::Connection;
use rust_decimal::Decimal;

use super::catalog::{self, LangPrefs};
use crate::db::DbError;
use crate::errors::{Problem, errors, warnings};
use crate::ops::Ctx;

const ROOT: &str = "/OTA_TourActivitySearchRQ";

/// The participant category whose price is the indicative `MinPrice` (adults).
const ADULT: &str = "10";

/// `/activitysearch`: the activities in the area and period asked for (see the module docs).
pub async fn search(ctx: &Ctx, rq: &OtaTourActivitySearchRq) -> OtaTourActivitySearchRs {
    let rq = rq.clone();
    let today = ctx.now.date_naive();
    match ctx.db.call(move |conn| run(conn, &rq, today)).await {
        Ok(rs) => rs,
        Err(e) => crate::ops::system_error(ctx, "activity search", &e),
    }
}

fn run(conn: &mut Connection, rq: &OtaTourActivitySearchRq, today: NaiveDate) -> Result<OtaTourActivitySearchRs, DbError> {
    let criteria = &rq.search_criteria;
    let (start, end) = (criteria.date_time_pref.start.0, criteria.date_time_pref.end.0);
    if let Err(p) = super::check_range(start, end, &format!("{ROOT}/SearchCriteria/DateTimePref")) {
        return Ok(OtaTourActivitySearchRs::from_errors(errors([p])));
    }
    let selection = match super::resolve_locations(conn, &criteria.location_pref, &format!("{ROOT}/SearchCriteria/LocationPref"))? {
        Ok(s) => s,
        Err(problems) => return Ok(OtaTourActivitySearchRs::from_errors(errors(problems))),
    };
    let prefs = LangPrefs::new(super::primary_lang(rq.primary_lang_id.as_ref()), rq.alt_lang_id.as_deref());
    let limit = rq.max_responses.filter(|n| *n > 0).and_then(|n| usize::try_from(n).ok()).unwrap_or(usize::MAX);
    let from = start.max(today);

    let mut infos = Vec::new();
    let mut served_in = Vec::new();
    let mut fallbacks = Vec::new();
    for id in &selection.ids {
        if infos.len() >= limit {
            break;
        }
        let Some(a) = catalog::load_activity(conn, id)? else { continue };
        let mut first: Option<NaiveDate> = None;
        let mut last: Option<NaiveDate> = None;
        // The cheapest adult price among the products that run in the range.
        let mut cheapest: Option<(Decimal, &str, &str, &str)> = None;
        for p in &a.products {
            let mut dates = p.dates(from, end);
            let Some(d1) = dates.next() else { continue };
            let dn = dates.last().unwrap_or(d1);
            first = Some(first.map_or(d1, |f| f.min(d1)));
            last = Some(last.map_or(dn, |l| l.max(dn)));
            for s in &p.services {
                if let Some(price) = s.price(ADULT) {
                    if cheapest.is_none_or(|(best, ..)| price < best) {
                        cheapest = Some((price, s.currency.as_str(), p.code.as_str(), s.code.as_str()));
                    }
                }
            }
        }
        let (Some(first), Some(last)) = (first, last) else { continue };
        let text = prefs.pick(&a.texts);
        if let Some((lang, _)) = text {
            if !prefs.is_requested(lang) {
                fallbacks.push(format!("{} ({lang})", a.id));
            }
            served_in.push(lang.to_string());
        }
        let (product_code, service_code) = match cheapest {
            Some((_, _, p, s)) => (Some(p.to_string()), Some(s.to_string())),
            None => (None, None),
        };
        let description = text.and_then(|(_, t)| {
            (t.short_description.is_some() || t.long_description.is_some())
                .then(|| SearchActivityDescription { short_description: t.short_description.clone(), long_description: t.long_description.clone() })
        });
        infos.push(SearchTourActivityInfo {
            basic_info: TourActivityBasicInfo {
                tour_activity_id: a.id.clone(),
                supplier_product_code: product_code,
                supplier_service_code: service_code,
                name: text.map(|(_, t)| t.name.clone()),
                short_name: text.and_then(|(_, t)| t.short_name.clone()),
            },
            schedule: Some(SearchActivitySchedule { summary: ota_messages::common::DateSpan { start: rt::Date(first), end: rt::Date(last) } }),
            category_and_type: super::category_and_type(&a),
            description,
            location: Some(super::tour_location(&a)),
            pricing: cheapest.map(|(price, currency, ..)| SearchActivityPricing { min_price: rt::Decimal(price), currency_code: currency.to_string() }),
        });
    }

    let mut problems = Vec::new();
    if infos.is_empty() {
        problems.push(
            Problem::new(
                ErrorWarningType::Advisory,
                ErrorCode::NoAvailability,
                format!("No activity found for these locations between {start} and {end}."),
            )
            .at(format!("{ROOT}/SearchCriteria")),
        );
    }
    if !fallbacks.is_empty() {
        problems.push(
            Problem::new(
                ErrorWarningType::Advisory,
                ErrorCode::LanguageCodeInvalid,
                format!(
                    "Texts are not available in {:?} for {}; they are returned in the language shown.",
                    prefs.primary().unwrap_or_default(),
                    fallbacks.join(", ")
                ),
            )
            .at(format!("{ROOT}/@PrimaryLangID")),
        );
    }
    let mut rs = OtaTourActivitySearchRs::success();
    if !problems.is_empty() {
        rs = rs.with_warnings(warnings(problems));
    }
    rs.primary_lang_id = payload_language(&served_in);
    rs.tour_activity_info = infos;
    Ok(rs)
}

/// The language most texts of the payload are in.
fn payload_language(served: &[String]) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for l in served {
        match counts.iter_mut().find(|(x, _)| x == l) {
            Some((_, n)) => *n += 1,
            None => counts.push((l, 1)),
        }
    }
    // The first of the most frequent (max_by_key keeps the last on ties, so go in reverse).
    counts.into_iter().rev().max_by_key(|(_, n)| *n).map(|(l, _)| l.to_string())
}
