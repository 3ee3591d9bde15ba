//! The activity booking as the domain knows it: the service booked (its key), the date and
//! times, the participants, the pickup, the price and the references. Read by the reader from a
//! request, priced by the rules, stored by the repo, written by the mapping.

use chrono::{NaiveDate, NaiveDateTime};
use rust_decimal::Decimal;

/// The key of a service in the places booked: activity, product and service codes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServiceKey {
    /// `TourActivityID`.
    pub activity_id: String,
    /// `SupplierProductCode`.
    pub product_code: String,
    /// `SupplierServiceCode`.
    pub service_code: String,
}

/// A priced activity booking: what a Quote answers and a Commit stores.
#[derive(Debug, Clone, PartialEq)]
pub struct Booking {
    /// The Internal reference (after a Commit).
    pub reference: Option<String>,
    /// The partner's reference.
    pub client_reference: Option<String>,
    /// `TourActivityID`.
    pub activity_id: String,
    /// `SupplierProductCode`.
    pub product_code: String,
    /// `SupplierServiceCode`.
    pub service_code: String,
    /// The date of the session.
    pub service_date: NaiveDate,
    /// Start (the pickup, for a transfer).
    pub start: NaiveDateTime,
    /// End (the return, for a transfer).
    pub end: NaiveDateTime,
    /// The price of the whole booking.
    pub total: Decimal,
    /// Its currency.
    pub currency: String,
    /// The participants.
    pub participants: Vec<Participant>,
    /// The pickup of a transfer.
    pub pickup: Option<Pickup>,
}

impl Booking {
    /// The service booked.
    pub fn service_key(&self) -> ServiceKey {
        ServiceKey {
            activity_id: self.activity_id.clone(),
            product_code: self.product_code.clone(),
            service_code: self.service_code.clone(),
        }
    }

    /// The end of free cancellation.
    pub fn free_cancellation_until(&self) -> NaiveDateTime {
        self.start - chrono::Duration::hours(FREE_CANCELLATION_HOURS)
    }
}

/// A participant of a booking, with its price.
#[derive(Debug, Clone, PartialEq)]
pub struct Participant {
    /// `ParticipantID` (unique in the booking).
    pub participant_id: i64,
    /// Participant category (AQC code).
    pub category: String,
    /// Age.
    pub age: Option<i64>,
    /// `NamePrefix`.
    pub name_prefix: Option<String>,
    /// `GivenName`.
    pub given_name: Option<String>,
    /// `Surname`.
    pub surname: Option<String>,
    /// The participant's price.
    pub amount: Decimal,
}

/// The pickup of a transfer booking.
#[derive(Debug, Clone, PartialEq)]
pub struct Pickup {
    /// When (local).
    pub date_time: NaiveDateTime,
    /// Where (the hotel code).
    pub location_name: String,
    /// `PickupInd`.
    pub pickup_ind: bool,
}

/// Free cancellation until this long before the start; 100 % after.
pub const FREE_CANCELLATION_HOURS: i64 = 48;
