//! `/activityavailability`: the services of the selected activities that can take the whole
//! party on a date of the period, priced for the party.
//!
//! - `Instance="MF002"`: one entry per product and service with the cheapest per-person price
//!   of the party's categories (`MinCharge`, `PerPerson`) and the first date it is available.
//! - Anything else (`MF001`, none): one entry per date, product and service with the price of
//!   the whole party (`Amount`, `PerGroup`) and, for transfers from a known hotel, the pickup
//!   and drop-off.
//!
//! A service is offered on a date when its product runs then and the places left are at least
//! the party's size. A transfer is offered only when it picks up at the Source hotel (or no
//! hotel was given). `MaximumPrice` drops offers above it: with `Method` `PerPerson` every
//! participant's price must be within it, otherwise the party's total.

use chrono::NaiveDate;
use ota_messages::common::{ErrorCode, ErrorWarningType, PricingMethod, TourActivityBasicInfo};
use ota_messages::runtime::{self as rt, Response};
use ota_messages::tour_activity_avail::{
    AvailActivityDescription, AvailActivityPricing, AvailActivitySchedule, AvailPickupDropoff, AvailPricingSummary, AvailScheduleSummary,
    AvailTourActivityInfo, OtaTourActivityAvailRq, OtaTourActivityAvailRs,
};
use rusqlite::Connection;
use rust_decimal::Decimal;

use super::catalog::{self, Activity, Hotel, LangPrefs, Product, Service, Session};
use crate::db::DbError;
use crate::errors::{Problem, errors, warnings};
use crate::ops::Ctx;

const ROOT: &str = "/OTA_TourActivityAvailRQ/TourActivity";

/// The most participants of one request.
pub(crate) const MAX_PARTICIPANTS: u64 = 999;

/// The pricing mode, from the Type 22 `Instance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `MF001` and default: every date, group prices, pickups.
    AllPrices,
    /// `MF002`: one "price from" per service.
    PriceFrom,
}

/// How `MaximumPrice` applies.
#[derive(Debug, Clone)]
struct Limit {
    per_person: bool,
    amount: Decimal,
    currency: Option<String>,
}

/// `/activityavailability` (see the module docs).
pub async fn availability(ctx: &Ctx, rq: &OtaTourActivityAvailRq) -> OtaTourActivityAvailRs {
    let rq = rq.clone();
    let today = ctx.now.date_naive();
    let mode = if ctx.requestor.instance.as_deref() == Some("MF002") { Mode::PriceFrom } else { Mode::AllPrices };
    match ctx.db.call(move |conn| run(conn, &rq, today, mode)).await {
        Ok(rs) => rs,
        Err(e) => crate::ops::system_error(ctx, "activity availability", &e),
    }
}

fn fail(problems: Vec<Problem>) -> Result<OtaTourActivityAvailRs, DbError> {
    Ok(OtaTourActivityAvailRs::from_errors(errors(problems)))
}

fn run(conn: &mut Connection, rq: &OtaTourActivityAvailRq, today: NaiveDate, mode: Mode) -> Result<OtaTourActivityAvailRs, DbError> {
    let ta = &rq.tour_activity;
    let (start, end) = (ta.schedule.start_period.0, ta.schedule.end_period.0);
    if let Err(p) = super::check_range(start, end, &format!("{ROOT}/Schedule")) {
        return fail(vec![p]);
    }

    // The party: (category, quantity, position of its first ParticipantCount).
    let mut problems = Vec::new();
    let mut party: Vec<(String, u64, usize)> = Vec::new();
    if ta.participant_count.is_empty() {
        problems.push(Problem::required("At least one ParticipantCount is required.").at(format!("{ROOT}/ParticipantCount")));
    }
    for (i, pc) in ta.participant_count.iter().enumerate() {
        let category = pc.qualifier_info.as_str().trim().to_string();
        if pc.quantity > MAX_PARTICIPANTS {
            problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Quantity {} is above the limit of {MAX_PARTICIPANTS}.", pc.quantity))
                    .at(format!("{ROOT}/ParticipantCount[{}]/@Quantity", i + 1)),
            );
            continue;
        }
        match party.iter_mut().find(|(c, ..)| *c == category) {
            Some((_, q, _)) => *q += pc.quantity,
            None => party.push((category, pc.quantity, i + 1)),
        }
    }
    let size: u64 = party.iter().map(|(_, q, _)| q).sum();
    if problems.is_empty() && !(1..=MAX_PARTICIPANTS).contains(&size) {
        problems.push(
            Problem::biz(ErrorCode::InvalidValue, format!("The party has {size} participants; between 1 and {MAX_PARTICIPANTS} are allowed."))
                .at(format!("{ROOT}/ParticipantCount")),
        );
    }
    party.retain(|(_, q, _)| *q > 0);

    // The price limit.
    let mut limit = None;
    if let Some(gp) = ta.multimodal_offer.as_ref().map(|m| &m.requested_offer.guideline_pricing) {
        let gp_tag = format!("{ROOT}/MultimodalOffer/RequestedOffer/GuidelinePricing");
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
                limit = Some(Limit { per_person, amount: max.amount.0, currency: max.currency_code.clone() });
            }
        }
    }

    let selection = match super::resolve_locations(conn, &ta.location, &format!("{ROOT}/Location"))? {
        Ok(s) => s,
        Err(more) => {
            problems.extend(more);
            return fail(problems);
        }
    };
    if !problems.is_empty() {
        return fail(problems);
    }
    let mut activities = Vec::new();
    for id in &selection.ids {
        if let Some(a) = catalog::load_activity(conn, id)? {
            activities.push(a);
        }
    }
    let services = || activities.iter().flat_map(|a| a.products.iter().flat_map(|p| p.services.iter()));

    // Every category asked for must be priced by some selected service.
    for (category, _, at) in &party {
        if services().next().is_some() && !services().any(|s| s.price(category).is_some()) {
            problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Participant category {category:?} is not offered by the selected activities."))
                    .at(format!("{ROOT}/ParticipantCount[{at}]/QualifierInfo")),
            );
        }
    }
    if let Some(currency) = limit.as_ref().and_then(|l| l.currency.as_deref()) {
        if let Some(other) = services().map(|s| s.currency.as_str()).find(|c| *c != currency) {
            problems.push(
                Problem::biz(ErrorCode::InvalidCurrencyCode, format!("MaximumPrice is in {currency}; the prices are in {other}."))
                    .at(format!("{ROOT}/MultimodalOffer/RequestedOffer/GuidelinePricing/MaximumPrice/@CurrencyCode")),
            );
        }
    }
    if !problems.is_empty() {
        return fail(problems);
    }

    let prefs = LangPrefs::new(super::primary_lang(rq.primary_lang_id.as_ref()), rq.alt_lang_id.as_deref());
    let from = start.max(today);
    let max = rq.max_responses.filter(|n| *n > 0).and_then(|n| usize::try_from(n).ok()).unwrap_or(usize::MAX);
    let size = i64::try_from(size).unwrap_or(i64::MAX);
    let mut infos = Vec::new();
    let mut served_in = Vec::new();
    'all: for a in &activities {
        let hotel = selection.hotel.as_deref().and_then(|h| a.hotel(h));
        for p in &a.products {
            for s in &p.services {
                if s.transfer && selection.hotel.is_some() && !hotel.is_some_and(|h| h.pickup) {
                    continue; // no pickup at the customer's hotel
                }
                let Some(price) = price_party(s, &party) else { continue };
                if let Some(l) = &limit {
                    let compared = if l.per_person { price.highest_unit } else { price.total };
                    if compared > l.amount {
                        continue;
                    }
                }
                let allotment = catalog::allotment(conn, s.id, from, end)?;
                let mut dates = p.dates(from, end).filter(|d| allotment.get(d).copied().unwrap_or(s.capacity) >= size);
                match mode {
                    Mode::AllPrices => {
                        for d in dates {
                            let Some(session) = p.session(d) else { continue };
                            if infos.len() >= max {
                                break 'all;
                            }
                            served_in.extend(prefs.pick(&a.texts).map(|(l, _)| l.to_string()));
                            let pricing = AvailPricingSummary {
                                amount: Some(rt::Decimal(price.total)),
                                min_charge: None,
                                currency_code: s.currency.clone(),
                                pricing_type: PricingMethod::PerGroup,
                            };
                            infos.push(info(a, p, s, session, hotel, &prefs, pricing));
                        }
                    }
                    Mode::PriceFrom => {
                        let Some(session) = dates.next().and_then(|d| p.session(d)) else { continue };
                        if infos.len() >= max {
                            break 'all;
                        }
                        served_in.extend(prefs.pick(&a.texts).map(|(l, _)| l.to_string()));
                        let pricing = AvailPricingSummary {
                            amount: None,
                            min_charge: Some(rt::Decimal(price.lowest_unit)),
                            currency_code: s.currency.clone(),
                            pricing_type: PricingMethod::PerPerson,
                        };
                        let mut entry = info(a, p, s, session, hotel, &prefs, pricing);
                        entry.pickup_dropoff.clear();
                        infos.push(entry);
                    }
                }
            }
        }
    }

    let mut rs = OtaTourActivityAvailRs::success();
    if infos.is_empty() {
        rs = rs.with_warnings(warnings([Problem::new(
            ErrorWarningType::Advisory,
            ErrorCode::NoAvailability,
            format!("No activity service can take {size} participant(s) between {start} and {end} within the criteria."),
        )
        .at(ROOT)]));
    }
    rs.primary_lang_id = served_in.first().cloned();
    rs.tour_activity_info = infos;
    Ok(rs)
}

/// The price of a party for one service.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PartyPrice {
    pub total: Decimal,
    pub highest_unit: Decimal,
    pub lowest_unit: Decimal,
}

/// Prices the party (category, quantity) with a service; `None` when a category has no price.
fn price_party(s: &Service, party: &[(String, u64, usize)]) -> Option<PartyPrice> {
    let mut out: Option<PartyPrice> = None;
    for (category, quantity, _) in party {
        let unit = s.price(category)?;
        let amount = unit.checked_mul(Decimal::from(*quantity))?;
        out = Some(match out {
            None => PartyPrice { total: amount, highest_unit: unit, lowest_unit: unit },
            Some(p) => PartyPrice { total: p.total.checked_add(amount)?, highest_unit: p.highest_unit.max(unit), lowest_unit: p.lowest_unit.min(unit) },
        });
    }
    out
}

/// One `TourActivityInfo` for a service on a session.
fn info(
    a: &Activity,
    p: &Product,
    s: &Service,
    session: Session,
    hotel: Option<&Hotel>,
    prefs: &LangPrefs,
    pricing: AvailPricingSummary,
) -> AvailTourActivityInfo {
    let text = prefs.pick(&a.texts).map(|(_, t)| t);
    let span = s.span(session, hotel);
    let mut pickup_dropoff = Vec::new();
    if let Some(h) = hotel.filter(|h| s.transfer && h.pickup) {
        for (pickup_ind, at) in [(true, span.start), (false, span.end)] {
            pickup_dropoff.push(AvailPickupDropoff {
                pickup_ind,
                date_time: Some(rt::DateTime::local(at)),
                location_name: Some(h.name.clone().unwrap_or_else(|| h.code.clone())),
                code: Some(h.code.clone()),
                meeting_location: h.meeting_location.clone(),
            });
        }
    }
    AvailTourActivityInfo {
        basic_info: TourActivityBasicInfo {
            tour_activity_id: a.id.clone(),
            supplier_product_code: Some(p.code.clone()),
            supplier_service_code: Some(s.code.clone()),
            name: text.map(|t| t.name.clone()),
            short_name: text.and_then(|t| t.short_name.clone()),
        },
        schedule: Some(AvailActivitySchedule {
            summary: AvailScheduleSummary {
                start: rt::DateTime::local(span.start),
                end: rt::DateTime::local(span.end),
                duration: Some(catalog::iso_duration(span.end - span.start)),
            },
        }),
        category_and_type: super::category_and_type(a),
        description: text
            .and_then(|t| t.short_description.clone())
            .map(|short_description| AvailActivityDescription { short_description }),
        location: Some(super::tour_location(a)),
        pickup_dropoff,
        pricing: AvailActivityPricing { summary: pricing },
    }
}
