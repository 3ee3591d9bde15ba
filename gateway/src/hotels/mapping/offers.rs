//! Hotel availability offers → `OTA_HotelAvailRS` room stays.

use chrono::Days;
use ota_messages::common::DateSpan;
use ota_messages::hotel_avail as av;
use ota_messages::runtime as rt;
use rust_decimal::Decimal;

use super::{board_feature, item_penalties, parse_open, property, room_types, total};
use crate::hotels::rules::availability::{GuestCount, Offer};
use crate::shared::lang::Languages;

/// The nightly rates of a stay: one `Rate` per night (`RateTimeUnit` Day), its price as
/// `Base` and `Total`.
pub fn night_rates(nights: &[(chrono::NaiveDate, Decimal)], currency: &str) -> Vec<av::RoomNightRate> {
    nights
        .iter()
        .map(|(night, price)| av::RoomNightRate {
            effective_date: rt::Date(*night),
            expire_date: night.checked_add_days(Days::new(1)).map(rt::Date),
            expire_date_exclusive_ind: Some(true),
            rate_time_unit: Some(av::RateTimeUnit::Day),
            unit_multiplier: Some(1),
            base: Some(total(currency, *price)),
            additional_guest_amounts: None,
            total: Some(total(currency, *price)),
        })
        .collect()
}

/// One offer as a `RoomStay`, numbered `rph` within the answer; `with_breakdown` adds the rate
/// of each night.
pub fn room_stay(
    o: &Offer<'_>,
    rph: u64,
    guests: &[GuestCount],
    (start, end): (chrono::NaiveDate, chrono::NaiveDate),
    languages: &Languages,
    with_breakdown: bool,
) -> av::AvailRoomStay {
    av::AvailRoomStay {
        room_stay_candidate_rph: Some(o.rph),
        rph: Some(rph),
        room_types: room_types(&o.room.code, Some(o.room), languages),
        room_rates: av::OfferRoomRates {
            room_rate: vec![av::OfferRoomRate {
                room_type_code: o.room.code.clone(),
                rates: with_breakdown.then(|| av::RoomNightRates { rate: night_rates(&o.nights, o.currency) }),
                features: board_feature(o.board),
                total: Some(total(o.currency, o.total)),
            }],
        },
        guest_counts: av::OccupancyGuestCounts {
            guest_count: guests
                .iter()
                .map(|g| av::OccupancyGuestCount {
                    age_qualifying_code: g.age_code.as_deref().map(parse_open),
                    age: g.age,
                    count: g.count,
                })
                .collect(),
        },
        time_span: DateSpan { start: rt::Date(start), end: rt::Date(end) },
        cancel_penalties: Some(item_penalties(&o.penalties, o.total, o.currency)),
        total: total(o.currency, o.total),
        basic_property_info: property(&o.hotel.code, Some(o.hotel)),
    }
}
