//! The hotel booking as the domain knows it: room stays, services, guests, comments and
//! references. Read and written by the repo, compared and priced by the rules, turned into
//! messages by the mapping; the import file has its own input types.

use std::collections::BTreeMap;

use chrono::{NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;

pub use crate::shared::booking::{BookingHead, CANCELLED, Company, Guest, RESERVED};
use crate::shared::cancellation::{Cancellation, Penalty};

/// A hotel booking.
#[derive(Debug, Clone, PartialEq)]
pub struct Booking {
    /// The gateway's booking reference (`ResID_SourceContext="Internal"`), unique.
    pub internal_ref: String,
    /// The partner's booking reference (`ResID_SourceContext="Client"`), unique per owner.
    pub client_ref: String,
    /// The id of the requestor that owns the booking; only it can read or modify it.
    pub owner: String,
    /// The company that issued the client reference.
    pub company: Option<Company>,
    /// The booking status: `Reserved`, `Cancelled`, …
    pub status: String,
    /// When the booking was created (local date-time).
    pub created: NaiveDateTime,
    /// When the booking was last changed (local date-time): the version a modify must carry.
    pub updated: NaiveDateTime,
    /// The ISO 4217 currency of every amount.
    pub currency: String,
    /// The room stays (1 to 5).
    pub rooms: Vec<Room>,
    /// The services (transfers, boards, …).
    pub services: Vec<Service>,
    /// The guests; the first one is the lead guest.
    pub guests: Vec<Guest>,
    /// The comments.
    pub comments: Vec<Comment>,
    /// Further `HotelReservationID`s (item level, Type 37).
    pub item_refs: Vec<ItemRef>,
}

/// One room stay.
#[derive(Debug, Clone, PartialEq)]
pub struct Room {
    /// `IndexNumber`.
    pub index: Option<u64>,
    /// `RoomStayStatus` (`Book`, …).
    pub status: Option<String>,
    /// The hotel code.
    pub hotel: String,
    /// The room type as booked, e.g. `RMSD000000` or `RMSD000000;CT12/RP3`.
    pub room_type: String,
    /// The board code (`SC`, `BB`, `HB`, `FB`, `AI`).
    pub board: String,
    /// First night.
    pub start: NaiveDate,
    /// Departure day (the last night is the day before).
    pub end: NaiveDate,
    /// The price of the stay; `None` while a change awaits pricing.
    pub total: Option<Decimal>,
    /// The guests in this room (`ResGuestRPH`s).
    pub guests: Vec<u64>,
    /// The services of this room (`ServiceRPH`s).
    pub services: Vec<u64>,
    /// `Reference@ID` / `@Type`.
    pub reference: Option<RoomReference>,
    /// `TPA_Extensions/POS/Source/RequestorID`s.
    pub sources: Vec<RoomSource>,
    /// The cancellation penalties fixed when the stay was booked or last re-priced.
    pub penalties: Vec<Penalty>,
    /// When, and at what cost, the room was cancelled.
    pub cancelled: Option<Cancellation>,
}

impl Room {
    /// The room type code without its `;contract/rate-plan` suffix: the hotel's room type.
    pub fn base_room_type(&self) -> &str {
        base_code(&self.room_type)
    }

    /// Whether the room is still booked (not cancelled).
    pub fn is_live(&self) -> bool {
        self.cancelled.is_none()
    }

    /// Midnight of the arrival day: when the stay starts, for its cancellation deadlines.
    pub fn starts_at(&self) -> NaiveDateTime {
        self.start.and_time(chrono::NaiveTime::MIN)
    }
}

/// A room type code without its `;contract/rate-plan` suffix.
pub fn base_code(code: &str) -> &str {
    code.split_once(';').map_or(code, |(base, _)| base)
}

/// The reference attached to a room stay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomReference {
    /// `ID`.
    pub id: Option<String>,
    /// `Type` (14 = reservation).
    pub kind: Option<String>,
}

/// A `RequestorID` of a room stay's extension (Types 4, 39, 2, 45 seen). A `MessagePassword`
/// is never kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoomSource {
    /// `Type`.
    pub kind: String,
    /// `ID`.
    pub id: String,
    /// `ID_Context`.
    pub id_context: Option<String>,
    /// `Instance`.
    pub instance: Option<String>,
    /// `CompanyName`.
    pub company: Option<Company>,
}

/// A booked service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    /// `ServiceRPH`.
    pub rph: u64,
    /// `ServiceInventoryCode` (a board code, `TRF`, …).
    pub code: String,
    /// The guests using the service.
    pub guests: Vec<u64>,
    /// The legs of a transfer.
    pub legs: Vec<TransferLeg>,
}

/// One leg of a transfer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferLeg {
    /// Where the leg starts.
    pub origin: TransferPoint,
    /// Where the leg ends.
    pub destination: TransferPoint,
}

/// One end of a transfer leg.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransferPoint {
    /// A hotel, by code.
    Hotel(String),
    /// A connecting flight.
    Transport(Transport),
}

/// A flight connecting with a transfer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Transport {
    /// `DepartureDateTime` (local).
    pub departure: Option<NaiveDateTime>,
    /// `ArrivalDateTime` (local).
    pub arrival: Option<NaiveDateTime>,
    /// `DepartureAirport@LocationCode`.
    pub departure_airport: Option<String>,
    /// `ArrivalAirport@LocationCode`.
    pub arrival_airport: Option<String>,
    /// `OperatingAirline@FlightNumber`.
    pub flight: Option<String>,
}

/// A booking comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    /// `Name`.
    pub name: Option<String>,
    /// `CommentOriginatorCode`.
    pub originator: Option<String>,
    /// The `Text` elements.
    pub texts: Vec<LangText>,
}

/// A text with an optional language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LangText {
    /// `Language`.
    pub language: Option<String>,
    /// The text.
    pub text: String,
}

/// A further `HotelReservationID` (item level).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ItemRef {
    /// `ResID_Type` (37 item level).
    pub res_id_type: String,
    /// `ResID_SourceContext`: `Client` or `Internal`.
    pub context: String,
    /// `ResID_Value`.
    pub value: String,
    /// `Item_RPH`.
    pub item_rph: Option<u64>,
}

impl Booking {
    /// The booking total: what the partner owes, the prices of the live room stays plus the
    /// penalties of the cancelled ones.
    pub fn total(&self) -> Decimal {
        self.rooms.iter().map(|r| r.cancelled.as_ref().map_or(r.total.unwrap_or_default(), |c| c.penalty)).sum()
    }

    /// The live (not cancelled) room stays.
    pub fn live_rooms(&self) -> impl Iterator<Item = &Room> {
        self.rooms.iter().filter(|r| r.is_live())
    }

    /// First arrival and last departure of the room stays.
    pub fn span(&self) -> Option<(NaiveDate, NaiveDate)> {
        let start = self.rooms.iter().map(|r| r.start).min()?;
        let end = self.rooms.iter().map(|r| r.end).max()?;
        Some((start, end))
    }

    /// True when the status is `Cancelled`.
    pub fn is_cancelled(&self) -> bool {
        self.status.eq_ignore_ascii_case(CANCELLED)
    }
}

impl Booking {
    /// The reference part of the booking.
    pub fn head(&self) -> BookingHead {
        BookingHead {
            internal_ref: self.internal_ref.clone(),
            client_ref: self.client_ref.clone(),
            company: self.company.clone(),
            status: self.status.clone(),
            created: self.created,
            updated: self.updated,
        }
    }
}

/// One room type of one hotel, one night.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Night {
    /// The hotel code.
    pub hotel: String,
    /// The room type (without a `;` suffix).
    pub room_type: String,
    /// The night (its date).
    pub night: NaiveDate,
}

/// Rooms per room type and night: what a booking holds, or what a change takes (positive) and
/// gives back (negative). Ordered, so that every writer takes rows in the same order.
pub type Rooms = BTreeMap<Night, i64>;

/// A room stay of a room type with board BB and nothing else (for tests).
#[cfg(test)]
impl Room {
    pub(crate) fn bare(hotel: &str, room_type: &str, start: NaiveDate, end: NaiveDate) -> Room {
        Room {
            index: None,
            status: None,
            hotel: hotel.into(),
            room_type: room_type.into(),
            board: "BB".into(),
            start,
            end,
            total: None,
            guests: vec![],
            services: vec![],
            reference: None,
            sources: vec![],
            penalties: vec![],
            cancelled: None,
        }
    }
}

/// A reserved booking of these room stays, made 2030-01-01 in EUR, and nothing else (for tests).
#[cfg(test)]
impl Booking {
    pub(crate) fn bare(rooms: Vec<Room>) -> Booking {
        let at = NaiveDate::from_ymd_opt(2030, 1, 1).unwrap_or_default().and_time(chrono::NaiveTime::MIN);
        Booking {
            internal_ref: "I".into(),
            client_ref: "C".into(),
            owner: "O".into(),
            company: None,
            status: RESERVED.into(),
            created: at,
            updated: at,
            currency: "EUR".into(),
            rooms,
            services: vec![],
            guests: vec![],
            comments: vec![],
            item_refs: vec![],
        }
    }
}
