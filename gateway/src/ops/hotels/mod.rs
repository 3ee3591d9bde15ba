//! The hotel operations: hotel NBC (`/hotelnbc`), booking read (`/bookread`) and booking
//! modify (`/bookmodify`), with the `hotels` section of the import file.
//!
//! | file | what |
//! |---|---|
//! | `content.rs` | [`Content`] (the import section), [`store`], [`DEMO`] |
//! | `booking.rs` | [`Booking`], the stored booking, and its message shapes |
//! | `repo.rs` | database access: find, load and save bookings, prices |
//! | `descriptive.rs` | [`descriptive_info`] |
//! | `read.rs` | [`read`] |
//! | `modify.rs` | [`modify`]: the comparison of a request with the stored booking |
//!
//! Decisions:
//! - A booking is visible to its owner (the requestor that made it) only; another requestor's
//!   reference is answered as not found (Code 97), never as "not owned" (99), so references
//!   cannot be probed.
//! - `/hotelnbc` sets `TransactionIdentifier` to the range of the contents (`1-N/N`); the
//!   dispatcher's envelope may override it with the request's identifier.
//! - Prices are per room and night, by room type, board and currency, independent of the
//!   number of guests. Amounts are exact decimals with two places.

mod booking;
mod content;
mod descriptive;
mod lang;
mod modify;
mod read;
mod repo;

pub use booking::{
    Booking, Comment, Company, Guest, ItemRef, LangText, Room, RoomReference, RoomSource, Service, TransferLeg, TransferPoint,
    Transport, modify_payload,
};
pub use content::{
    Amount, Board, Content, DEMO, GeoPosition, Hotel, HotelAddress, HotelPhone, HotelText, Image, ImageFile, ImageText, MAX_ROOMS, Rate,
    RoomText, RoomTypeContent, store,
};
pub use descriptive::descriptive_info;
pub use modify::{MAX_NIGHTS, modify};
pub use read::read;
