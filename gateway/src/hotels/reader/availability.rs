//! Reads an `OTA_HotelAvailRQ`: the hotels, dates and rooms of an availability query.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use ota_messages::common::ErrorCode;
use ota_messages::hotel_avail::{OccupancyGuestCounts, OtaHotelAvailRq, RefPointContext};

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
                problems.push(Problem::required("The Age of children (AgeQualifyingCode 8) is required.").at(format!("{at}/@Age")));
            }
            Some(_) => {}
        }
    }
    if counts.guest_count.is_empty() || adults == 0 {
        problems.push(Problem::biz(ErrorCode::InvalidValue, "Each room needs at least one adult guest (AgeQualifyingCode 10 or 11).").at(tag));
    }
    let guests = u32::try_from(guests).unwrap_or(u32::MAX);
    let counts = counts
        .guest_count
        .iter()
        .map(|gc| GuestCount { age_code: gc.age_qualifying_code.as_ref().map(|c| c.as_str().to_string()), age: gc.age, count: gc.count })
        .collect();
    if problems.is_empty() { Ok(Occupancy { rph, guests, counts }) } else { Err(problems) }
}

/// Reads a request against the catalogue (every problem at once); `today` bounds the dates.
pub fn query<'c>(rq: &OtaHotelAvailRq, catalogue: &'c Catalogue, utc: DateTime<Utc>) -> Result<Query<'c>, Vec<Problem>> {
    let segments = &rq.avail_request_segments.avail_request_segment;
    let Some(segment) = segments.first() else {
        return Err(vec![Problem::required("An AvailRequestSegment is required.").at("/OTA_HotelAvailRQ/AvailRequestSegments")]);
    };
    if segments.len() > 1 {
        return Err(vec![
            Problem::biz(ErrorCode::SearchCriteriaInvalid, "One AvailRequestSegment per request: send each search on its own.").at(format!("{SEGMENT}[2]")),
        ]);
    }
    let mut problems = Vec::new();

    let mut hotels: Vec<&Hotel> = Vec::new();
    for (i, c) in segment.hotel_search_criteria.criterion.iter().enumerate() {
        let at = format!("{SEGMENT}/HotelSearchCriteria/Criterion[{}]", i + 1);
        match (&c.hotel_ref, &c.ref_point) {
            (Some(h), _) => match catalogue.hotel(h.hotel_code.trim()) {
                Some(hotel) => hotels.push(hotel),
                None => problems.push(Problem::biz(ErrorCode::InvalidHotelCode, format!("Hotel {} is not known.", h.hotel_code.trim())).at(format!("{at}/HotelRef/@HotelCode"))),
            },
            (None, Some(p)) => {
                let name = p.value.trim();
                if name.is_empty() {
                    problems.push(Problem::required("RefPoint needs the name of the place as its text.").at(format!("{at}/RefPoint")));
                    continue;
                }
                match &p.code_context {
                    RefPointContext::Country => hotels.extend(catalogue.in_country(name)),
                    RefPointContext::Region => hotels.extend(catalogue.in_region(name)),
                    other => problems.push(
                        Problem::biz(ErrorCode::SearchCriteriaInvalid, format!("RefPoint@CodeContext {:?} is not supported; use Country or Region.", other.as_str()))
                            .at(format!("{at}/RefPoint/@CodeContext")),
                    ),
                }
            }
            (None, None) => problems.push(Problem::required("A Criterion needs a HotelRef or a RefPoint.").at(at)),
        }
    }
    let mut seen = HashSet::new();
    hotels.retain(|h| seen.insert(h.code.as_str()));
    hotels.sort_by(|a, b| a.code.cmp(&b.code));

    let (start, end) = (segment.stay_date_range.start.0, segment.stay_date_range.end.0);
    // Today at the hotels asked for (the earliest, when they are in several zones).
    let today = hotels.iter().map(|h| h.today(utc)).min().unwrap_or(utc.date_naive());
    if let Err(p) = check_dates(start, end, today, &format!("{SEGMENT}/StayDateRange")) {
        problems.push(p);
    }

    let candidates = &segment.room_stay_candidates.room_stay_candidate;
    if candidates.len() > MAX_ROOMS {
        problems.push(
            Problem::biz(ErrorCode::MaxNumberOfRoomsExceeded, format!("At most {MAX_ROOMS} rooms per request, not {}.", candidates.len()))
                .at(format!("{SEGMENT}/RoomStayCandidates/RoomStayCandidate[{}]", MAX_ROOMS + 1)),
        );
    }
    let mut rooms = Vec::new();
    let mut rphs = HashSet::new();
    for (i, c) in candidates.iter().enumerate().take(MAX_ROOMS) {
        let at = format!("{SEGMENT}/RoomStayCandidates/RoomStayCandidate[{}]", i + 1);
        let rph = c.rph.unwrap_or(i as u64 + 1);
        if !rphs.insert(rph) {
            problems.push(Problem::biz(ErrorCode::InvalidValue, format!("RPH {rph} names two rooms.")).at(format!("{at}/@RPH")));
        }
        match occupancy(rph, &c.guest_counts, &format!("{at}/GuestCounts")) {
            Ok(o) => rooms.push(o),
            Err(p) => problems.extend(p),
        }
    }
    let max = rq.max_responses.and_then(|n| usize::try_from(n).ok()).unwrap_or(MAX_OFFERS).min(MAX_OFFERS);
    if problems.is_empty() { Ok(Query { hotels, start, end, rooms, max }) } else { Err(problems) }
}
