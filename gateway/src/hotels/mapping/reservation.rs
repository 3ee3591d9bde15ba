//! A hotel booking → `OTA_HotelResRS` (`/hotelbook`).

use ota_messages::common::{AgeQualifyingCode, DateSpan, IdContext, ResIdSourceContext, ReservationIdCode, UniqueId};
use ota_messages::hotel_avail as av;
use ota_messages::hotel_res as res;
use ota_messages::hotel_res_modify as m;
use ota_messages::runtime as rt;
use rust_decimal::Decimal;

use super::offers::night_rates;
use super::{
    board_feature, booking_penalties, comments_element, guest_profiles, item_penalties, parse_open, property,
    room_types, rph_list, total,
};
use crate::hotels::booking::{Booking, Guest, Room};
use crate::hotels::catalogue::Catalogue;
use crate::shared::cancellation::cents;
use crate::shared::lang::Languages;

/// Each guest's share of a room's price: equal shares in cents, the first guests taking the
/// cents left over, so that the shares add up to the price.
pub fn guest_shares(price: Decimal, guests: usize) -> Vec<Decimal> {
    if guests == 0 {
        return Vec::new();
    }
    let n = Decimal::from(guests as u64);
    let share = (price / n).trunc_with_scale(2);
    let mut left = price - share * n;
    (0..guests)
        .map(|_| {
            let extra = if left > Decimal::ZERO { Decimal::new(1, 2).min(left) } else { Decimal::ZERO };
            left -= extra;
            cents(share + extra)
        })
        .collect()
}

/// The rates of a room stay with `PriceBreakdown`: one per night from the catalogue, then the
/// whole stay (`FullDuration`) with each guest's share. `None` when the nightly rates no longer
/// add up to the price booked (the rates changed since): the booked price stands alone.
fn breakdown(r: &Room, b: &Booking, catalogue: &Catalogue) -> Option<av::RoomNightRates> {
    let price = r.total?;
    let nights = catalogue
        .hotel(&r.hotel)?
        .nightly(
            r.base_room_type(),
            &r.board,
            &b.currency,
            (r.start, r.end),
            u32::try_from(r.guests.len()).unwrap_or(u32::MAX),
        )
        .ok()?;
    if nights.iter().map(|(_, p)| *p).sum::<Decimal>() != price {
        return None;
    }
    let mut rate = night_rates(&nights, &b.currency);
    let guests: Vec<&Guest> = r.guests.iter().filter_map(|rph| b.guests.iter().find(|g| g.rph == *rph)).collect();
    let additional_guest_amount = guests
        .iter()
        .zip(guest_shares(price, guests.len()))
        .map(|(g, share)| av::GuestAmount {
            age_qualifying_code: Some(parse_open::<AgeQualifyingCode>(&g.age_code)),
            rph: Some(g.rph),
            amount: total(&b.currency, share),
        })
        .collect();
    rate.push(av::RoomNightRate {
        effective_date: rt::Date(r.start),
        expire_date: Some(rt::Date(r.end)),
        expire_date_exclusive_ind: Some(true),
        rate_time_unit: Some(av::RateTimeUnit::FullDuration),
        unit_multiplier: Some(1),
        base: None,
        additional_guest_amounts: Some(av::GuestAmounts { additional_guest_amount }),
        total: Some(total(&b.currency, price)),
    });
    Some(av::RoomNightRates { rate })
}

/// The guests of a room by age category (`Count`), a child's or infant's age given.
fn guest_counts(r: &Room, b: &Booking) -> av::OccupancyGuestCounts {
    let mut guest_count: Vec<av::OccupancyGuestCount> = Vec::new();
    for g in r.guests.iter().filter_map(|rph| b.guests.iter().find(|g| g.rph == *rph)) {
        let code = parse_open::<AgeQualifyingCode>(&g.age_code);
        let age = if matches!(g.age_code.as_str(), "7" | "8") { g.age } else { None };
        match guest_count.iter_mut().find(|c| c.age_qualifying_code.as_ref() == Some(&code) && c.age == age) {
            Some(c) => c.count = Some(c.count.unwrap_or(0) + 1),
            None => guest_count.push(av::OccupancyGuestCount { age_qualifying_code: Some(code), age, count: Some(1) }),
        }
    }
    av::OccupancyGuestCounts { guest_count }
}

fn room_stay(
    r: &Room,
    b: &Booking,
    catalogue: &Catalogue,
    languages: &Languages,
    with_breakdown: bool,
) -> res::BookedRoomStay {
    let hotel = catalogue.hotel(&r.hotel);
    let price = r.total.unwrap_or_default();
    res::BookedRoomStay {
        index_number: r.index.unwrap_or_default(),
        room_types: room_types(&r.room_type, hotel.and_then(|h| h.room(r.base_room_type())), languages),
        room_rates: av::OfferRoomRates {
            room_rate: vec![av::OfferRoomRate {
                room_type_code: r.room_type.clone(),
                rates: if with_breakdown { breakdown(r, b, catalogue) } else { None },
                features: board_feature(&r.board),
                total: Some(total(&b.currency, price)),
            }],
        },
        guest_counts: Some(guest_counts(r, b)),
        time_span: DateSpan { start: rt::Date(r.start), end: rt::Date(r.end) },
        cancel_penalties: Some(item_penalties(&r.penalties, price, &b.currency)),
        total: total(&b.currency, price),
        basic_property_info: property(&r.hotel, hotel),
        res_guest_rphs: (!r.guests.is_empty())
            .then(|| r.guests.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")),
        service_rphs: rph_list(&r.services).map(|service_rph| m::ServiceRphs { service_rph }),
        reference: r.reference.as_ref().and_then(|x| x.id.clone()).map(|id| UniqueId {
            r#type: ReservationIdCode::Item,
            id,
            id_context: Some(IdContext::Internal),
            ..UniqueId::default()
        }),
    }
}

fn res_guest(g: &Guest) -> res::BookResGuest {
    res::BookResGuest {
        res_guest_rph: g.rph,
        age_qualifying_code: parse_open::<AgeQualifyingCode>(&g.age_code),
        profiles: guest_profiles(g),
        guest_counts: g.age.map(|age| av::OccupancyGuestCounts {
            guest_count: vec![av::OccupancyGuestCount { age_qualifying_code: None, age: Some(age), count: Some(1) }],
        }),
    }
}

/// A booking as quoted (no Internal reference yet) or made: its rooms, services, guests,
/// penalties, total and references; `with_breakdown` adds the rates per night and per guest.
pub fn booked(
    b: &Booking,
    catalogue: &Catalogue,
    languages: &Languages,
    with_breakdown: bool,
) -> res::BookedHotelReservations {
    let hotel_code = b.rooms.first().map(|r| r.hotel.clone()).unwrap_or_default();
    let mut ids = Vec::new();
    if !b.client_ref.is_empty() {
        ids.push(res::BookingReservationId {
            res_id_type: ReservationIdCode::Booking,
            res_id_value: b.client_ref.clone(),
            res_id_source_context: ResIdSourceContext::Client,
        });
    }
    if !b.internal_ref.is_empty() {
        ids.push(res::BookingReservationId {
            res_id_type: ReservationIdCode::Booking,
            res_id_value: b.internal_ref.clone(),
            res_id_source_context: ResIdSourceContext::Internal,
        });
    }
    res::BookedHotelReservations {
        hotel_reservation: res::BookedHotelReservation {
            room_stays: res::BookedRoomStays {
                room_stay: b.rooms.iter().map(|r| room_stay(r, b, catalogue, languages, with_breakdown)).collect(),
            },
            services: (!b.services.is_empty()).then(|| res::BookedServices {
                service: b
                    .services
                    .iter()
                    .map(|s| res::BookedService {
                        service_inventory_code: s.code.clone(),
                        service_rph: s.rph,
                        r#type: ReservationIdCode::Other("16".into()),
                        id: s.code.clone(),
                    })
                    .collect(),
            }),
            res_guests: res::BookResGuests { res_guest: b.guests.iter().map(res_guest).collect() },
            res_global_info: res::BookedResGlobalInfo {
                comments: comments_element(&b.comments),
                deposit_payments: None,
                cancel_penalties: Some(booking_penalties(b)),
                total: total(&b.currency, b.total()),
                hotel_reservation_ids: (!ids.is_empty())
                    .then_some(res::BookingReservationIds { hotel_reservation_id: ids }),
                basic_property_info: property(&hotel_code, catalogue.hotel(&hotel_code)),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn guest_shares_add_up_to_the_price() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(guest_shares(d("376.00"), 3), vec![d("125.34"), d("125.33"), d("125.33")]);
        assert_eq!(guest_shares(d("210.00"), 1), vec![d("210.00")]);
        assert_eq!(guest_shares(d("0.02"), 3), vec![d("0.01"), d("0.01"), d("0.00")]);
        assert!(guest_shares(d("1"), 0).is_empty());
        for (price, n) in [("100.00", 3), ("99.99", 7), ("0.05", 4)] {
            assert_eq!(guest_shares(d(price), n).iter().sum::<Decimal>(), d(price));
        }
    }
}
