//! Hotel availability, on domain values only: what a request asks for (where, when, which
//! rooms), and the offers that answer it from the catalogue and the rooms sold.
//!
//! Rules:
//! - One `AvailRequestSegment`; its criteria select hotels (a hotel by `HotelRef@HotelCode`,
//!   or every hotel of a country or region by `RefPoint`); a hotel matching several is
//!   searched once.
//! - The stay: End after Start, from today on, at most [`MAX_NIGHTS`](super::MAX_NIGHTS) nights, at most
//!   [`MAX_DAYS_AHEAD`](super::MAX_DAYS_AHEAD) days ahead.
//! - At most [`MAX_ROOMS`] rooms (`RoomStayCandidate`), each with at least one adult (AQC 10,
//!   or 11 senior; a `GuestCount` without a code counts as adults) and the `Age` of each child
//!   (AQC 8).
//! - An offer is one room type with one board in one currency of one hotel, for one requested
//!   room: the room type takes its guests, at least one room of it is left every night, and
//!   its rates cover every night. Offers are listed by requested room, then price, then hotel,
//!   room type and board; at most `MaxResponses` (and [`MAX_OFFERS`]); the answer's
//!   `TransactionIdentifier` says how many were listed of how many found (`1-20/57`), as the
//!   hotel NBC does for hotels.

use std::collections::HashSet;

use chrono::{DateTime, NaiveDate, Utc};
use ota_messages::common::ErrorCode;
use ota_messages::hotel_avail::{OccupancyGuestCount, OccupancyGuestCounts, OtaHotelAvailRq, RefPointContext};
use rust_decimal::Decimal;

use super::inventory::{self, Night, Rooms};
use super::check_dates;
use crate::errors::Problem;
use crate::hotels::catalogue::{Catalogue, Hotel, RoomType};
use crate::hotels::import::MAX_ROOMS;
use crate::shared::cancellation::Penalty;

/// The request's segment, under every error `Tag`.
pub const SEGMENT: &str = "/OTA_HotelAvailRQ/AvailRequestSegments/AvailRequestSegment";

/// The most offers one answer lists, whatever `MaxResponses` says.
pub const MAX_OFFERS: usize = 500;

/// Who stays in one room.
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    /// The number of the requested room (its `RPH`, else its position).
    pub rph: u64,
    /// Guests in all.
    pub guests: u32,
    /// The guest counts as requested (echoed in the offers).
    pub counts: Vec<OccupancyGuestCount>,
}

/// Whether an age category counts as an adult (10 adult, 11 senior).
pub fn is_adult(code: &str) -> bool {
    matches!(code, "10" | "11")
}

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
    if problems.is_empty() { Ok(Occupancy { rph, guests, counts: counts.guest_count.clone() }) } else { Err(problems) }
}

/// What an availability request asks for.
#[derive(Debug, Clone)]
pub struct Query<'c> {
    /// The hotels to search, by code.
    pub hotels: Vec<&'c Hotel>,
    /// Arrival.
    pub start: NaiveDate,
    /// Departure.
    pub end: NaiveDate,
    /// The rooms wanted.
    pub rooms: Vec<Occupancy>,
    /// The most offers to list.
    pub max: usize,
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

/// One bookable offer.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer<'c> {
    /// The requested room it is for.
    pub rph: u64,
    /// The hotel.
    pub hotel: &'c Hotel,
    /// The room type.
    pub room: &'c RoomType,
    /// The board code.
    pub board: &'c str,
    /// The currency.
    pub currency: &'c str,
    /// The rate of each night.
    pub nights: Vec<(NaiveDate, Decimal)>,
    /// The price of the stay.
    pub total: Decimal,
    /// The cancellation penalties a booking of it now would get.
    pub penalties: Vec<Penalty>,
}

/// Rooms of a type left for a whole stay: the fewest left on any night.
pub fn rooms_left(hotel: &Hotel, room: &RoomType, start: NaiveDate, end: NaiveDate, sold: &Rooms) -> i64 {
    // One key, moved from night to night.
    let mut key = Night { hotel: hotel.code.clone(), room_type: room.code.clone(), night: start };
    inventory::nights(start, end)
        .map(|night| {
            key.night = night;
            inventory::left_on(room, &key, sold)
        })
        .min()
        .unwrap_or(0)
}

/// The offers answering a query, given the rooms sold during the stay; and how many were
/// found before `max` cut the list.
pub fn offers<'c>(q: &Query<'c>, sold: &Rooms, catalogue: &Catalogue) -> (Vec<Offer<'c>>, usize) {
    let mut out = Vec::new();
    for (position, occupancy) in q.rooms.iter().enumerate() {
        let mut these = Vec::new();
        for &hotel in &q.hotels {
            let penalties = hotel.cancellation.penalties(q.start.and_time(chrono::NaiveTime::MIN));
            for room in &hotel.rooms {
                if !room.fits(occupancy.guests) || rooms_left(hotel, room, q.start, q.end, sold) < 1 {
                    continue;
                }
                let rates = hotel.rates_of(&room.code);
                for (board, currency) in rates.sold_with() {
                    if !catalogue.is_board(board) {
                        continue;
                    }
                    let Ok(nights) = rates.nightly(board, currency, q.start, q.end) else { continue };
                    let total = nights.iter().map(|(_, p)| *p).sum();
                    these.push((position, Offer { rph: occupancy.rph, hotel, room, board, currency, nights, total, penalties: penalties.clone() }));
                }
            }
        }
        these.sort_by(|(_, a), (_, b)| {
            a.total.cmp(&b.total).then_with(|| a.hotel.code.cmp(&b.hotel.code)).then_with(|| a.room.code.cmp(&b.room.code)).then_with(|| a.board.cmp(b.board))
        });
        out.extend(these);
    }
    let found = out.len();
    out.truncate(q.max);
    (out.into_iter().map(|(_, o)| o).collect(), found)
}

/// The warning of an answer without offers: no hotel matched, or none has rooms.
pub fn nothing_found(q: &Query<'_>) -> Problem {
    if q.hotels.is_empty() {
        Problem::advisory(ErrorCode::NoHotelsFound, "No hotels match the search criteria.").at(format!("{SEGMENT}/HotelSearchCriteria"))
    } else {
        Problem::advisory(ErrorCode::NoAvailability, format!("No rooms are available from {} to {} for the rooms and guests requested.", q.start, q.end))
            .at(format!("{SEGMENT}/StayDateRange"))
    }
}
