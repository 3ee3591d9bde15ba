//! Which rooms a booking holds, night by night, and what a change of it takes from or gives
//! back to the hotel's inventory. Pure: the repo applies the change in the booking's own
//! transaction.

use chrono::{Days, NaiveDate};

use ota_messages::common::ErrorCode;

use crate::errors::Problem;
use crate::hotels::booking::{Booking, Room};
pub use crate::hotels::booking::{Night, Rooms};
use crate::hotels::catalogue::{Catalogue, SuppliedRoom};

/// The nights of a stay: from its start to the day before its end.
pub fn nights(start: NaiveDate, end: NaiveDate) -> impl Iterator<Item = NaiveDate> {
    std::iter::successors(Some(start), |d| d.checked_add_days(Days::new(1))).take_while(move |d| *d < end)
}

/// The rooms one room stay holds.
fn add_room(out: &mut Rooms, r: &Room, sign: i64) {
    for night in nights(r.start, r.end) {
        *out.entry(Night { hotel: r.hotel.clone(), room_type: r.base_room_type().to_string(), night }).or_default() +=
            sign;
    }
}

/// The rooms a booking holds: those of its live room stays (none once it is cancelled).
pub fn held(b: &Booking) -> Rooms {
    let mut out = Rooms::new();
    if !b.is_cancelled() {
        for r in b.live_rooms() {
            add_room(&mut out, r, 1);
        }
    }
    out
}

/// What turning `before` into `after` takes (positive) and gives back (negative); `None` for
/// a booking that did not exist before, or does not after. Nights that do not change are
/// left out.
pub fn change(before: Option<&Booking>, after: Option<&Booking>) -> Rooms {
    let mut out = after.map(held).unwrap_or_default();
    for (night, n) in before.map(held).unwrap_or_default() {
        *out.entry(night).or_default() -= n;
    }
    out.retain(|_, n| *n != 0);
    out
}

/// The rooms a change takes (positive), night by night; what it gives back is left out.
fn taken(change: &Rooms) -> impl Iterator<Item = (&Night, i64)> {
    change.iter().filter(|(_, n)| **n > 0).map(|(night, &n)| (night, n))
}

/// Rooms of a type left on a night: what the hotel puts on sale (its supplier's count, else the
/// content's), less what `sold` holds (the rooms sold, read from the database); never below
/// zero.
pub fn left_on(room: SuppliedRoom<'_>, night: &Night, sold: &Rooms) -> i64 {
    (i64::from(room.on_sale(night.night)) - sold.get(night).copied().unwrap_or(0)).max(0)
}

/// Where a change takes more rooms than are left (see [`left_on`]): the first such night, with
/// the rooms left on it (`None`: the content no longer has the room type).
pub fn first_short<'a>(change: &'a Rooms, hotels: &Catalogue, sold: &Rooms) -> Option<(&'a Night, Option<i64>)> {
    taken(change).find_map(|(night, n)| {
        match hotels.hotel(&night.hotel).and_then(|h| Some((h, h.room(&night.room_type)?))) {
            None => Some((night, None)),
            Some((hotel, room)) => {
                let left = left_on(hotel.supplied(room), night, sold);
                (left < n).then_some((night, Some(left)))
            }
        }
    })
}

/// The hotels and the first and last night a change takes rooms on (`None`: it takes none).
pub fn taken_span(change: &Rooms) -> Option<(Vec<&str>, NaiveDate, NaiveDate)> {
    let first = taken(change).map(|(n, _)| n.night).min()?;
    let last = taken(change).map(|(n, _)| n.night).max()?;
    let mut hotels: Vec<&str> = taken(change).map(|(n, _)| n.hotel.as_str()).collect();
    hotels.sort_unstable();
    hotels.dedup();
    Some((hotels, first, last))
}

/// The first room stay (0-based) of a booking holding a room type on a night: where an error
/// about that night points.
pub fn room_of(b: &Booking, n: &Night) -> Option<usize> {
    b.rooms.iter().position(|r| {
        r.is_live() && r.hotel == n.hotel && r.base_room_type() == n.room_type && r.start <= n.night && n.night < r.end
    })
}

/// The answer when a change wants more rooms of a type on a night than are left (`left`), or
/// a room type no longer sold (`left` is `None`); `room_stays` is the tag of the request's
/// room stays, the error points at the first one holding that night.
pub fn not_left(b: &Booking, n: &Night, left: Option<i64>, room_stays: &str) -> Problem {
    let tag = match room_of(b, n) {
        Some(i) => format!("{room_stays}/RoomStay[{}]", i + 1),
        None => room_stays.to_string(),
    };
    let text = match left {
        Some(0) => format!("Room type {} of hotel {} is sold out on the night of {}.", n.room_type, n.hotel, n.night),
        Some(left) => format!(
            "Only {left} room(s) of type {} of hotel {} are left on the night of {}.",
            n.room_type, n.hotel, n.night
        ),
        None => format!("Room type {} of hotel {} is no longer sold.", n.room_type, n.hotel),
    };
    Problem::biz(ErrorCode::NoAvailability, text).at(tag)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeMap;

    use super::*;
    use crate::shared::cancellation::Cancellation;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    fn room(room_type: &str, start: &str, end: &str) -> Room {
        Room::bare("H", room_type, d(start), d(end))
    }

    fn booking(rooms: Vec<Room>) -> Booking {
        Booking::bare(rooms)
    }

    fn key(room_type: &str, night: &str) -> Night {
        Night { hotel: "H".into(), room_type: room_type.into(), night: d(night) }
    }

    #[test]
    fn a_change_of_dates_takes_the_new_nights_and_gives_back_the_old() {
        let before = booking(vec![room("A;CT1", "2030-06-01", "2030-06-03"), room("A", "2030-06-01", "2030-06-02")]);
        assert_eq!(
            held(&before),
            Rooms::from([(key("A", "2030-06-01"), 2), (key("A", "2030-06-02"), 1)]),
            "the suffix is not a room type"
        );
        let mut after = before.clone();
        after.rooms[0].start = d("2030-06-02");
        after.rooms[0].end = d("2030-06-04");
        assert_eq!(
            change(Some(&before), Some(&after)),
            Rooms::from([(key("A", "2030-06-01"), -1), (key("A", "2030-06-03"), 1)])
        );
        assert_eq!(room_of(&after, &key("A", "2030-06-03")), Some(0));
    }

    /// Hotel H with room type A (2 on sale, 0 on 2030-06-02 by an allotment).
    fn catalogue() -> Catalogue {
        use crate::hotels::catalogue::{Allotment, Hotel, RoomType, Texts};
        let room = RoomType {
            code: "A".into(),
            texts: Texts::new(),
            units: 2,
            max_guests: None,
            allotment: vec![Allotment { from: d("2030-06-02"), to: d("2030-06-02"), units: 0 }],
        };
        let hotel = Hotel::bare("H", vec![room]);
        Catalogue::new([hotel], BTreeMap::new())
    }

    #[test]
    fn rooms_are_short_where_the_content_puts_fewer_on_sale_than_are_sold_and_taken() {
        let hotels = catalogue();
        let take = |room_type: &str, night: &str, n: i64| Rooms::from([(key(room_type, night), n)]);
        let sold = Rooms::from([(key("A", "2030-06-01"), 1)]);
        assert_eq!(first_short(&take("A", "2030-06-01", 1), &hotels, &sold), None, "2 on sale, 1 sold: 1 left");
        assert_eq!(first_short(&take("A", "2030-06-01", 2), &hotels, &sold), Some((&key("A", "2030-06-01"), Some(1))));
        assert_eq!(
            first_short(&take("A", "2030-06-02", 1), &hotels, &sold),
            Some((&key("A", "2030-06-02"), Some(0))),
            "the allotment wins"
        );
        assert_eq!(first_short(&take("A", "2030-06-03", 2), &hotels, &sold), None);
        assert_eq!(
            first_short(&take("B", "2030-06-03", 1), &hotels, &sold),
            Some((&key("B", "2030-06-03"), None)),
            "no such room type"
        );
        assert_eq!(first_short(&take("A", "2030-06-02", -1), &hotels, &sold), None, "giving back never falls short");

        let change =
            Rooms::from([(key("A", "2030-06-05"), -1), (key("A", "2030-06-03"), 1), (key("A", "2030-06-04"), 1)]);
        assert_eq!(
            taken_span(&change),
            Some((vec!["H"], d("2030-06-03"), d("2030-06-04"))),
            "nights given back are not read"
        );
        assert_eq!(taken_span(&take("A", "2030-06-03", -1)), None);
    }

    #[test]
    fn cancelled_rooms_and_bookings_hold_nothing() {
        let before = booking(vec![room("A", "2030-06-01", "2030-06-02"), room("B", "2030-06-01", "2030-06-02")]);
        let mut after = before.clone();
        after.rooms[1].cancelled =
            Some(Cancellation { at: d("2030-05-01").and_time(chrono::NaiveTime::MIN), penalty: Default::default() });
        assert_eq!(change(Some(&before), Some(&after)), Rooms::from([(key("B", "2030-06-01"), -1)]));
        after.status = "Cancelled".into();
        assert_eq!(change(Some(&before), Some(&after)).values().sum::<i64>(), -2);
        assert_eq!(change(None, Some(&before)).len(), 2);
        assert!(change(Some(&before), Some(&before)).is_empty());
    }
}
