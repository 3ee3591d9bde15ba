//! Unit tests of the parent module.

#![allow(clippy::unwrap_used)]
use super::*;

fn d(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

#[test]
fn past_supply_is_dropped_copying_only_the_hotels_that_had_some() {
    use crate::hotels::supply::Stamped;
    let with = |code: &str, night: &str| {
        let mut h = Hotel::bare(code, vec![]);
        let mut room = RoomSupply::default();
        room.rooms.insert(d(night), Stamped { value: Some(1), stamp: chrono::DateTime::<chrono::Utc>::UNIX_EPOCH });
        h.supply = Arc::new(HotelSupply { rooms: HashMap::from([("R".to_string(), room)]) });
        h
    };
    let cat = Catalogue::new(
        [with("OLD", "2030-05-01"), with("NEW", "2030-06-01"), Hotel::bare("NONE", vec![])],
        BTreeMap::new(),
    );
    let dropped = cat.dropping_supply_before(d("2030-05-15"));
    assert_eq!(dropped.supply_from, d("2030-05-15"));
    assert!(dropped.hotel("OLD").unwrap().supply.is_empty());
    assert!(!Arc::ptr_eq(&cat.hotels["OLD"], &dropped.hotels["OLD"]));
    assert!(Arc::ptr_eq(&cat.hotels["NEW"], &dropped.hotels["NEW"]), "a hotel without past values is not copied");
    assert!(Arc::ptr_eq(&cat.hotels["NONE"], &dropped.hotels["NONE"]));
    assert_eq!(dropped.hotel("NEW").unwrap().supply, cat.hotel("NEW").unwrap().supply);
}

#[test]
fn the_rate_starting_last_wins_night_by_night() {
    let rate = |from: &str, to: &str, cents: i64| Rate {
        room: "R".into(),
        board: "BB".into(),
        currency: "EUR".into(),
        from: d(from),
        to: d(to),
        nightly: Decimal::new(cents, 2),
    };
    let room = RoomType {
        code: "R".into(),
        texts: Texts::new(),
        units: 3,
        max_guests: Some(2),
        allotment: vec![
            Allotment { from: d("2030-07-01"), to: d("2030-07-31"), units: 1 },
            Allotment { from: d("2030-07-10"), to: d("2030-07-12"), units: 0 },
        ],
    };
    let h = Hotel {
        rates: vec![rate("2030-01-01", "2030-12-31", 10000), rate("2030-07-01", "2030-07-31", 15000)],
        ..Hotel::bare("H", vec![room])
    };
    let r = &h.rooms[0];
    assert_eq!(
        (
            r.on_sale(d("2030-06-30")),
            r.on_sale(d("2030-07-01")),
            r.on_sale(d("2030-07-11")),
            r.on_sale(d("2030-07-13"))
        ),
        (3, 1, 0, 1)
    );
    assert!(r.fits(2) && !r.fits(3));
    let cat = Catalogue::new([h], [("BB".to_string(), "Bed and breakfast".to_string())].into());
    // 30 June at 100, 1–2 July at 150.
    assert_eq!(cat.price("H", "R", "BB", "EUR", (d("2030-06-30"), d("2030-07-03")), 2), Ok(Decimal::new(40000, 2)));
    assert_eq!(cat.price("H", "R", "HB", "EUR", (d("2030-06-30"), d("2030-07-03")), 2), Err(PriceError::UnknownBoard));
    assert_eq!(
        cat.price("H", "R", "BB", "USD", (d("2030-06-30"), d("2030-07-03")), 2),
        Err(PriceError::BoardNotOffered)
    );
    assert_eq!(
        cat.price("H", "X", "BB", "EUR", (d("2030-06-30"), d("2030-07-03")), 2),
        Err(PriceError::UnknownRoomType)
    );
    assert_eq!(cat.price("Z", "R", "BB", "EUR", (d("2030-06-30"), d("2030-07-03")), 2), Err(PriceError::UnknownHotel));
    assert_eq!(
        cat.price("H", "R", "BB", "EUR", (d("2030-12-31"), d("2031-01-02")), 2),
        Err(PriceError::NoRate(d("2031-01-01")))
    );
}
