//! What a hotel booking's change tells the suppliers of its hotels: one event per hotel of the
//! booking (before or after the change), the booking as it then stands for that hotel.

use std::collections::BTreeSet;

use crate::hotels::booking::Booking;
use crate::shared::events::EventKind;

/// The events of a change from `before` (none: a new booking) to `after`, by hotel code:
/// `new` for each hotel of a new booking, and for a hotel a change brings live rooms to (a room
/// moved there); `modified` for a hotel with live rooms before and after; `cancelled` for one
/// whose live rooms the change took away (the booking cancelled, its rooms there cancelled, or
/// moved to another hotel); nothing for a hotel with no live room before nor after.
pub fn events(before: Option<&Booking>, after: &Booking) -> Vec<(String, EventKind)> {
    let live = |b: &Booking, hotel: &str| !b.is_cancelled() && b.live_rooms().any(|r| r.hotel == hotel);
    let mut hotels: BTreeSet<&str> = after.rooms.iter().map(|r| r.hotel.as_str()).collect();
    if let Some(b) = before {
        hotels.extend(b.rooms.iter().map(|r| r.hotel.as_str()));
    }
    hotels
        .into_iter()
        .filter_map(|h| {
            let was = before.map(|b| live(b, h));
            let kind = match (was, live(after, h)) {
                (None, _) | (Some(false), true) => EventKind::New,
                (Some(true), true) => EventKind::Modified,
                (Some(true), false) => EventKind::Cancelled,
                (Some(false), false) => return None,
            };
            Some((h.to_string(), kind))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::hotels::booking::Room;
    use crate::shared::cancellation::Cancellation;

    fn room(hotel: &str) -> Room {
        let d = |s: &str| s.parse::<chrono::NaiveDate>().unwrap();
        Room::bare(hotel, "A", d("2030-06-01"), d("2030-06-02"))
    }

    fn booking(rooms: Vec<Room>) -> Booking {
        Booking::bare(rooms)
    }

    fn cancelled(mut r: Room) -> Room {
        r.cancelled = Some(Cancellation { at: "2030-05-01T00:00:00".parse().unwrap(), penalty: Default::default() });
        r
    }

    #[test]
    fn each_hotel_of_a_booking_is_told_what_happened_there() {
        let ev = |h: &str, k| (h.to_string(), k);
        let before = booking(vec![room("H1"), room("H1"), room("H2")]);
        assert_eq!(events(None, &before), vec![ev("H1", EventKind::New), ev("H2", EventKind::New)]);
        assert_eq!(events(Some(&before), &before), vec![ev("H1", EventKind::Modified), ev("H2", EventKind::Modified)]);
        // One room of H1 cancelled: H1's booking is modified; both of H2's cancelled: cancelled there.
        let after = booking(vec![cancelled(room("H1")), room("H1"), cancelled(room("H2"))]);
        assert_eq!(events(Some(&before), &after), vec![ev("H1", EventKind::Modified), ev("H2", EventKind::Cancelled)]);
        // H2 had nothing live left: a later change of the booking tells it nothing more.
        assert_eq!(events(Some(&after), &after), vec![ev("H1", EventKind::Modified)]);
        // A room moved from H2 to H3.
        let moved = booking(vec![room("H1"), room("H1"), room("H3")]);
        assert_eq!(
            events(Some(&before), &moved),
            vec![ev("H1", EventKind::Modified), ev("H2", EventKind::Cancelled), ev("H3", EventKind::New)]
        );
        // The booking cancelled.
        let mut gone = before.clone();
        gone.status = "Cancelled".into();
        assert_eq!(events(Some(&before), &gone), vec![ev("H1", EventKind::Cancelled), ev("H2", EventKind::Cancelled)]);
    }
}
