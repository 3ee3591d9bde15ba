//! What a hotel booking's change tells the suppliers of its hotels: one event per hotel of the
//! booking (before or after the change), the booking as it then stands for that hotel.

use std::collections::BTreeSet;

use crate::hotels::booking::Booking;
use crate::shared::events::EventKind;

/// The events of a change from `before` (none: a new booking) to `after`, by hotel code:
/// `new` for each hotel of a new booking; then `modified` for a hotel with live rooms after the
/// change, `cancelled` for one whose live rooms the change took away (the booking cancelled, its
/// rooms there cancelled, or moved to another hotel); nothing for a hotel that had no live
/// room before and has none after.
pub fn events(before: Option<&Booking>, after: &Booking) -> Vec<(String, EventKind)> {
    let live = |b: &Booking, hotel: &str| !b.is_cancelled() && b.live_rooms().any(|r| r.hotel == hotel);
    let mut hotels: BTreeSet<&str> = after.rooms.iter().map(|r| r.hotel.as_str()).collect();
    if let Some(b) = before {
        hotels.extend(b.rooms.iter().map(|r| r.hotel.as_str()));
    }
    hotels
        .into_iter()
        .filter_map(|h| {
            let kind = match before {
                None => EventKind::New,
                Some(_) if live(after, h) => EventKind::Modified,
                Some(b) if live(b, h) => EventKind::Cancelled,
                Some(_) => return None,
            };
            Some((h.to_string(), kind))
        })
        .collect()
}
