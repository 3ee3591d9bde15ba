//! Request readers of the hotel area: the availability, booking and modify requests read into
//! domain values (the asked query, booking or change), with the problems of a request that names
//! nothing usable, each at its element path. The rules then work on those values.
//!
//! | file | reads |
//! |---|---|
//! | [`availability`] | `OTA_HotelAvailRQ` → an availability query |
//! | [`reservation`] | `OTA_HotelResRQ` → the booking asked for, priced |
//! | [`supply`] | the availability and count notifications → a [`Notification`](crate::hotels::rules::supply::Notification); what every notification's reader shares |
//! | [`rate_amount`] | the rate notification → a [`Notification`](crate::hotels::rules::supply::Notification) |
//! | [`modify`] | `OTA_HotelResModifyRQ` → the booking as it would be after the change |
//! | `mod.rs` | the parts every request shares: comments, sources, guests' names, boards, item references, the 2016B parts refused |

use ota_messages::common::{CompanyName, ErrorCode, Source};
use ota_messages::hotel_res_modify as m;

use super::booking::{Comment, Company, ItemRef, LangText, RoomSource, TransferLeg, TransferPoint, Transport};
use crate::errors::Problem;
use crate::shared::cards;

/// OpenTravel 2016B's special requests: not passed on to the hotel (Type 2).
const SPECIAL_REQUESTS: &str = "Special requests are not supported: they are not passed on to the hotel. Send the booking without them (Comments are kept with the booking, as written but for a card number, of which only the last four digits are kept).";

/// OpenTravel 2016B's rate plans of a room stay: not chosen here (Type 2).
const RATE_PLANS: &str =
    "Rate plans are not supported: the rate is the room type's, with the board of RoomRates (or of its Service).";

/// The parts of an OpenTravel 2016B booking (or modify) the gateway does not act on, each
/// refused (Type 2) at its place rather than dropped: the booking's `SpecialRequests` (`global`:
/// the path of its `ResGlobalInfo`, when it has them) and each room stay's `RatePlans` and
/// `SpecialRequests` (`stays`: its path, whether it has each).
fn unsupported_parts(global: Option<String>, stays: impl IntoIterator<Item = (String, bool, bool)>) -> Vec<Problem> {
    let mut out: Vec<Problem> = global
        .map(|at| Problem::not_supported(SPECIAL_REQUESTS).at(format!("{at}/SpecialRequests")))
        .into_iter()
        .collect();
    for (at, rate_plans, special_requests) in stays {
        if rate_plans {
            out.push(Problem::not_supported(RATE_PLANS).at(format!("{at}/RatePlans")));
        }
        if special_requests {
            out.push(Problem::not_supported(SPECIAL_REQUESTS).at(format!("{at}/SpecialRequests")));
        }
    }
    out
}

pub mod availability;
pub mod modify;
pub mod rate_amount;
pub mod reservation;
pub mod supply;

/// The comments of a request, as stored: a card number in a text keeps only its last four
/// digits ([`without_card_numbers`](crate::shared::cards::without_card_numbers)).
pub fn comments_from(comments: Option<&m::Comments>) -> Vec<Comment> {
    comments
        .map(|c| {
            c.comment
                .iter()
                .map(|c| Comment {
                    name: c.name.clone(),
                    originator: c.comment_originator_code.clone(),
                    texts: c
                        .text
                        .iter()
                        .map(|t| LangText {
                            language: t.language.clone(),
                            text: cards::without_card_numbers(&t.value).into_owned(),
                        })
                        .collect(),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn company(c: &CompanyName) -> Company {
    Company { name: c.value.clone(), code: c.code.clone(), short_name: c.company_short_name.clone() }
}

/// The stored form of a request's room-stay source (its `MessagePassword` is dropped).
pub fn room_source(s: &Source) -> RoomSource {
    let r = &s.requestor_id;
    RoomSource {
        kind: r.r#type.as_str().to_string(),
        id: r.id.clone(),
        id_context: r.id_context.clone(),
        instance: r.instance.as_ref().map(|i| i.as_str().to_string()),
        company: r.company_name.as_ref().map(company),
    }
}

/// The transfer legs of a request's service; `None` when a leg end is neither a hotel nor a
/// connecting transport (or both).
pub fn transfer_legs(s: &m::Service) -> Option<Vec<TransferLeg>> {
    let legs = s
        .tpa_extensions
        .as_ref()
        .and_then(|x| x.transfer_info_type.as_ref())
        .map(|t| t.transfer_leg.as_slice())
        .unwrap_or_default();
    legs.iter()
        .map(|l| Some(TransferLeg { origin: point(&l.transfer_origin)?, destination: point(&l.transfer_destination)? }))
        .collect()
}

fn point(e: &m::TransferEndpoint) -> Option<TransferPoint> {
    match (&e.hotel, &e.connecting_transport) {
        (Some(h), None) => Some(TransferPoint::Hotel(h.hotel_code.clone())),
        (None, Some(t)) => Some(TransferPoint::Transport(Transport {
            departure: t.departure_date_time.map(|d| d.local),
            arrival: t.arrival_date_time.map(|d| d.local),
            departure_airport: t.departure_airport.as_ref().map(|a| a.location_code.clone()),
            arrival_airport: t.arrival_airport.as_ref().map(|a| a.location_code.clone()),
            flight: t.operating_airline.as_ref().and_then(|a| a.flight_number.clone()),
        })),
        _ => None,
    }
}

/// The name of a request's guest: (prefix, given name, surname), a card number in them
/// masked as in comments.
pub fn person_name(g: &m::ResGuest) -> (Option<String>, Option<String>, Option<String>) {
    let name = g.profiles.as_ref().and_then(|p| p.profile_info.profile.customer.person_name.as_ref());
    let part = |p: &Option<String>| p.as_deref().map(|p| cards::without_card_numbers(p).into_owned());
    (
        name.and_then(|n| part(&n.name_prefix)),
        name.and_then(|n| part(&n.given_name)),
        name.and_then(|n| part(&n.surname)),
    )
}

/// The board code of a room stay in a modify request, from its first rate (see
/// [`rate_board`]; `stored` is the room's board now).
pub fn board_of(rs: &m::RoomStay, stored: &str) -> Result<Option<String>, Problem> {
    rs.room_rates.as_ref().and_then(|r| r.room_rate.first()).map_or(Ok(None), |r| rate_board(r, Some(stored)))
}

/// The board a rate names: the first `Text` without a `Language` of its first feature (else
/// its first `Text`), or its `RatePlanCode` (OpenTravel 2016B's form: the board as the rate
/// plan). When both are given and differ, a modify (`stored`: the room's board now) takes the
/// one that changed, as a client that edits one of them in the booking it read does; otherwise
/// it is a problem.
pub fn rate_board(rate: &m::RoomRate, stored: Option<&str>) -> Result<Option<String>, Problem> {
    let feature = rate.features.as_ref().and_then(|f| f.feature.first()).and_then(|f| f.description.as_ref());
    let text = feature.and_then(|d| d.text.iter().find(|t| t.language.is_none()).or_else(|| d.text.first()));
    let from_feature = text.map(|t| t.value.trim()).filter(|c| !c.is_empty());
    let plan = rate.rate_plan_code.as_deref().map(str::trim).filter(|c| !c.is_empty());
    match (from_feature, plan) {
        (Some(f), Some(p)) if f != p && stored == Some(p) => Ok(Some(f.to_string())),
        (Some(f), Some(p)) if f != p && stored == Some(f) => Ok(Some(p.to_string())),
        (Some(f), Some(p)) if f != p => Err(Problem::biz(
            ErrorCode::InvalidValue,
            format!("RatePlanCode {p:?} and the rate's board feature {f:?} name different boards."),
        )),
        (f, p) => Ok(f.or(p).map(str::to_string)),
    }
}

/// The stored form of a request's further reference.
pub fn item_ref(r: &m::HotelReservationId) -> ItemRef {
    ItemRef {
        res_id_type: r.res_id_type.as_str().to_string(),
        context: r.res_id_source_context.as_str().to_string(),
        value: r.res_id_value.clone(),
        item_rph: r.item_rph,
    }
}
