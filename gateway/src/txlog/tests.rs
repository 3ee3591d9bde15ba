//! Unit tests of the parent module.

#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn levels_and_samples() {
    assert_eq!(Level::parse("bookings").unwrap(), Level::Bookings);
    assert!(Level::parse("some").is_err());
    assert_eq!(Sample::parse("0.1").unwrap().ppm(), 100_000);
    assert_eq!(Sample::parse("10%").unwrap().ppm(), 100_000);
    assert!(Sample::parse("2").is_err());
    assert_eq!(Sample::parse("0.1").unwrap().to_string(), "0.1");
    let all = Policy { level: Level::All, sample: Sample::from_ppm(0) };
    assert!(all.wants("hotelbook", false) && all.wants("activitysearch", true) && !all.wants("activitysearch", false));
    let bookings = Policy { level: Level::Bookings, sample: Sample::ALL };
    assert!(bookings.wants("bookread", false) && !bookings.wants("hotelnbc", false));
    let errors = Policy { level: Level::Errors, sample: Sample::ALL };
    assert!(errors.wants("hotelnbc", true) && !errors.wants("hotelbook", false));
    assert!(!Policy::default().wants("hotelbook", true));
}

#[test]
fn the_byte_rate_holds_within_a_second() {
    let mut b = Bucket::new(100.0, 100.0);
    assert!(b.take(60) && !b.take(60) && b.take(40) && !b.take(1));
    b.at -= Duration::from_secs(1);
    assert!(b.take(100));
}

#[test]
fn purges_are_more_frequent_for_short_retentions() {
    let s = |r| Settings { retention: Some(r), ..Settings::default() };
    assert_eq!(s(Duration::from_secs(2)).purge_every(), Duration::from_secs(1));
    assert_eq!(s(DEFAULT_RETENTION).purge_every(), Duration::from_secs(3600));
}
