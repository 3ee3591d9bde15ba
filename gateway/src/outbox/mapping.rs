//! A booking as its supplier is told: `OTA_HotelResNotifRQ` (push, hotel bookings) and the
//! bookings of the pull's `OTA_ResRetrieveRS` (hotel and activity bookings, in the form of the
//! booking read). A hotel booking is shown to a supplier with the room stays of the event's hotel
//! only (another supplier's rooms are not its business).

use std::sync::Arc;

use chrono::{DateTime, Timelike, Utc};
use ota_messages::booking_read::HotelReservation as ReadReservation;
use ota_messages::common::{IdContext, NotifUniqueId, ReservationIdCode, UniqueId};
use ota_messages::hotel_res_notif::{
    HotelResStatus, OtaHotelResNotifRq, OtaHotelResNotifRs, ResNotifAction, ResNotifHotelReservation,
    ResNotifHotelReservations,
};
use ota_messages::runtime::{self as rt, Message, Response};

use crate::activities::catalogue::Catalogue as ActivityCatalogue;
use crate::activities::mapping as activity_mapping;
use crate::activities::repo::bookings::Stored as ActivityStored;
use crate::hotels::booking::Booking as HotelBooking;
use crate::hotels::catalogue::Catalogue as HotelCatalogue;
use crate::hotels::mapping::{self as hotel_mapping, reservation as hotel_reservation};
use crate::shared::events::EventKind;
use crate::shared::lang::Languages;

use super::repo::events::EventRow;

/// The version of the notification messages (the spec's `OTA_HotelResNotifRQ`).
pub const VERSION: &str = "2016.1";

/// The content a notification names things from (hotel, room and activity names).
#[derive(Debug, Clone)]
pub struct Catalogues {
    /// The hotels.
    pub hotels: Arc<HotelCatalogue>,
    /// The activities.
    pub activities: Arc<ActivityCatalogue>,
}

/// The booking an event is about, as it stands now.
#[derive(Debug, Clone)]
pub(crate) enum Loaded {
    /// A hotel booking.
    Hotel(HotelBooking),
    /// An activity booking.
    Activity(ActivityStored),
}

/// A hotel booking as the supplier of `hotel` sees it: its room stays there (all of them when
/// none is there any more: a change moved them away).
pub(crate) fn for_hotel(b: &HotelBooking, hotel: &str) -> HotelBooking {
    let mut mine = b.clone();
    if b.rooms.iter().any(|r| r.hotel == hotel) {
        mine.rooms.retain(|r| r.hotel == hotel);
    }
    mine
}

/// The notification of a hotel booking's event `e` (the booking as it now stands), written
/// at `now`: `MessageID` the event's identity (its id: the same on every attempt),
/// `SequenceNmbr` its place among its booking's events for the hotel, `RetransmissionIndicator`
/// on a second or later attempt and on every attempt after a retry or a resend, `ResStatus` what happened (`Commit`, `Modify`, `Cancel`).
pub(crate) fn notification(e: &EventRow, b: &HotelBooking, c: &Catalogues, now: DateTime<Utc>) -> OtaHotelResNotifRq {
    let mine = for_hotel(b, &e.hotel_code);
    let booked = hotel_reservation::booked(&mine, &c.hotels, &Languages::new(None, None), false).hotel_reservation;
    let unique = |id: &str, context| UniqueId {
        r#type: ReservationIdCode::Booking,
        id: id.to_string(),
        id_context: Some(context),
        ..UniqueId::default()
    };
    OtaHotelResNotifRq {
        version: VERSION.into(),
        echo_token: Some(e.id.to_string()),
        time_stamp: Some(time_stamp(now)),
        sequence_nmbr: u64::try_from(e.seq).ok(),
        retransmission_indicator: Some(e.retransmission),
        res_status: match EventKind::parse(&e.event_kind) {
            Some(EventKind::New) => ResNotifAction::Commit,
            Some(EventKind::Modified) | None => ResNotifAction::Modify,
            Some(EventKind::Cancelled) => ResNotifAction::Cancel,
        },
        message_id: NotifUniqueId {
            r#type: "16".into(),
            id: e.id.to_string(),
            id_context: Some("GATEWAY".into()),
            ..NotifUniqueId::default()
        },
        hotel_reservations: ResNotifHotelReservations {
            hotel_reservation: ResNotifHotelReservation {
                create_date_time: Some(rt::DateTime::local(b.created)),
                last_modify_date_time: Some(rt::DateTime::local(b.updated)),
                res_status: Some(if b.is_cancelled() { HotelResStatus::Cancelled } else { HotelResStatus::Reserved }),
                unique_id: vec![unique(&b.internal_ref, IdContext::Internal), unique(&b.client_ref, IdContext::Client)],
                room_stays: booked.room_stays,
                services: booked.services,
                res_guests: booked.res_guests,
                res_global_info: booked.res_global_info,
            },
        },
        ..OtaHotelResNotifRq::default()
    }
}

/// A `TimeStamp`: UTC, whole seconds.
fn time_stamp(now: DateTime<Utc>) -> rt::DateTime {
    let local = now.naive_utc();
    rt::DateTime { local: local.with_nanosecond(0).unwrap_or(local), zone: Some(rt::Zone::Utc), fraction_digits: 0 }
}

/// Whether a receiver's answer acknowledges a notification: an `OTA_HotelResNotifRS` with
/// `Success`; else what it says instead.
pub fn acknowledges(body: &str) -> Result<(), String> {
    let rs =
        OtaHotelResNotifRs::from_xml(body).map_err(|e| format!("the answer is not an OTA_HotelResNotifRS: {e}"))?;
    if rs.is_success() {
        return Ok(());
    }
    let errors: Vec<String> = rs
        .errors
        .iter()
        .flat_map(|e| e.error.iter())
        .map(|e| e.short_text.clone().filter(|t| !t.is_empty()).unwrap_or_else(|| e.value.clone()))
        .collect();
    Err(format!("the receiver answered Errors: {}", errors.join("; ")))
}

/// A booking as a supplier's read shows it (the pull's, or a read by reference or dates): a
/// hotel booking with the room stays of `hotel` (as `/bookread` shows a booking), an activity
/// booking as `/bookread` shows one; names in `languages`.
pub(crate) fn read_entry(loaded: &Loaded, hotel: &str, c: &Catalogues, languages: &Languages) -> ReadReservation {
    match loaded {
        Loaded::Hotel(b) => hotel_mapping::hotel_reservation(&for_hotel(b, hotel), &c.hotels, languages),
        Loaded::Activity(s) => {
            let name = c
                .activities
                .activity(&s.booking.activity_id)
                .and_then(|a| languages.pick(&a.texts))
                .map(|(_, t)| t.name.as_str());
            activity_mapping::read_reservation(s, name)
        }
    }
}
