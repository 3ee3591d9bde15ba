//! Hotel availability, on domain values only: what a request asks for (where, when, which
//! rooms), and the offers that answer it from the catalogue and the rooms sold.
//!
//! Rules:
//! - One `AvailRequestSegment`; its criteria select hotels (a hotel by `HotelRef@HotelCode`,
//!   or every hotel of a country or region by `RefPoint`); a hotel matching several is
//!   searched once.
//! - The stay: End after Start, from today on, at most [`MAX_NIGHTS`](super::MAX_NIGHTS) nights, at most
//!   [`MAX_DAYS_AHEAD`](super::MAX_DAYS_AHEAD) days ahead.
//! - At most [`MAX_ROOMS`](crate::hotels::import::MAX_ROOMS) rooms (`RoomStayCandidate`), each with at least one adult (AQC 10,
//!   or 11 senior; a `GuestCount` without a code counts as adults) and the `Age` of each child
//!   (AQC 8).
//! - An offer is one room type with one board in one currency of one hotel, for one requested
//!   room: the room type takes its guests, at least one room of it is left every night, its
//!   rates cover every night, and its supplier does not restrict the stay (a night closed, the
//!   arrival or departure day closed, a stay too short or too long for the arrival day: see
//!   [`crate::hotels::supply`]). The rooms on sale and the nightly amounts are the supplier's
//!   where it sent some (the amounts for the room's number of guests where given). Offers are listed by requested room, then price, then hotel,
//!   room type and board; at most `MaxResponses` (and [`MAX_OFFERS`]); the answer's
//!   `TransactionIdentifier` says how many were listed of how many found (`1-20/57`), as the
//!   hotel NBC does for hotels.

use chrono::NaiveDate;
use ota_messages::common::ErrorCode;
use rust_decimal::Decimal;

use super::inventory::{self, Night, Rooms};
use crate::errors::Problem;
use crate::hotels::catalogue::{Catalogue, Hotel, RoomType, SuppliedRoom};
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
    pub counts: Vec<GuestCount>,
}

/// One requested count of guests of an age category.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuestCount {
    /// The age category (OTA AQC: 10 adult, 8 child, …), as written.
    pub age_code: Option<String>,
    /// Their age in years.
    pub age: Option<u64>,
    /// How many (none: one).
    pub count: Option<u64>,
}

/// Whether an age category counts as an adult (10 adult, 11 senior).
pub fn is_adult(code: &str) -> bool {
    matches!(code, "10" | "11")
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
pub fn rooms_left(hotel: &Hotel, room: SuppliedRoom<'_>, start: NaiveDate, end: NaiveDate, sold: &Rooms) -> i64 {
    // One key, moved from night to night.
    let mut key = Night { hotel: hotel.code.clone(), room_type: room.room.code.clone(), night: start };
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
                // What its supplier said of the room type, looked up once for every night and board.
                let supplied = hotel.supplied(room);
                if !room.fits(occupancy.guests) || rooms_left(hotel, supplied, q.start, q.end, sold) < 1 {
                    continue;
                }
                let rates = hotel.rates_for(&room.code, occupancy.guests);
                for (board, currency) in rates.sold_with() {
                    if !catalogue.is_board(board) || supplied.restricted(board, q.start, q.end).is_some() {
                        continue;
                    }
                    let Ok(nights) = rates.nightly(board, currency, q.start, q.end) else { continue };
                    let total = nights.iter().map(|(_, p)| *p).sum();
                    these.push((
                        position,
                        Offer {
                            rph: occupancy.rph,
                            hotel,
                            room,
                            board,
                            currency,
                            nights,
                            total,
                            penalties: penalties.clone(),
                        },
                    ));
                }
            }
        }
        these.sort_by(|(_, a), (_, b)| {
            a.total
                .cmp(&b.total)
                .then_with(|| a.hotel.code.cmp(&b.hotel.code))
                .then_with(|| a.room.code.cmp(&b.room.code))
                .then_with(|| a.board.cmp(b.board))
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
        Problem::advisory(ErrorCode::NoHotelsFound, "No hotels match the search criteria.")
            .at(format!("{SEGMENT}/HotelSearchCriteria"))
    } else {
        Problem::advisory(
            ErrorCode::NoAvailability,
            format!("No rooms are available from {} to {} for the rooms and guests requested.", q.start, q.end),
        )
        .at(format!("{SEGMENT}/StayDateRange"))
    }
}
