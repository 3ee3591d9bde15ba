//! Hotel booking (`/hotelbook`), on domain values only: the booking a request asks for, priced
//! from the rates, with the cancellation penalties of its hotel's policy.
//!
//! Rules:
//! - 1 to [`MAX_ROOMS`](crate::hotels::import::MAX_ROOMS) room stays (more: Type 3, Code 378), all in one hotel; each room stay's
//!   `RPH` (else its position) names it once.
//! - A room stay: a known hotel and room type (`RoomTypeCode`, a `;contract/rate-plan` suffix
//!   is kept as written), a stay that [`check_dates`](super::check_dates) accepts, a board — the first `Text` of its
//!   `RoomRate` feature, else the board `Service` its `ServiceRPHs` reference — the room type is
//!   sold with; its price is the sum of the nightly rates (one currency per booking).
//! - Guests: every `ResGuestRPH` of a room names a `ResGuest`, each guest stays in exactly one
//!   room; a room holds at least one adult (AQC 10 or 11) and at most its room type's guests; a
//!   child (AQC 8) or infant (7) gives its age in `GuestCounts/GuestCount@Age`. On Commit the
//!   first adult of each room (its responsible person) gives `GivenName` and `Surname`.
//! - Services: each has a board code and is used by a room; a room uses at most one board.
//! - Commit needs the Client reference (`HotelReservationID` Type 36, Client); Quote echoes it
//!   when given.
//! - Names and comments are bounded by the spec's lengths (checked when the request is decoded).

use chrono::{DateTime, NaiveDateTime, Utc};
use ota_messages::common::ErrorCode;

use crate::errors::Problem;
use crate::hotels::booking::{Booking, Company, ItemRef, RoomReference};

/// The `Type` of an item-level reference (a room stay): 37.
const ITEM: &str = "37";

/// The booking of a request, under every error `Tag`.
pub const ROOT: &str = "/OTA_HotelResRQ/HotelReservations/HotelReservation";
/// The room stays of a request.
pub const ROOM_STAYS: &str = "/OTA_HotelResRQ/HotelReservations/HotelReservation/RoomStays";

/// Who asks, and when.
#[derive(Debug, Clone)]
pub struct Asker {
    /// The requestor id: the booking's owner.
    pub owner: String,
    /// The requestor's company, kept with the Client reference.
    pub company: Company,
    /// Now (UTC): each room stay's dates are checked against today at its hotel.
    pub utc: DateTime<Utc>,
    /// Now (as stored, UTC): the booking's creation.
    pub now: NaiveDateTime,
}

/// Gives a booking its Internal reference, and each room stay its item reference
/// (`{internal}-{index}`, Type 37), also listed among the booking's references.
pub fn with_reference(mut b: Booking, internal: &str) -> Booking {
    b.internal_ref = internal.to_string();
    b.item_refs.clear();
    for r in &mut b.rooms {
        let index = r.index.unwrap_or_default();
        let id = format!("{internal}-{index}");
        r.reference = Some(RoomReference { id: Some(id.clone()), kind: Some(ITEM.to_string()) });
        b.item_refs.push(ItemRef {
            res_id_type: ITEM.to_string(),
            context: "Internal".to_string(),
            value: id,
            item_rph: Some(index),
        });
    }
    b
}

/// Whether a repeated Commit asks for the booking already made with its Client reference: the
/// same hotel, room types, boards, dates and guests.
pub fn same_as_asked(stored: &Booking, asked: &Booking) -> bool {
    let stays = |b: &Booking| {
        b.rooms
            .iter()
            .map(|r| (r.hotel.clone(), r.room_type.clone(), r.board.clone(), r.start, r.end, r.guests.clone()))
            .collect::<Vec<_>>()
    };
    stays(stored) == stays(asked)
}

/// The warning of a repeated Commit that asks for something else than the booking made.
pub fn already_booked(stored: &Booking) -> Problem {
    Problem::advisory(
        ErrorCode::ReservationAlreadyExists,
        format!(
            "A booking with Client reference {:?} exists already ({}); it is returned unchanged, and this request was not booked.",
            stored.client_ref, stored.internal_ref
        ),
    )
    .at(format!("{ROOT}/ResGlobalInfo/HotelReservationIDs"))
}

/// The error of a Commit whose Client reference names an activity booking of the requestor.
pub fn reference_taken(client_ref: &str) -> Problem {
    Problem::biz(
        ErrorCode::ReservationAlreadyExists,
        format!("Client reference {client_ref:?} names an activity booking already; each booking needs its own."),
    )
    .at(format!("{ROOT}/ResGlobalInfo/HotelReservationIDs"))
}
