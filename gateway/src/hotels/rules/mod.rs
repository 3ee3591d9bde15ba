//! The business rules of the hotel operations, on domain values only: what a modify request
//! changes in the stored booking (minor, major, occupancy, differing data), the dates and
//! prices of changed room stays, the version check that stops lost updates.
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the modify rules: what a change is, its dates and prices, the version check |
//! | [`availability`] | what an availability request asks for, and the offers that answer it |
//! | [`reservation`] | the booking a `/hotelbook` request asks for, priced, with its penalties |
//! | [`inventory`] | which rooms a booking holds night by night, and what a change takes or gives back |
//! | [`supply`] | a supplier's notification: which values of one hotel it sets, and its answer |
//! | [`calendar`] | the calendar grid from the content and the supply values; an edit checked and turned into a notification |
//! | [`outbox`] | the events a hotel booking's change writes for the suppliers of its hotels |

pub mod availability;
pub mod calendar;
pub mod inventory;
pub mod outbox;
pub mod reservation;
pub mod supply;

use chrono::{NaiveDate, NaiveDateTime};
use ota_messages::common::ErrorCode;

use super::booking::{Booking, Room};
use super::catalogue::PriceError;
use crate::errors::Problem;

/// The request's booking, under every error `Tag`.
pub const BASE: &str = "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify";

/// The most nights of one room stay.
pub const MAX_NIGHTS: i64 = 30;
/// At most this many problems are reported for one request.
pub const MAX_PROBLEMS: usize = 20;

/// Checks that the request was built from the booking as stored now: its version stamp
/// ([`version_stamp`](crate::hotels::reader::modify::version_stamp), as read) must be the stored one, so a modify never undoes a change it
/// did not see. A Commit must carry it.
pub fn check_version(read_at: Option<NaiveDateTime>, stored: &Booking, commit: bool) -> Result<(), Problem> {
    let tag = format!("{BASE}/@LastUpdateDateTime");
    match read_at {
        None if commit => Err(Problem::required(
            "A Commit must send back the booking's version as read (/bookread HotelReservation@LastModifyDateTime, as HotelResModify@LastUpdateDateTime or @LastModifyDateTime), so that it cannot undo a change made since.",
        )
        .at(tag)),
        None => Ok(()),
        Some(at) if at == stored.updated => Ok(()),
        Some(at) => Err(Problem::biz(
            ErrorCode::RequestedActionNotPossible,
            format!(
                "Booking not changed – it was changed at {} after the version this request was built from ({at}); read it again and resend the change.",
                stored.updated
            ),
        )
        .at(tag)),
    }
}

/// The stamp of a change: now, but always after the previous one (the stamp is the version a
/// later modify must carry, so two changes never share one).
pub fn next_update(previous: NaiveDateTime, now: NaiveDateTime) -> NaiveDateTime {
    now.max(previous + chrono::Duration::seconds(1))
}

/// How far ahead a stay may start (days after today): five years.
pub const MAX_DAYS_AHEAD: i64 = 1830;

/// A stay (`span`: the path of its `TimeSpan` or `StayDateRange`): End after Start, not in the
/// past, at most [`MAX_DAYS_AHEAD`] days ahead, at most [`MAX_NIGHTS`] nights.
pub fn check_dates(start: NaiveDate, end: NaiveDate, today: NaiveDate, span: &str) -> Result<(), Problem> {
    if end <= start {
        return Err(Problem::biz(
            ErrorCode::InvalidStartEndDateCombination,
            format!("End {end} must be after Start {start}."),
        )
        .at(span));
    }
    if start < today {
        return Err(Problem::biz(ErrorCode::StartDateInvalid, format!("Start {start} is in the past."))
            .at(format!("{span}/@Start")));
    }
    if (start - today).num_days() > MAX_DAYS_AHEAD {
        return Err(Problem::biz(ErrorCode::StartDateInvalid, format!("Start {start} is more than {MAX_DAYS_AHEAD} days ahead; stays are sold up to {MAX_DAYS_AHEAD} days ahead."))
            .at(format!("{span}/@Start")));
    }
    let nights = (end - start).num_days();
    if nights > MAX_NIGHTS {
        return Err(Problem::biz(
            ErrorCode::TooManyNights,
            format!("A room stay has at most {MAX_NIGHTS} nights, not {nights}."),
        )
        .at(span));
    }
    Ok(())
}

/// The problem of a room stay that cannot be priced.
pub fn price_problem(e: &PriceError, r: &Room, currency: &str, tag: &str) -> Problem {
    let board_tag = format!("{tag}/RoomRates/RoomRate/Features/Feature/Description/Text");
    match e {
        PriceError::UnknownHotel => {
            Problem::biz(ErrorCode::InvalidHotelCode, format!("Hotel {} is not known.", r.hotel))
                .at(format!("{tag}/BasicPropertyInfo/@HotelCode"))
        }
        PriceError::UnknownRoomType => {
            Problem::biz(ErrorCode::InvalidRoomTypeCode, format!("Hotel {} has no room type {}.", r.hotel, r.room_type))
                .at(format!("{tag}/RoomTypes/RoomType/@RoomTypeCode"))
        }
        PriceError::UnknownBoard => {
            Problem::biz(ErrorCode::InvalidValue, format!("Board {} is not known.", r.board)).at(board_tag)
        }
        PriceError::BoardNotOffered => Problem::biz(
            ErrorCode::InvalidValue,
            format!("Room {} of hotel {} is not sold with board {} in {currency}.", r.room_type, r.hotel, r.board),
        )
        .at(board_tag),
        PriceError::NoRate(night) => Problem::biz(
            ErrorCode::NoAvailability,
            format!("Room {} with board {} is not available for the night of {night}.", r.room_type, r.board),
        )
        .at(format!("{tag}/TimeSpan")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(s: &str) -> NaiveDateTime {
        s.parse().unwrap()
    }

    #[test]
    fn a_change_stamp_always_moves_forward() {
        assert_eq!(next_update(at("2030-01-01T10:00:00"), at("2030-01-01T10:00:05")), at("2030-01-01T10:00:05"));
        assert_eq!(next_update(at("2030-01-01T10:00:05"), at("2030-01-01T10:00:05")), at("2030-01-01T10:00:06"));
        assert_eq!(next_update(at("2030-01-01T10:00:09"), at("2030-01-01T10:00:05")), at("2030-01-01T10:00:10"));
    }

    #[test]
    fn dates_of_a_changed_stay() {
        let d = |s: &str| s.parse::<NaiveDate>().unwrap();
        let today = d("2030-01-10");
        assert!(check_dates(d("2030-01-10"), d("2030-01-12"), today, "/t").is_ok());
        assert_eq!(
            check_dates(d("2030-01-09"), d("2030-01-12"), today, "/t").unwrap_err().code,
            ErrorCode::StartDateInvalid
        );
        assert_eq!(
            check_dates(d("2030-01-12"), d("2030-01-12"), today, "/t").unwrap_err().code,
            ErrorCode::InvalidStartEndDateCombination
        );
        assert_eq!(
            check_dates(d("2030-01-10"), d("2030-02-10"), today, "/t").unwrap_err().code,
            ErrorCode::TooManyNights
        );
        assert_eq!(
            check_dates(d("2035-01-15"), d("2035-01-16"), today, "/t").unwrap_err().tag.as_deref(),
            Some("/t/@Start")
        );
        assert!(check_dates(d("2035-01-14"), d("2035-01-16"), today, "/t").is_ok());
    }
}
