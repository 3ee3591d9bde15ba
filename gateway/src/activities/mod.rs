//! The activity operations: search (`/activitysearch`), availability
//! (`/activityavailability`), activity NBC (`/activitynbc`) and booking (`/activitybook`).
//!
//! | file | layer |
//! |---|---|
//! | [`handlers`] | the four operations, thin |
//! | [`reader`] | the requests read into domain values: the search and availability selections, the booking asked for |
//! | [`rules`] | pure checks and pricing: date ranges, locations, the party, bookings, offers |
//! | `repo` | all SQL: the catalogue, places booked, bookings, imports |
//! | [`import`] | the `activities` part of an import file |
//! | [`catalogue`] | the catalogue in memory (part of the content snapshot) |
//! | [`mapping`] | domain values → OTA messages |
//! | [`booking`] | the booking as the domain knows it |
//!
//! Business rules (see `gateway/README.md`, "A booking's whole life" and "Import file: activities"):
//! - Search and availability cover at most 28 days (inclusive), from today on; the Source
//!   location's `HotelCode` selects the activities near that hotel, the Service location's
//!   `Product` one activity (by `TourActivityID` or `SupplierProductCode`); both give the union.
//! - Nothing is offered, found or booked more than 730 days ahead
//!   ([`rules::MAX_DAYS_AHEAD`]), nor a service that has begun (for a transfer: whose pickup
//!   time has passed); a pickup may not be after the activity's start.
//! - Places left of a service on a date = the places offered then − the places booked.
//! - Quote prices and checks the places and stores nothing. Commit books once per (requestor,
//!   Client reference): a repeat answers the same booking; concurrent Commits never take more
//!   places than offered, on one gateway or many. Cancellation: free until 48 hours before
//!   the start, then 100 %.

pub mod booking;
pub mod catalogue;
pub mod handlers;
pub mod import;
pub mod mapping;
pub mod reader;
pub(crate) mod repo;
pub mod rules;

pub use handlers::{availability, book, descriptive_info, search};

use std::sync::Arc;

use chrono::NaiveDate;

use crate::store::recent::RecentReads;

/// The activity area's part of the gateway that a request is served with: the activities of
/// the content snapshot it started with, and what the area keeps in memory between requests.
#[derive(Debug, Clone)]
pub struct Area {
    /// The activity catalogue of the request's content snapshot.
    pub catalogue: Arc<catalogue::Catalogue>,
    /// What the area keeps in memory (one per gateway).
    pub kept: Arc<Kept>,
}

/// What the activity operations keep in memory between requests (one per gateway).
#[derive(Debug, Default)]
pub struct Kept {
    /// The places booked per activity, product, service and date that availability read
    /// recently (see [`crate::store::recent`]), keyed by the activities and the first and last
    /// date asked for.
    pub(crate) places_booked: RecentReads<(Vec<String>, NaiveDate, NaiveDate), repo::places::BookedPlaces>,
}
