//! Message pieces that a booking of either kind writes the same way: totals, cancel penalties,
//! guests, a list line (status, dates, both references), and open code lists.

use ota_messages::booking_read::{BookingStatus, HotelReservation, ReservationUniqueId};
use ota_messages::common::{AgeQualifyingCode, CompanyName, IdContext, PersonName, ReservationIdCode, Total};
use ota_messages::hotel_res_modify as m;
use ota_messages::runtime as rt;
use rust_decimal::Decimal;

use crate::shared::booking::{BookingHead, Company, Guest};
use crate::shared::cancellation::{self, Penalty};

/// Parses a value of an open code list (never fails: unknown values are kept as written).
pub fn parse_open<T: std::str::FromStr<Err = std::convert::Infallible>>(s: &str) -> T {
    match s.parse() {
        Ok(v) => v,
        Err(never) => match never {},
    }
}

/// A `Total` after tax in a currency.
pub(crate) fn total(currency: &str, amount: Decimal) -> Total {
    Total { currency_code: Some(currency.to_string()), amount_after_tax: Some(rt::Decimal(amount)) }
}

/// A `CancelPenalty`: from `deadline` on (or from the booking on), cancelling costs `cost`.
pub(crate) fn penalty_message(
    deadline: Option<chrono::NaiveDateTime>,
    cost: cancellation::Cost,
    currency: &str,
) -> m::HotelCancelPenalty {
    m::HotelCancelPenalty {
        non_refundable: (deadline.is_none() && cost.percent == Decimal::ONE_HUNDRED).then_some(true),
        deadline: deadline.map(|d| m::HotelDeadline { absolute_deadline: rt::DateTime::local(d) }),
        amount_percent: Some(m::HotelAmountPercent {
            percent: Some(rt::Decimal(cost.percent.normalize())),
            currency_code: Some(currency.to_string()),
            amount: Some(rt::Decimal(cost.amount)),
        }),
        penalty_description: None,
    }
}

/// The `CancelPenalties` of one item of this price: one `CancelPenalty` per penalty.
pub fn item_penalties(penalties: &[Penalty], price: Decimal, currency: &str) -> m::HotelCancelPenalties {
    m::HotelCancelPenalties {
        cancel_penalty: penalties
            .iter()
            .map(|p| {
                penalty_message(
                    p.deadline,
                    cancellation::Cost { percent: p.percent, amount: cancellation::share(price, p.percent) },
                    currency,
                )
            })
            .collect(),
    }
}

/// A `HotelReservation` with the status, the dates and both references only.
pub fn list_entry(h: &BookingHead) -> HotelReservation {
    HotelReservation {
        res_status: parse_open::<BookingStatus>(&h.status),
        create_date_time: Some(rt::DateTime::local(h.created)),
        last_modify_date_time: Some(rt::DateTime::local(h.updated)),
        unique_id: vec![
            ReservationUniqueId {
                r#type: ReservationIdCode::Booking,
                id: h.internal_ref.clone(),
                id_context: IdContext::Internal,
                company_name: None,
            },
            ReservationUniqueId {
                r#type: ReservationIdCode::Booking,
                id: h.client_ref.clone(),
                id_context: IdContext::Client,
                company_name: h.company.as_ref().map(company_message),
            },
        ],
        room_stays: None,
        services: None,
        res_guests: None,
        res_global_info: None,
        room_stay_reservation: None,
    }
}

/// A company as a `CompanyName`.
pub(crate) fn company_message(c: &Company) -> CompanyName {
    CompanyName {
        company_short_name: c.short_name.clone(),
        code: c.code.clone(),
        value: c.name.clone(),
        travel_sector: None,
    }
}

/// A guest's `Profiles` (birth date and name), when it has any of them.
pub(crate) fn guest_profiles(g: &Guest) -> Option<m::GuestProfiles> {
    let has_name = g.prefix.is_some() || g.given.is_some() || g.surname.is_some();
    (has_name || g.birth_date.is_some()).then(|| m::GuestProfiles {
        profile_info: m::ProfileInfo {
            profile: m::Profile {
                customer: m::Customer {
                    birth_date: g.birth_date.map(rt::Date),
                    person_name: has_name.then(|| PersonName {
                        name_prefix: g.prefix.clone(),
                        given_name: g.given.clone(),
                        surname: g.surname.clone(),
                    }),
                },
            },
        },
    })
}

/// A guest as a `ResGuest` of a read or modify answer.
pub(crate) fn guest_message(g: &Guest) -> m::ResGuest {
    m::ResGuest {
        age_qualifying_code: Some(parse_open::<AgeQualifyingCode>(&g.age_code)),
        res_guest_rph: Some(g.rph),
        profiles: guest_profiles(g),
        guest_counts: g.age.map(|age| m::GuestCounts { guest_count: vec![m::GuestCount { age: Some(age) }] }),
    }
}
