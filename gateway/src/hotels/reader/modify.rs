//! Reads an `OTA_HotelResModifyRQ`: the booking as it would be after the change, compared with the stored one field by field (see [`crate::hotels::modify`]).

use std::collections::HashSet;

use chrono::{DateTime, NaiveDateTime, Utc};
use ota_messages::common::{ErrorCode, ErrorWarningType, IdContext, ResIdSourceContext, ReservationIdCode};
use ota_messages::hotel_res_modify as m;

use super::{board_of, comments_from, item_ref, person_name, room_source, transfer_legs, unsupported_parts};
use crate::errors::Problem;
use crate::hotels::booking::{Booking, ItemRef, Room, RoomSource, Service};
use crate::hotels::catalogue::Catalogue;
use crate::hotels::rules::{BASE, check_dates, price_problem};

const DIFFERS: &str = "Booking not changed – data received differs from stored data";

const OCCUPANCY: &str = "Booking not changed – occupancy changes are not allowed";

/// The booking-level references of a modify request: (Client, Internal).
pub fn booking_references(hrm: &m::HotelResModify) -> (Option<String>, Option<String>) {
    let ids = &hrm.res_global_info.hotel_reservation_ids.hotel_reservation_id;
    let find = |context: ResIdSourceContext| {
        ids.iter()
            .find(|r| r.res_id_type == ReservationIdCode::Booking && r.res_id_source_context == context)
            .map(|r| r.res_id_value.clone())
    };
    (find(ResIdSourceContext::Client), find(ResIdSourceContext::Internal))
}

/// What OpenTravel's form of a modify request adds, checked against what the request says
/// otherwise: each `UniqueID` (on the root or on `HotelResModify`, as the read answers them) must
/// name the booking `HotelReservationIDs` names (`references`: its Client and Internal
/// reference); `HotelResModify@ResStatus` `Cancelled` and `@RoomStayReservation` `false` ask
/// for what `/bookmodify` does not do (Type 2).
pub fn open_travel_form(rq: &m::OtaHotelResModifyRq, references: (Option<&str>, Option<&str>)) -> Vec<Problem> {
    let hrm = &rq.hotel_res_modifies.hotel_res_modify;
    let mut problems = Vec::new();
    let ids = rq.unique_id.iter().enumerate().map(|(i, u)| (u, format!("/OTA_HotelResModifyRQ/UniqueID[{}]", i + 1)));
    let inner = hrm.unique_id.iter().enumerate().map(|(i, u)| (u, format!("{BASE}/UniqueID[{}]", i + 1)));
    for (u, tag) in ids.chain(inner) {
        let known = match u.id_context {
            Some(IdContext::Client) => references.0,
            Some(IdContext::Internal) => references.1,
            _ => None,
        };
        let same = u.r#type == ReservationIdCode::Booking && known == Some(u.id.as_str());
        if !same {
            problems.push(
                Problem::biz(
                    ErrorCode::BookingReferenceInvalid,
                    format!("UniqueID {:?} does not name the booking ResGlobalInfo/HotelReservationIDs names; send the booking's own references (Type 36, Client or Internal).", u.id),
                )
                .at(tag),
            );
        }
    }
    let stays = hrm.room_stays.iter().flat_map(|r| r.room_stay.iter()).enumerate();
    problems.extend(unsupported_parts(
        hrm.res_global_info.special_requests.as_ref().map(|_| format!("{BASE}/ResGlobalInfo")),
        stays.map(|(i, rs)| {
            (format!("{BASE}/RoomStays/RoomStay[{}]", i + 1), rs.rate_plans.is_some(), rs.special_requests.is_some())
        }),
    ));
    if hrm.res_status.as_deref().is_some_and(|s| s.trim().eq_ignore_ascii_case("Cancelled")) {
        problems.push(
            Problem::not_supported(
                "A modify request does not cancel a booking; cancel it with /bookcancel (OTA_CancelRQ).",
            )
            .at(format!("{BASE}/@ResStatus")),
        );
    }
    if hrm.room_stay_reservation == Some(false) {
        problems.push(
            Problem::not_supported("An activity booking (RoomStayReservation false) is not modified; cancel it with /bookcancel and book again.")
                .at(format!("{BASE}/@RoomStayReservation")),
        );
    }
    problems
}

/// The version a modify request was built from: its `LastUpdateDateTime` (taken under its
/// OpenTravel name `LastModifyDateTime` too, as the read answers it), as the UTC date-time the
/// answers write; one with a zone is the same instant.
pub fn version_stamp(hrm: &m::HotelResModify) -> Option<NaiveDateTime> {
    hrm.last_update_date_time.map(|d| match d.zone {
        None | Some(ota_messages::runtime::Zone::Utc) => d.local,
        Some(ota_messages::runtime::Zone::Offset(minutes)) => d.local - chrono::Duration::minutes(i64::from(minutes)),
    })
}

/// The totals of a modify request that are not the booking's: the gateway computes every
/// total (a room stay's price, re-computed when its room type, board or dates change, and the
/// booking's sum), so a request's `Total` is never taken. One advisory (Type 11) per `Total`
/// whose amount or currency differs from the one answered.
pub fn total_notes(rq: &m::HotelResModify, b: &Booking) -> Vec<Problem> {
    let mut notes = Vec::new();
    let mut check = |sent: Option<&ota_messages::common::Total>,
                     amount: rust_decimal::Decimal,
                     tag: String,
                     what: String| {
        let Some(sent) = sent else { return };
        let amount_differs = sent.amount_after_tax.is_some_and(|a| a.0 != amount);
        let currency_differs = sent.currency_code.as_deref().is_some_and(|c| c != b.currency);
        if amount_differs || currency_differs {
            let asked = format!(
                "{} {}",
                sent.amount_after_tax.map(|a| a.0.to_string()).unwrap_or_default(),
                sent.currency_code.as_deref().unwrap_or(b.currency.as_str())
            );
            notes.push(
                Problem::new(
                    ErrorWarningType::Advisory,
                    ErrorCode::InvalidValue,
                    format!("The {what} of the request ({}) was not taken: totals are computed by the gateway; it is {amount} {}.", asked.trim(), b.currency),
                )
                .at(tag),
            );
        }
    };
    let rooms = rq.room_stays.as_ref().map(|r| r.room_stay.as_slice()).unwrap_or_default();
    for (i, (rs, room)) in rooms.iter().zip(&b.rooms).enumerate() {
        check(
            rs.total.as_ref(),
            room.total.unwrap_or_default(),
            format!("{BASE}/RoomStays/RoomStay[{}]/Total", i + 1),
            format!("total of room stay {}", i + 1),
        );
    }
    check(
        rq.res_global_info.total.as_ref(),
        b.total(),
        format!("{BASE}/ResGlobalInfo/Total"),
        "booking total".to_string(),
    );
    notes
}

/// What a modify request makes of the stored booking: the booking as it should be (minor
/// changes applied, changed room stays re-priced from the catalogue and given the hotel's
/// cancellation policy from their new arrival; a cancelled room stay cannot be changed), or
/// every problem.
pub fn plan(
    rq: &m::HotelResModify,
    stored: &Booking,
    catalogue: &Catalogue,
    utc: DateTime<Utc>,
) -> Result<Booking, Vec<Problem>> {
    let (client, internal) = booking_references(rq);
    let (mut desired, major) = compare(rq, stored, catalogue, client.is_some(), internal.is_some())?;
    let mut problems = Vec::new();
    for &i in &major {
        let tag = format!("{BASE}/RoomStays/RoomStay[{}]", i + 1);
        let Some(r) = desired.rooms.get_mut(i) else { continue };
        if !r.is_live() {
            problems.push(
                Problem::biz(
                    ErrorCode::BookingAlreadyCancelled,
                    format!("Room stay {} is cancelled; it cannot be changed.", i + 1),
                )
                .at(tag),
            );
            continue;
        }
        let today = catalogue.hotel(&r.hotel).map_or(utc.date_naive(), |h| h.today(utc));
        if let Err(p) = check_dates(r.start, r.end, today, &format!("{tag}/TimeSpan")) {
            problems.push(p);
            continue;
        }
        if let Some(why) =
            catalogue.hotel(&r.hotel).and_then(|h| h.restricted(r.base_room_type(), &r.board, r.start, r.end))
        {
            problems.push(
                Problem::biz(
                    ErrorCode::NoAvailability,
                    format!(
                        "Room type {} with board {} is not sold for this stay: {why}.",
                        r.base_room_type(),
                        r.board
                    ),
                )
                .at(format!("{tag}/TimeSpan")),
            );
            continue;
        }
        let guests = u32::try_from(r.guests.len()).unwrap_or(u32::MAX);
        match catalogue.price(&r.hotel, r.base_room_type(), &r.board, &stored.currency, (r.start, r.end), guests) {
            Ok(total) => {
                r.total = Some(total);
                // Re-priced, re-termed: the hotel's policy now, from the new arrival.
                if let Some(h) = catalogue.hotel(&r.hotel) {
                    r.penalties = h.cancellation.penalties(r.starts_at());
                }
            }
            Err(e) => problems.push(price_problem(&e, r, &stored.currency, &tag)),
        }
    }
    if problems.is_empty() { Ok(desired) } else { Err(problems) }
}

/// Collects the problems of a comparison.
#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn differs(&mut self, tag: String, what: impl std::fmt::Display) {
        self.0.push(Problem::biz(ErrorCode::RequestedActionNotPossible, format!("{DIFFERS}: {what}.")).at(tag));
    }

    fn occupancy(&mut self, tag: String, what: impl std::fmt::Display) {
        self.0.push(Problem::biz(ErrorCode::RequestedActionNotPossible, format!("{OCCUPANCY}: {what}.")).at(tag));
    }

    fn push(&mut self, p: Problem) {
        self.0.push(p);
    }
}

fn show<T: std::fmt::Debug>(v: &Option<T>) -> String {
    match v {
        Some(v) => format!("{v:?}"),
        None => "none".to_string(),
    }
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v
}

/// Compares a request with the stored booking (see [`super::handlers::modify`] for the
/// rules). Gives the booking as it should be (minor changes applied; room stays with a major
/// change unpriced and listed) or the problems.
fn compare(
    rq: &m::HotelResModify,
    stored: &Booking,
    catalogue: &Catalogue,
    has_client: bool,
    has_internal: bool,
) -> Result<(Booking, Vec<usize>), Vec<Problem>> {
    let mut p = Problems::default();
    let mut desired = stored.clone();

    let major = compare_rooms(rq, stored, &mut desired, &mut p);
    compare_services(rq, stored, &mut desired, catalogue, &mut p);
    compare_guests(rq, stored, &mut desired, &mut p);

    // Comments (a minor change; their number and lengths are bounded by the spec, checked
    // when the request was decoded).
    let comments = comments_from(rq.res_global_info.comments.as_ref());
    if comments != stored.comments {
        desired.comments = comments;
    }

    // The booking's hotel, when sent (the answers carry it as the last child of ResGlobalInfo).
    if let Some(hotel) = rq.res_global_info.basic_property_info.as_ref().and_then(|b| b.hotel_code.as_deref())
        && let Some(first) = stored.rooms.first()
        && hotel.trim() != first.hotel
    {
        p.differs(
            format!("{BASE}/ResGlobalInfo/BasicPropertyInfo/@HotelCode"),
            format!("hotel {hotel:?} (stored {:?})", first.hotel),
        );
    }

    compare_references(rq, stored, has_client, has_internal, &mut p);

    if p.0.is_empty() { Ok((desired, major)) } else { Err(p.0) }
}

/// Compares the room stays: what may change (room type, board, dates: the indexes of those
/// that do), what may not.
fn compare_rooms(rq: &m::HotelResModify, stored: &Booking, desired: &mut Booking, p: &mut Problems) -> Vec<usize> {
    let mut major = Vec::new();
    let rq_rooms = rq.room_stays.as_ref().map(|r| r.room_stay.as_slice()).unwrap_or_default();
    if rq_rooms.len() != stored.rooms.len() {
        p.occupancy(
            format!("{BASE}/RoomStays"),
            format!("the booking has {} room stays, the request {}", stored.rooms.len(), rq_rooms.len()),
        );
    }
    for (i, (rs, st)) in rq_rooms.iter().zip(&stored.rooms).enumerate() {
        let tag = format!("{BASE}/RoomStays/RoomStay[{}]", i + 1);
        compare_fixed_room(rs, st, i, &tag, p);

        // Room type, board and dates: the changeable part.
        let types = rs.room_types.as_ref().map(|t| t.room_type.as_slice()).unwrap_or_default();
        let room_type = match types {
            [one] => match one.room_type_code.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                Some(code) => Some(code.to_string()),
                None => {
                    p.push(
                        Problem::required("RoomTypeCode is required.")
                            .at(format!("{tag}/RoomTypes/RoomType/@RoomTypeCode")),
                    );
                    None
                }
            },
            [] => {
                p.push(Problem::required("A room stay needs its RoomTypes/RoomType.").at(format!("{tag}/RoomTypes")));
                None
            }
            _ => {
                p.push(
                    Problem::biz(ErrorCode::InvalidValue, "A room stay has exactly one RoomType.")
                        .at(format!("{tag}/RoomTypes/RoomType[2]")),
                );
                None
            }
        };
        let rates = rs.room_rates.as_ref().map(|r| r.room_rate.as_slice()).unwrap_or_default();
        if let Some(code) = &room_type {
            for (k, rate) in rates.iter().enumerate() {
                if let Some(rate_code) = rate.room_type_code.as_deref()
                    && rate_code.trim() != code
                {
                    p.push(
                        Problem::biz(
                            ErrorCode::InvalidValue,
                            format!("RoomRate@RoomTypeCode {rate_code} is not the RoomType's {code}."),
                        )
                        .at(format!("{tag}/RoomRates/RoomRate[{}]/@RoomTypeCode", k + 1)),
                    );
                }
            }
        }
        if rates.len() > 1 {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, "A room stay has exactly one RoomRate.")
                    .at(format!("{tag}/RoomRates/RoomRate[2]")),
            );
        }
        let board = match board_of(rs, &st.board) {
            Ok(None) => {
                p.push(
                    Problem::required("The board code (RoomRates/RoomRate/Features/Feature/Description/Text, or RoomRates/RoomRate/@RatePlanCode) is required.")
                        .at(format!("{tag}/RoomRates")),
                );
                None
            }
            Ok(board) => board,
            Err(problem) => {
                p.push(problem.at(format!("{tag}/RoomRates/RoomRate")));
                None
            }
        };
        let span = rs.time_span.as_ref().map(|t| (t.start.0, t.end.0));
        if span.is_none() {
            p.push(Problem::required("TimeSpan (Start, End) is required.").at(format!("{tag}/TimeSpan")));
        }
        if let (Some(room_type), Some(board), Some((start, end)), Some(d)) =
            (room_type, board, span, desired.rooms.get_mut(i))
            && (room_type != st.room_type || board != st.board || start != st.start || end != st.end)
        {
            d.room_type = room_type;
            d.board = board;
            d.start = start;
            d.end = end;
            d.total = None;
            major.push(i);
        }
    }
    major
}

/// Compares what of a room stay may not change: its index, status, hotel, sources, reference,
/// guests and services.
fn compare_fixed_room(rs: &m::RoomStay, st: &Room, i: usize, tag: &str, p: &mut Problems) {
    if rs.index_number != st.index {
        p.differs(
            format!("{tag}/@IndexNumber"),
            format!("IndexNumber {} (stored {})", show(&rs.index_number), show(&st.index)),
        );
    }
    let status = rs.room_stay_status.as_ref().map(|s| s.as_str().to_string());
    if status != st.status {
        p.differs(
            format!("{tag}/@RoomStayStatus"),
            format!("RoomStayStatus {} (stored {})", show(&status), show(&st.status)),
        );
    }
    let hotel = rs.basic_property_info.as_ref().and_then(|b| b.hotel_code.clone());
    if hotel.as_deref() != Some(st.hotel.as_str()) {
        p.differs(
            format!("{tag}/BasicPropertyInfo/@HotelCode"),
            format!("hotel {} (stored {:?})", show(&hotel), st.hotel),
        );
    }
    let sources: Vec<RoomSource> = rs
        .tpa_extensions
        .as_ref()
        .and_then(|x| x.pos.as_ref())
        .map(|pos| pos.source.iter().map(room_source).collect())
        .unwrap_or_default();
    if sources != st.sources {
        p.differs(format!("{tag}/TPA_Extensions"), "the room stay's extension sources are not the stored ones");
    }
    let reference = rs.reference.as_ref().map(|r| (r.id.clone(), r.r#type.as_ref().map(|t| t.as_str().to_string())));
    if reference != st.reference.as_ref().map(|r| (r.id.clone(), r.kind.clone())) {
        p.differs(format!("{tag}/Reference"), "the room stay's Reference is not the stored one");
    }
    let guests =
        rs.res_guest_rphs.as_ref().map(|g| g.res_guest_rph.iter().map(|r| r.rph).collect()).unwrap_or_default();
    if sorted(guests) != sorted(st.guests.clone()) {
        p.occupancy(
            format!("{tag}/ResGuestRPHs"),
            format!("the guests of room stay {} are not the stored ones", i + 1),
        );
    }
    let services = rs.service_rphs.as_ref().map(|s| s.service_rph.iter().map(|r| r.rph).collect()).unwrap_or_default();
    if sorted(services) != sorted(st.services.clone()) {
        p.differs(format!("{tag}/ServiceRPHs"), format!("the services of room stay {} are not the stored ones", i + 1));
    }
}

/// Compares the services: a board service follows the board of its rooms; nothing else changes.
fn compare_services(
    rq: &m::HotelResModify,
    stored: &Booking,
    desired: &mut Booking,
    catalogue: &Catalogue,
    p: &mut Problems,
) {
    let rq_services = rq.services.as_ref().map(|s| s.service.as_slice()).unwrap_or_default();
    if rq_services.len() != stored.services.len() {
        p.differs(
            format!("{BASE}/Services"),
            format!("the booking has {} services, the request {}", stored.services.len(), rq_services.len()),
        );
    }
    for (j, (sv, st)) in rq_services.iter().zip(&stored.services).enumerate() {
        let tag = format!("{BASE}/Services/Service[{}]", j + 1);
        if sv.service_rph != Some(st.rph) {
            p.differs(
                format!("{tag}/@ServiceRPH"),
                format!("ServiceRPH {} (stored {})", show(&sv.service_rph), st.rph),
            );
        }
        let guests = sv
            .service_details
            .as_ref()
            .and_then(|d| d.res_guest_rphs.as_ref())
            .map(|g| g.res_guest_rph.iter().map(|r| r.rph).collect())
            .unwrap_or_default();
        if sorted(guests) != sorted(st.guests.clone()) {
            p.occupancy(
                format!("{tag}/ServiceDetails/ResGuestRPHs"),
                format!("the guests of service {} are not the stored ones", st.rph),
            );
        }
        match transfer_legs(sv) {
            Some(legs) if legs == st.legs => {}
            Some(_) => p.differs(
                format!("{tag}/TPA_Extensions"),
                format!("the transfer legs of service {} are not the stored ones", st.rph),
            ),
            None => p.differs(
                format!("{tag}/TPA_Extensions"),
                "each end of a transfer leg is either a ConnectingTransport or a Hotel",
            ),
        }
        let code = sv.service_inventory_code.as_deref().map(str::trim).unwrap_or_default();
        follow_board(p, desired, stored, catalogue, j, st, code, &tag);
    }
}

/// Compares the guests: the names of guests other than the lead may change, nothing else.
fn compare_guests(rq: &m::HotelResModify, stored: &Booking, desired: &mut Booking, p: &mut Problems) {
    let rq_guests = rq.res_guests.as_ref().map(|g| g.res_guest.as_slice()).unwrap_or_default();
    if rq_guests.len() != stored.guests.len() {
        p.occupancy(
            format!("{BASE}/ResGuests"),
            format!("the booking has {} guests, the request {}", stored.guests.len(), rq_guests.len()),
        );
    }
    for (k, (g, st)) in rq_guests.iter().zip(&stored.guests).enumerate() {
        let tag = format!("{BASE}/ResGuests/ResGuest[{}]", k + 1);
        if g.res_guest_rph != Some(st.rph) {
            p.occupancy(
                format!("{tag}/@ResGuestRPH"),
                format!("ResGuestRPH {} (stored {})", show(&g.res_guest_rph), st.rph),
            );
        }
        let code = g.age_qualifying_code.as_ref().map(|c| c.as_str().to_string());
        if code.as_deref() != Some(st.age_code.as_str()) {
            p.occupancy(
                format!("{tag}/@AgeQualifyingCode"),
                format!("guest {} AgeQualifyingCode {} (stored {:?})", st.rph, show(&code), st.age_code),
            );
        }
        let ages: Vec<Option<u64>> =
            g.guest_counts.as_ref().map(|c| c.guest_count.iter().map(|c| c.age).collect()).unwrap_or_default();
        let stored_ages: Vec<Option<u64>> = st.age.map(|a| vec![Some(a)]).unwrap_or_default();
        if ages != stored_ages {
            p.occupancy(
                format!("{tag}/GuestCounts"),
                format!(
                    "guest {} age {:?} (stored {})",
                    st.rph,
                    ages.iter().flatten().collect::<Vec<_>>(),
                    show(&st.age)
                ),
            );
        }
        let customer = g.profiles.as_ref().map(|x| &x.profile_info.profile.customer);
        let birth = customer.and_then(|c| c.birth_date).map(|d| d.0);
        if birth != st.birth_date {
            p.occupancy(
                format!("{tag}/Profiles/ProfileInfo/Profile/Customer/@BirthDate"),
                format!("guest {} birth date {} (stored {})", st.rph, show(&birth), show(&st.birth_date)),
            );
        }
        let name = person_name(g);
        if name != (st.prefix.clone(), st.given.clone(), st.surname.clone()) {
            let name_tag = format!("{tag}/Profiles/ProfileInfo/Profile/Customer/PersonName");
            if k == 0 {
                p.differs(name_tag, "the lead guest's name cannot be changed");
            } else if let Some(d) = desired.guests.get_mut(k) {
                (d.prefix, d.given, d.surname) = name;
            }
        }
    }
}

/// Compares the references other than the two booking-level ones that identified the booking.
/// OpenTravel's form has no `Item_RPH`: an item reference without one is the room stay that
/// carries it in `RoomStay/Reference` (as the read answers it), else it is compared without it.
fn compare_references(
    rq: &m::HotelResModify,
    stored: &Booking,
    has_client: bool,
    has_internal: bool,
    p: &mut Problems,
) {
    let room_of = |value: &str| {
        rq.room_stays
            .as_ref()?
            .room_stay
            .iter()
            .find(|s| s.reference.as_ref().and_then(|x| x.id.as_deref()) == Some(value))?
            .index_number
    };
    let mut stored_others = stored.item_refs.clone();
    let mut others: Vec<ItemRef> = Vec::new();
    let (mut client_seen, mut internal_seen) = (!has_client, !has_internal);
    for r in &rq.res_global_info.hotel_reservation_ids.hotel_reservation_id {
        if r.res_id_type == ReservationIdCode::Booking {
            let seen = match r.res_id_source_context {
                ResIdSourceContext::Client => &mut client_seen,
                ResIdSourceContext::Internal => &mut internal_seen,
            };
            if !*seen {
                *seen = true;
                continue;
            }
        }
        let mut item = item_ref(r);
        if item.item_rph.is_none() {
            item.item_rph = room_of(&item.value);
        }
        if item.item_rph.is_none()
            && let Some(same) = stored_others
                .iter_mut()
                .find(|s| (&s.res_id_type, &s.context, &s.value) == (&item.res_id_type, &item.context, &item.value))
        {
            same.item_rph = None;
        }
        others.push(item);
    }
    others.sort();
    stored_others.sort();
    if others != stored_others {
        p.differs(
            format!("{BASE}/ResGlobalInfo/HotelReservationIDs"),
            "the item references (HotelReservationID other than the booking's Client and Internal ones) are not the stored ones",
        );
    }
}

/// A board service (a service whose code is a board code, used by rooms) follows the board of
/// its rooms; any other change of a service's code is a difference.
#[allow(clippy::too_many_arguments)]
fn follow_board(
    p: &mut Problems,
    desired: &mut Booking,
    stored: &Booking,
    catalogue: &Catalogue,
    j: usize,
    st: &Service,
    code: &str,
    tag: &str,
) {
    let users: Vec<&Room> = desired.rooms.iter().filter(|r| r.services.contains(&st.rph)).collect();
    let is_board_service = catalogue.is_board(&st.code) && !users.is_empty();
    if code != st.code {
        let follows_rooms = is_board_service && catalogue.is_board(code) && users.iter().all(|r| r.board == code);
        if follows_rooms {
            if let Some(d) = desired.services.get_mut(j) {
                d.code = code.to_string();
            }
        } else {
            p.differs(
                format!("{tag}/@ServiceInventoryCode"),
                format!("service {} is {:?} (stored {:?})", st.rph, code, st.code),
            );
        }
    } else if is_board_service {
        // A board service left unchanged follows the new board of its rooms when they all had
        // this board and now share another one.
        let olds: HashSet<&str> =
            stored.rooms.iter().filter(|r| r.services.contains(&st.rph)).map(|r| r.board.as_str()).collect();
        let news: HashSet<&str> = users.iter().map(|r| r.board.as_str()).collect();
        if olds.len() == 1
            && olds.contains(st.code.as_str())
            && let (1, Some(new)) = (news.len(), news.iter().next())
            && let Some(d) = desired.services.get_mut(j)
        {
            d.code = (*new).to_string();
        }
    }
}
