//! Request readers: the search and availability selections and the book request, read into
//! domain values (with the problems of a request that names nothing usable, each at its element
//! path); what they ask is then checked and priced by the [`rules`](super::rules).
//!
//! | file | reads |
//! |---|---|
//! | `mod.rs` | the search and availability selections ([`activities_asked`], [`availability_query`]) |
//! | [`book`] | the book request → the booking asked for, priced ([`book::price_booking`]) |

use ota_messages::common::{ActivityChoice, ActivityLocation, ErrorCode, PricingMethod, RegionCode};
use ota_messages::tour_activity_avail::OtaTourActivityAvailRq;

use super::catalogue::Catalogue;
use super::rules::*;
use crate::errors::Problem;

pub mod book;

/// Resolves the `Location` / `LocationPref` list of a search or availability request. `tag`
/// is the XPath of the repeated element. A `Region` is either the service's form (a hotel or
/// product code as text, `RegionCode` saying which) or OpenTravel's (no text: an area by
/// `RegionCode` and/or `RegionName`, see [`Catalogue::in_area`]). Unknown product codes and
/// unsupported `RegionCode`s are errors; a hotel or an area with no activities simply selects
/// nothing.
pub fn select(catalogue: &Catalogue, locations: &[ActivityLocation], tag: &str) -> Result<Selection, Vec<Problem>> {
    if locations.is_empty() {
        return Err(vec![
            Problem::required("A location is required: a Source hotel code, a Service product code or an area.")
                .at(tag),
        ]);
    }
    let mut problems = Vec::new();
    let mut named: Vec<String> = Vec::new();
    let mut near: Vec<String> = Vec::new();
    let mut hotel = None;
    for (i, loc) in locations.iter().enumerate() {
        let at = format!("{tag}[{}]/Region", i + 1);
        let code = loc.region.value.trim();
        if code.is_empty() {
            // OpenTravel's form: an area.
            let area_code = match &loc.region.region_code {
                Some(RegionCode::Other(c)) if !c.trim().is_empty() => Some(c.trim()),
                Some(known @ (RegionCode::HotelCode | RegionCode::Product)) => {
                    problems.push(
                        Problem::required(format!("RegionCode {} needs the code as the Region text.", known.as_str()))
                            .at(at),
                    );
                    continue;
                }
                _ => None,
            };
            let area_name = loc.region.region_name.as_deref().map(str::trim).filter(|n| !n.is_empty());
            if area_code.is_none() && area_name.is_none() {
                problems.push(
                    Problem::required("A Region names a hotel or product code as its text (RegionCode HotelCode or Product), or an area by RegionCode or RegionName.")
                        .at(at),
                );
                continue;
            }
            near.extend(catalogue.in_area(area_code, area_name).map(|a| a.id.clone()));
            continue;
        }
        match loc.region.region_code.as_ref().unwrap_or(&RegionCode::Other(String::new())) {
            RegionCode::HotelCode => {
                hotel.get_or_insert_with(|| code.to_string());
                near.extend(catalogue.near(code).iter().cloned());
            }
            RegionCode::Product => match catalogue.of_product(code) {
                Some(a) => named.push(a.id.clone()),
                None => problems
                    .push(Problem::biz(ErrorCode::InvalidValue, format!("Unknown product code {code:?}.")).at(at)),
            },
            RegionCode::Other(other) => problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("RegionCode {other:?} is not supported; use HotelCode or Product."),
                )
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

/// What a search or availability request selects (`tag`: the XPath of the element holding
/// `BasicInfo` and the locations, `locations_tag` the locations' XPath): its locations
/// ([`select`]) and OpenTravel's `BasicInfo` naming one activity by `TourActivityID` or
/// `SupplierProductCode`, taken first, as a Service location with its product code would be
/// (an empty `BasicInfo`, the service's form, names none).
pub fn activities_asked(
    catalogue: &Catalogue,
    basic: Option<&ActivityChoice>,
    locations: &[ActivityLocation],
    tag: &str,
    locations_tag: &str,
) -> Result<Selection, Vec<Problem>> {
    let Some(basic) = basic.filter(|b| b.tour_activity_id.is_some() || b.supplier_product_code.is_some()) else {
        return select(catalogue, locations, locations_tag);
    };
    let at = format!("{tag}/BasicInfo");
    let named =
        match (basic.tour_activity_id.as_deref().map(str::trim), basic.supplier_product_code.as_deref().map(str::trim))
        {
            (Some(id), _) if !id.is_empty() => catalogue.activity(id).ok_or_else(|| {
                vec![
                    Problem::biz(ErrorCode::InvalidValue, format!("Unknown TourActivityID {id:?}."))
                        .at(format!("{at}/@TourActivityID")),
                ]
            })?,
            (_, Some(code)) if !code.is_empty() => catalogue.of_product(code).ok_or_else(|| {
                vec![
                    Problem::biz(ErrorCode::InvalidValue, format!("Unknown product code {code:?}."))
                        .at(format!("{at}/@SupplierProductCode")),
                ]
            })?,
            _ => {
                return Err(vec![
                    Problem::required("BasicInfo names the activity by TourActivityID or SupplierProductCode.").at(at),
                ]);
            }
        };
    let mut selection =
        if locations.is_empty() { Selection::default() } else { select(catalogue, locations, locations_tag)? };
    selection.ids.retain(|id| *id != named.id);
    selection.ids.insert(0, named.id.clone());
    Ok(selection)
}

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
        problems.push(
            Problem::required("At least one ParticipantCount is required.").at(format!("{AVAIL}/ParticipantCount")),
        );
    }
    for (i, pc) in ta.participant_count.iter().enumerate() {
        let category = pc.qualifier_info.as_str().trim().to_string();
        if pc.quantity > MAX_PARTICIPANTS {
            problems.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("Quantity {} is above the limit of {MAX_PARTICIPANTS}.", pc.quantity),
                )
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
            Problem::biz(
                ErrorCode::InvalidValue,
                format!("The party has {size} participants; between 1 and {MAX_PARTICIPANTS} are allowed."),
            )
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
                    Problem::biz(
                        ErrorCode::InvalidValue,
                        format!("Pricing method {m:?} is not supported; use PerPerson or PerGroup."),
                    )
                    .at(format!("{gp_tag}/Method")),
                );
                None
            }
        };
        if let (Some(per_person), Some(max)) = (per_person, &gp.maximum_price) {
            if max.amount.0.is_sign_negative() {
                problems.push(
                    Problem::biz(ErrorCode::InvalidValue, "MaximumPrice@Amount is negative.")
                        .at(format!("{gp_tag}/MaximumPrice/@Amount")),
                );
            } else {
                limit = Some(PriceLimit { per_person, amount: max.amount.0, currency: max.currency_code.clone() });
            }
        }
    }
    if problems.is_empty() { Ok(AvailabilityQuery { start, end, party, size, limit }) } else { Err(problems) }
}
