//! What a booking of either kind is, as far as every area needs it: its kind, its statuses, its
//! head (references, status, dates: what a list read shows), its guests and company, and the
//! date a list read selects on.

use chrono::{NaiveDate, NaiveDateTime};

/// The status of a live booking.
pub const RESERVED: &str = "Reserved";

/// The status of a cancelled booking, and the `RoomStayStatus` of a cancelled room.
pub const CANCELLED: &str = "Cancelled";

/// A company name with its optional code and short name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Company {
    /// The name.
    pub name: String,
    /// `Code`.
    pub code: Option<String>,
    /// `CompanyShortName`.
    pub short_name: Option<String>,
}

/// A guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guest {
    /// `ResGuestRPH`.
    pub rph: u64,
    /// `AgeQualifyingCode` (10 adult, 8 child, 7 infant, 11 senior).
    pub age_code: String,
    /// `BirthDate`.
    pub birth_date: Option<NaiveDate>,
    /// `NamePrefix`.
    pub prefix: Option<String>,
    /// `GivenName`.
    pub given: Option<String>,
    /// `Surname`.
    pub surname: Option<String>,
    /// `GuestCount@Age`.
    pub age: Option<u64>,
}

/// The references, status and dates of a booking: what a list read shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookingHead {
    /// Internal reference.
    pub internal_ref: String,
    /// Client reference.
    pub client_ref: String,
    /// The company of the Client reference.
    pub company: Option<Company>,
    /// Status.
    pub status: String,
    /// Created.
    pub created: NaiveDateTime,
    /// Last changed.
    pub updated: NaiveDateTime,
}

/// The date a list read selects on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListDate {
    /// The first arrival.
    Arrival,
    /// The last departure.
    Departure,
    /// The creation date.
    Created,
    /// The date of the last change.
    Updated,
}

/// The two kinds of booking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A hotel booking (`/hotelbook`, or an import).
    Hotel,
    /// An activity booking (`/activitybook`).
    Activity,
}

impl Kind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Hotel => "hotel",
            Kind::Activity => "activity",
        }
    }
}

/// The outcome of a Commit of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Committed<B> {
    /// A new booking, with its Internal reference.
    New(B),
    /// The booking already made with this Client reference, unchanged.
    Existing(B),
}
