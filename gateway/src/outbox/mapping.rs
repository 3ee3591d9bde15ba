//! A booking as its supplier is told: `OTA_HotelResNotifRQ` (push) and the pull's answers.
//! (Temporary form until the spec of the notification messages is merged.)

use std::sync::Arc;

use crate::activities::catalogue::Catalogue as ActivityCatalogue;
use crate::activities::repo::Stored as ActivityStored;
use crate::hotels::booking::Booking as HotelBooking;
use crate::hotels::catalogue::Catalogue as HotelCatalogue;

use super::repo::EventRow;
use super::rules;

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

/// The notification of an event, as XML.
pub(crate) fn notification(e: &EventRow, _b: &Loaded, _c: &Catalogues) -> String {
    let id = rules::identity(&e.booking_ref, &e.hotel_code, e.seq);
    format!(
        r#"<OTA_HotelResNotifRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.000" EchoToken="{id}"><HotelReservations><HotelReservation/></HotelReservations></OTA_HotelResNotifRQ>"#
    )
}

/// Whether a receiver's answer acknowledges the notification (its `Success`).
pub fn acknowledges(body: &str, _identity: &str) -> Result<(), String> {
    if body.contains("<Success") { Ok(()) } else { Err("the answer is not a Success".into()) }
}
