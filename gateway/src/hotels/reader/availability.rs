//! Reads an `OTA_HotelAvailRQ`: the hotels, dates and rooms of an availability query.

use std::collections::HashSet;

use chrono::{DateTime, NaiveDate, Utc};
use ota_messages::common::ErrorCode;
use ota_messages::hotel_avail::{
    AvailRequestSegment, HotelSearchCriterion, OccupancyGuestCounts, OtaHotelAvailRq, RefPointContext,
    RoomStayCandidate, RoomStayCandidates, StayDates,
};

use crate::errors::Problem;
use crate::hotels::catalogue::{Catalogue, Hotel};
use crate::hotels::import::MAX_ROOMS;
use crate::hotels::rules::availability::{GuestCount, MAX_OFFERS, Occupancy, Query, SEGMENT, is_adult};
use crate::hotels::rules::check_dates;

/// Reads the guests of one room (`tag`: the path of its `GuestCounts`).
pub fn occupancy(rph: u64, counts: &OccupancyGuestCounts, tag: &str) -> Result<Occupancy, Vec<Problem>> {
    let mut problems = Vec::new();
    let (mut guests, mut adults) = (0u64, 0u64);
    for (i, gc) in counts.guest_count.iter().enumerate() {
        let at = format!("{tag}/GuestCount[{}]", i + 1);
        let n = gc.count.unwrap_or(1);
        guests += n;
        match &gc.age_qualifying_code {
            None => adults += n,
            Some(code) if is_adult(code.as_str()) => adults += n,
            Some(code) if code.as_str() == "8" && gc.age.is_none() => {
                problems.push(
                    Problem::required("The Age of children (AgeQualifyingCode 8) is required.")
                        .at(format!("{at}/@Age")),
                );
            }
            Some(_) => {}
        }
    }
    if counts.guest_count.is_empty() || adults == 0 {
        problems.push(
            Problem::biz(
                ErrorCode::InvalidValue,
                "Each room needs at least one adult guest (AgeQualifyingCode 10 or 11).",
            )
            .at(tag),
        );
    }
    let guests = u32::try_from(guests).unwrap_or(u32::MAX);
    let counts = counts
        .guest_count
        .iter()
        .map(|gc| GuestCount {
            age_code: gc.age_qualifying_code.as_ref().map(|c| c.as_str().to_string()),
            age: gc.age,
            count: gc.count,
        })
        .collect();
    if problems.is_empty() { Ok(Occupancy { rph, guests, counts }) } else { Err(problems) }
}

/// Reads a request against the catalogue (every problem at once); `today` bounds the dates.
pub fn query<'c>(
    rq: &OtaHotelAvailRq,
    catalogue: &'c Catalogue,
    utc: DateTime<Utc>,
) -> Result<Query<'c>, Vec<Problem>> {
    let segments = &rq.avail_request_segments.avail_request_segment;
    let Some(segment) = segments.first() else {
        return Err(vec![
            Problem::required("An AvailRequestSegment is required.").at("/OTA_HotelAvailRQ/AvailRequestSegments"),
        ]);
    };
    if segments.len() > 1 {
        return Err(vec![
            Problem::biz(
                ErrorCode::SearchCriteriaInvalid,
                "One AvailRequestSegment per request: send each search on its own.",
            )
            .at(format!("{SEGMENT}[2]")),
        ]);
    }
    let mut problems = not_supported(rq, segment);
    if !problems.is_empty() {
        return Err(problems);
    }

    let mut hotels: Vec<&Hotel> = Vec::new();
    for (i, c) in segment.hotel_search_criteria.criterion.iter().enumerate() {
        let at = format!("{SEGMENT}/HotelSearchCriteria/Criterion[{}]", i + 1);
        if c.hotel_ref.is_empty() && c.ref_point.is_empty() {
            problems.push(Problem::required("A Criterion needs a HotelRef or a RefPoint.").at(at.clone()));
        }
        for (j, h) in c.hotel_ref.iter().enumerate() {
            let code = h.hotel_code.as_deref().map(str::trim).unwrap_or_default();
            match catalogue.hotel(code) {
                Some(hotel) => hotels.push(hotel),
                None => problems.push(
                    Problem::biz(ErrorCode::InvalidHotelCode, format!("Hotel {code} is not known."))
                        .at(format!("{at}/HotelRef[{}]/@HotelCode", j + 1)),
                ),
            }
        }
        for p in &c.ref_point {
            let name = p.value.trim();
            if name.is_empty() {
                problems.push(
                    Problem::required("RefPoint needs the name of the place as its text.").at(format!("{at}/RefPoint")),
                );
                continue;
            }
            match &p.code_context {
                RefPointContext::Country => hotels.extend(catalogue.in_country(name)),
                RefPointContext::Region => hotels.extend(catalogue.in_region(name)),
                other => problems.push(
                    Problem::biz(
                        ErrorCode::SearchCriteriaInvalid,
                        format!("RefPoint@CodeContext {:?} is not supported; use Country or Region.", other.as_str()),
                    )
                    .at(format!("{at}/RefPoint/@CodeContext")),
                ),
            }
        }
    }
    let mut seen = HashSet::new();
    hotels.retain(|h| seen.insert(h.code.as_str()));
    hotels.sort_by(|a, b| a.code.cmp(&b.code));

    let (stay, candidates) = match (stay_of(segment), rooms_of(segment)) {
        (Ok(stay), Ok(rooms)) => (stay, rooms),
        (stay, rooms) => return Err(stay.err().into_iter().chain(rooms.err()).chain(problems).collect()),
    };
    let (start, end) = match nights(stay) {
        Ok(dates) => dates,
        Err(p) => return Err(std::iter::once(p).chain(problems).collect()),
    };
    // Today at the hotels asked for (the earliest, when they are in several zones).
    let today = hotels.iter().map(|h| h.today(utc)).min().unwrap_or(utc.date_naive());
    if let Err(p) = check_dates(start, end, today, &format!("{SEGMENT}/StayDateRange")) {
        problems.push(p);
    }

    let candidates = &candidates.room_stay_candidate;
    if candidates.len() > MAX_ROOMS {
        problems.push(
            Problem::biz(
                ErrorCode::MaxNumberOfRoomsExceeded,
                format!("At most {MAX_ROOMS} rooms per request, not {}.", candidates.len()),
            )
            .at(format!("{SEGMENT}/RoomStayCandidates/RoomStayCandidate[{}]", MAX_ROOMS + 1)),
        );
    }
    let mut rooms = Vec::new();
    let mut rphs = HashSet::new();
    for (i, c) in candidates.iter().enumerate().take(MAX_ROOMS) {
        let at = format!("{SEGMENT}/RoomStayCandidates/RoomStayCandidate[{}]", i + 1);
        let rph = c.rph.unwrap_or(i as u64 + 1);
        if !rphs.insert(rph) {
            problems.push(
                Problem::biz(ErrorCode::InvalidValue, format!("RPH {rph} names two rooms.")).at(format!("{at}/@RPH")),
            );
        }
        let Some(counts) = &c.guest_counts else {
            problems.push(
                Problem::required("Each RoomStayCandidate needs its GuestCounts (who stays in the room).")
                    .at(format!("{at}/GuestCounts")),
            );
            continue;
        };
        match occupancy(rph, counts, &format!("{at}/GuestCounts")) {
            Ok(o) => rooms.push(o),
            Err(p) => problems.extend(p),
        }
    }
    let max = rq.max_responses.and_then(|n| usize::try_from(n).ok()).unwrap_or(MAX_OFFERS).min(MAX_OFFERS);
    if problems.is_empty() { Ok(Query { hotels, start, end, rooms, max }) } else { Err(problems) }
}

/// The stay dates: the segment's, or (OpenTravel 2016B) those of its criteria, which must agree.
fn stay_of(segment: &AvailRequestSegment) -> Result<&StayDates, Problem> {
    let criteria = segment.hotel_search_criteria.criterion.iter().filter_map(|c| c.stay_date_range.as_ref());
    one_of(segment.stay_date_range.as_ref(), criteria, "StayDateRange", "the stay dates")
}

/// The rooms wanted: the segment's, or (OpenTravel 2016B) those of its criteria, which must agree.
fn rooms_of(segment: &AvailRequestSegment) -> Result<&RoomStayCandidates, Problem> {
    let criteria = segment.hotel_search_criteria.criterion.iter().filter_map(|c| c.room_stay_candidates.as_ref());
    one_of(segment.room_stay_candidates.as_ref(), criteria, "RoomStayCandidates", "the rooms")
}

/// The segment's `name`, else the one the criteria give (all the same); refused when none
/// gives it, or when the criteria give different ones (one stay per request).
fn one_of<'a, T: PartialEq>(
    segment: Option<&'a T>,
    mut criteria: impl Iterator<Item = &'a T>,
    name: &str,
    what: &str,
) -> Result<&'a T, Problem> {
    if let Some(given) = segment {
        return Ok(given);
    }
    let Some(first) = criteria.next() else {
        return Err(Problem::required(format!(
            "{name} is required: {what} of the search, in the AvailRequestSegment (or its Criterion)."
        ))
        .at(format!("{SEGMENT}/{name}")));
    };
    match criteria.position(|other| other != first) {
        None => Ok(first),
        Some(_) => Err(Problem::not_supported(format!(
            "The criteria give different {name}: one search per request, with one stay and one set of rooms."
        ))
        .at(format!("{SEGMENT}/HotelSearchCriteria"))),
    }
}

/// OpenTravel 2016B's ways to search that are taken but not supported, each answered Type 2
/// naming it (the first of each element): a summary, the best offer or a rate range only, other
/// than rooms, rate ranges and plans, profiles, hotels named other than by code, searches by
/// address, position, amenities, …, and rooms filtered by type, bed, promotion, or several of
/// a kind. Ignoring any of them would answer something else than was asked.
fn not_supported(rq: &OtaHotelAvailRq, segment: &AvailRequestSegment) -> Vec<Problem> {
    let yes = |v: &Option<String>| v.as_deref().map(str::trim).is_some_and(|v| v == "true" || v == "1");
    let mut out = Vec::new();
    let mut refuse =
        |at: String, what: &str| out.push(Problem::not_supported(format!("{what} is not supported.")).at(at));
    for (name, value) in
        [("SummaryOnly", &rq.summary_only), ("BestOnly", &rq.best_only), ("RateRangeOnly", &rq.rate_range_only)]
    {
        if yes(value) {
            refuse(format!("/OTA_HotelAvailRQ/@{name}"), &format!("{name}=\"true\" (every offer is listed)"));
        }
    }
    if segment.avail_req_type.as_deref().map(str::trim) == Some("NonRoom") {
        refuse(format!("{SEGMENT}/@AvailReqType"), "AvailReqType NonRoom (rooms only)");
    }
    for (name, given) in [
        ("RateRange", !segment.rate_range.is_empty()),
        ("RatePlanCandidates", segment.rate_plan_candidates.is_some()),
        ("Profiles", segment.profiles.is_some()),
    ] {
        if given {
            refuse(format!("{SEGMENT}/{name}"), name);
        }
    }
    if yes(&segment.hotel_search_criteria.best_only_indicator) {
        refuse(
            format!("{SEGMENT}/HotelSearchCriteria/@BestOnlyIndicator"),
            "BestOnlyIndicator=\"true\" (every offer is listed)",
        );
    }
    for (i, c) in segment.hotel_search_criteria.criterion.iter().enumerate() {
        let at = format!("{SEGMENT}/HotelSearchCriteria/Criterion[{}]", i + 1);
        if let Some(name) = criterion_search(c) {
            refuse(format!("{at}/{name}"), &format!("A search by {name}"));
        }
        if !c.hotel_ref.is_empty() && !c.ref_point.is_empty() {
            refuse(
                format!("{at}/RefPoint"),
                "A Criterion with both HotelRef and RefPoint (one criterion per way to search)",
            );
        }
        for (j, h) in c.hotel_ref.iter().enumerate() {
            if h.hotel_code.as_deref().is_none_or(|c| c.trim().is_empty()) {
                refuse(
                    format!("{at}/HotelRef[{}]/@HotelCode", j + 1),
                    "A HotelRef without HotelCode (hotels by chain, brand, city or name)",
                );
            }
        }
        if let Some(rooms) = &c.room_stay_candidates {
            room_filters(rooms, &format!("{at}/RoomStayCandidates"), &mut refuse);
        }
    }
    if let Some(rooms) = &segment.room_stay_candidates {
        room_filters(rooms, &format!("{SEGMENT}/RoomStayCandidates"), &mut refuse);
    }
    out
}

/// The first of a criterion's searches that are not supported, by its element name.
fn criterion_search(c: &HotelSearchCriterion) -> Option<&'static str> {
    let given = [
        ("Position", c.position.is_some()),
        ("Address", c.address.is_some()),
        ("Telephone", c.telephone.is_some()),
        ("CodeRef", c.code_ref.is_some()),
        ("Radius", c.radius.is_some()),
        ("MapArea", c.map_area.is_some()),
        ("AdditionalContents", c.additional_contents.is_some()),
        ("HotelAmenity", !c.hotel_amenity.is_empty()),
        ("RoomAmenity", !c.room_amenity.is_empty()),
        ("HotelFeature", !c.hotel_feature.is_empty()),
        ("Award", !c.award.is_empty()),
        ("Recreation", !c.recreation.is_empty()),
        ("Service", !c.service.is_empty()),
        ("Transportation", !c.transportation.is_empty()),
        ("RateRange", !c.rate_range.is_empty()),
        ("RatePlanCandidates", c.rate_plan_candidates.is_some()),
        ("Profiles", c.profiles.is_some()),
        ("AcceptedPayments", c.accepted_payments.is_some()),
        ("Media", !c.media.is_empty()),
        ("HotelMeetingFacility", !c.hotel_meeting_facility.is_empty()),
        ("MealPlan", c.meal_plan.is_some()),
        ("RebatePrograms", c.rebate_programs.is_some()),
        ("UserGeneratedContent", c.user_generated_content.is_some()),
    ];
    given.into_iter().find(|(_, g)| *g).map(|(name, _)| name)
}

/// Refuses the filters of the rooms wanted (by type, bed, promotion, …) and several rooms of a
/// kind (`Quantity` over 1: one RoomStayCandidate per room).
fn room_filters(rooms: &RoomStayCandidates, at: &str, refuse: &mut impl FnMut(String, &str)) {
    for (i, c) in rooms.room_stay_candidate.iter().enumerate() {
        let at = format!("{at}/RoomStayCandidate[{}]", i + 1);
        if c.quantity.is_some_and(|q| q > 1) {
            refuse(format!("{at}/@Quantity"), "Quantity over 1 (send one RoomStayCandidate per room)");
        }
        if let Some(name) = room_filter(c) {
            refuse(format!("{at}/{name}"), &format!("A room filtered by {}", name.trim_start_matches('@')));
        }
    }
}

/// The first filter of a room wanted, as `@Attribute` or `Element`.
fn room_filter(c: &RoomStayCandidate) -> Option<&'static str> {
    let given = [
        ("@RoomTypeCode", c.room_type_code.is_some()),
        ("@RoomType", c.room_type.is_some()),
        ("@RoomCategory", c.room_category.is_some()),
        ("@BedTypeCode", c.bed_type_code.is_some()),
        ("@NonSmoking", c.non_smoking.is_some()),
        ("@PromotionCode", c.promotion_code.is_some()),
        ("@RatePlanCandidateRPH", c.rate_plan_candidate_rph.is_some()),
        ("@BookingCode", c.booking_code.is_some()),
        ("RoomAmenity", !c.room_amenity.is_empty()),
    ];
    given.into_iter().find(|(_, g)| *g).map(|(name, _)| name)
}

/// Arrival and departure of a stay: Start and End, or Start and Duration (nights); both given,
/// they must agree.
fn nights(stay: &StayDates) -> Result<(NaiveDate, NaiveDate), Problem> {
    let at = format!("{SEGMENT}/StayDateRange");
    let start = stay.start.0;
    let by_duration = stay.duration.as_deref().map(|d| {
        let n: i64 = d.trim_start_matches('P').trim_end_matches(['D', 'N']).parse().unwrap_or(0);
        start + chrono::Days::new(n.unsigned_abs())
    });
    match (stay.end.as_ref().map(|e| e.0), by_duration) {
        (Some(end), Some(other)) if end != other => Err(Problem::biz(
            ErrorCode::InvalidStartEndDateCombination,
            format!("End {end} and Duration {} (to {other}) disagree.", stay.duration.as_deref().unwrap_or_default()),
        )
        .at(format!("{at}/@Duration"))),
        (Some(end), _) | (None, Some(end)) => Ok((start, end)),
        (None, None) => {
            Err(Problem::required("StayDateRange needs End (the departure date) or Duration (the nights).")
                .at(format!("{at}/@End")))
        }
    }
}
