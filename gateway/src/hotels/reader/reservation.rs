//! Reads an `OTA_HotelResRQ`: the booking it asks for, priced from the catalogue.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;

use ota_messages::common::{ErrorCode, ResIdSourceContext, ReservationIdCode};
use ota_messages::hotel_res as res;
use rust_decimal::Decimal;

use super::{comments_from, rate_board, unsupported_parts};
use crate::errors::Problem;
use crate::hotels::booking::{Booking, Guest, RESERVED, Room, Service, base_code};
use crate::hotels::catalogue::{Catalogue, Hotel, RoomType};
use crate::hotels::import::MAX_ROOMS;
use crate::hotels::rules::availability::is_adult;
use crate::hotels::rules::check_dates;
use crate::hotels::rules::reservation::{Asker, ROOM_STAYS, ROOT};

/// The Client reference of a request (`HotelReservationID` Type 36, Client).
pub fn client_reference(rq: &res::BookHotelReservation) -> Option<String> {
    rq.res_global_info
        .hotel_reservation_ids
        .hotel_reservation_id
        .iter()
        .find(|r| r.res_id_type == ReservationIdCode::Booking && r.res_id_source_context == ResIdSourceContext::Client)
        .map(|r| r.res_id_value.trim().to_string())
        .filter(|r| !r.is_empty())
}

/// The board of a room stay as the request gives it: its rate's (see [`rate_board`]), else the
/// board service it references.
fn board_of(
    rs: &res::BookRoomStay,
    services: &[res::BookService],
    catalogue: &Catalogue,
) -> Result<Option<String>, Problem> {
    let rate = rs.room_rates.as_ref().and_then(|r| r.room_rate.first()).map_or(Ok(None), |r| rate_board(r, None))?;
    Ok(rate.or_else(|| {
        let rphs = rs.service_rphs.as_ref()?;
        rphs.service_rph
            .iter()
            .filter_map(|r| services.iter().find(|s| s.service_rph == r.rph))
            .map(|s| s.service_inventory_code.trim().to_string())
            .find(|code| catalogue.is_board(code))
    }))
}

/// The most guests a booking names (its room stays hold far fewer): a request with more is
/// refused before any of them is read.
pub const MAX_GUESTS: usize = 99;

/// The guests of a request, checked on their own.
fn guests(rq: &res::BookHotelReservation, p: &mut Vec<Problem>) -> Vec<Guest> {
    let mut out: Vec<Guest> = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, g) in rq.res_guests.res_guest.iter().enumerate() {
        let tag = format!("{ROOT}/ResGuests/ResGuest[{}]", i + 1);
        if !seen.insert(g.res_guest_rph) {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, format!("ResGuestRPH {} names two guests.", g.res_guest_rph))
                    .at(format!("{tag}/@ResGuestRPH")),
            );
            continue;
        }
        let customer = g.profiles.as_ref().map(|p| &p.profile_info.profile.customer);
        let name = customer.and_then(|c| c.person_name.as_ref());
        let clean = |v: Option<&String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
        let (prefix, given, surname) = (
            clean(name.and_then(|n| n.name_prefix.as_ref())),
            clean(name.and_then(|n| n.given_name.as_ref())),
            clean(name.and_then(|n| n.surname.as_ref())),
        );
        let age = g.guest_counts.as_ref().and_then(|c| c.guest_count.iter().find_map(|gc| gc.age));
        let code = g.age_qualifying_code.as_str().to_string();
        if matches!(code.as_str(), "7" | "8") && age.is_none() {
            p.push(
                Problem::required(format!(
                    "Guest {} is a child: give its age (GuestCounts/GuestCount@Age).",
                    g.res_guest_rph
                ))
                .at(format!("{tag}/GuestCounts")),
            );
        }
        if age.is_some_and(|a| a > 130) {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, "An age is at most 130.")
                    .at(format!("{tag}/GuestCounts/GuestCount/@Age")),
            );
        }
        out.push(Guest {
            rph: g.res_guest_rph,
            age_code: code,
            birth_date: customer.and_then(|c| c.birth_date).map(|d| d.0),
            prefix,
            given,
            surname,
            age,
        });
    }
    out
}

/// The booking a request asks for, priced: with an empty Internal reference (the store gives
/// one on Commit) and each problem found (up to the caller's bound).
pub fn booking(
    rq: &res::BookHotelReservation,
    asker: &Asker,
    catalogue: &Catalogue,
    commit: bool,
) -> Result<Booking, Vec<Problem>> {
    refuse_outright(rq)?;
    let mut p = Vec::new();
    let client_ref = client_reference(rq);
    if commit && client_ref.is_none() {
        p.push(
            Problem::required("A Commit needs the Client reference: a HotelReservationID with ResID_Type 36 and ResID_SourceContext Client.")
                .at(format!("{ROOT}/ResGlobalInfo/HotelReservationIDs")),
        );
    }
    let stays = &rq.room_stays.room_stay;
    let guests = guests(rq, &mut p);
    let who = who_stays(stays, &guests, &mut p);
    let mut read = Stays {
        catalogue,
        asker,
        commit,
        services: rq.services.as_ref().map(|s| s.service.as_slice()).unwrap_or_default(),
        guests: &guests,
        hotel_code: hotel_code(rq, &mut p),
        used_services: BTreeSet::new(),
        placed: BTreeMap::new(),
        currency: None,
        rphs: BTreeSet::new(),
        p,
    };
    let rooms: Vec<Room> = stays.iter().enumerate().filter_map(|(i, rs)| read.room_stay(i, rs, &who[i])).collect();
    let Stays { services, used_services, placed, currency, mut p, .. } = read;
    for g in &guests {
        if !placed.contains_key(&g.rph) {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Guest {} is in no room stay.", g.rph))
                    .at(format!("{ROOT}/ResGuests")),
            );
        }
    }
    let booked_services = booked_services(services, &rooms, &used_services, catalogue, &mut p);
    let comments = comments_from(rq.res_global_info.comments.as_ref());
    if !p.is_empty() {
        return Err(p);
    }
    Ok(Booking {
        internal_ref: String::new(),
        client_ref: client_ref.unwrap_or_default(),
        owner: asker.owner.clone(),
        company: Some(asker.company.clone()),
        status: RESERVED.to_string(),
        created: asker.now,
        updated: asker.now,
        currency: currency.unwrap_or_default(),
        rooms,
        services: booked_services,
        guests,
        comments,
        item_refs: Vec::new(),
    })
}

/// The problems that refuse a booking request before anything else is read: too many guests or
/// rooms, and parts the gateway does not take.
fn refuse_outright(rq: &res::BookHotelReservation) -> Result<(), Vec<Problem>> {
    let count = rq.res_guests.res_guest.len();
    if count > MAX_GUESTS {
        return Err(vec![
            Problem::biz(ErrorCode::InvalidValue, format!("A booking names at most {MAX_GUESTS} guests, not {count}."))
                .at(format!("{ROOT}/ResGuests")),
        ]);
    }
    let stays = &rq.room_stays.room_stay;
    let p: Vec<Problem> = unsupported_parts(
        rq.res_global_info.special_requests.as_ref().map(|_| format!("{ROOT}/ResGlobalInfo")),
        stays.iter().enumerate().map(|(i, rs)| {
            (format!("{ROOM_STAYS}/RoomStay[{}]", i + 1), rs.rate_plans.is_some(), rs.special_requests.is_some())
        }),
    )
    .into_iter()
    .collect();
    if !p.is_empty() {
        return Err(p);
    }
    if stays.len() > MAX_ROOMS {
        return Err(vec![
            Problem::biz(
                ErrorCode::MaxNumberOfRoomsExceeded,
                format!("A hotel booking holds at most {MAX_ROOMS} rooms, not {}.", stays.len()),
            )
            .at(format!("{ROOM_STAYS}/RoomStay[{}]", MAX_ROOMS + 1)),
        ]);
    }
    Ok(())
}

/// The hotel of the booking: its first room stay's, which `ResGlobalInfo` may repeat.
fn hotel_code(rq: &res::BookHotelReservation, p: &mut Vec<Problem>) -> String {
    let hotel_code = rq
        .room_stays
        .room_stay
        .first()
        .and_then(|s| s.basic_property_info.hotel_code.as_deref())
        .map(str::trim)
        .unwrap_or_default()
        .to_string();
    if let Some(global) =
        rq.res_global_info.basic_property_info.as_ref().and_then(|b| b.hotel_code.as_deref()).map(str::trim)
        && !global.is_empty()
        && global != hotel_code
    {
        p.push(
            Problem::biz(
                ErrorCode::InvalidHotelCode,
                format!("The booking is for hotel {global}, its rooms for {hotel_code}."),
            )
            .at(format!("{ROOT}/ResGlobalInfo/BasicPropertyInfo/@HotelCode")),
        );
    }
    hotel_code
}

/// What reading the room stays of one request knows and collects, stay after stay.
struct Stays<'a> {
    catalogue: &'a Catalogue,
    asker: &'a Asker,
    commit: bool,
    services: &'a [res::BookService],
    guests: &'a [Guest],
    hotel_code: String,
    /// The services some room stay names.
    used_services: BTreeSet<u64>,
    /// The room stay (index) each guest is in.
    placed: BTreeMap<u64, usize>,
    /// The currency of the room stays priced so far.
    currency: Option<String>,
    /// The `RPH`s of the room stays read so far.
    rphs: BTreeSet<u64>,
    p: Vec<Problem>,
}

impl Stays<'_> {
    /// Room stay `i` (with its guests `who`) as a priced room, or `None` with its problems.
    fn room_stay(&mut self, i: usize, rs: &res::BookRoomStay, who: &[u64]) -> Option<Room> {
        let tag = format!("{ROOM_STAYS}/RoomStay[{}]", i + 1);
        let p = &mut self.p;
        if let Some(rph) = rs.rph
            && !self.rphs.insert(rph)
        {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, format!("RPH {rph} names two room stays."))
                    .at(format!("{tag}/@RPH")),
            );
        }
        let code = rs.basic_property_info.hotel_code.as_deref().map(str::trim).unwrap_or_default();
        if code != self.hotel_code {
            p.push(
                Problem::biz(
                    ErrorCode::InvalidHotelCode,
                    format!("One booking is for one hotel: {}, not {code}.", self.hotel_code),
                )
                .at(format!("{tag}/BasicPropertyInfo/@HotelCode")),
            );
            return None;
        }
        let Some(hotel) = self.catalogue.hotel(code) else {
            p.push(
                Problem::biz(ErrorCode::InvalidHotelCode, format!("Hotel {code} is not known."))
                    .at(format!("{tag}/BasicPropertyInfo/@HotelCode")),
            );
            return None;
        };
        let room_type = rs
            .room_types
            .room_type
            .first()
            .and_then(|t| t.room_type_code.as_deref())
            .map(str::trim)
            .unwrap_or_default()
            .to_string();
        let Some(room) = hotel.room(base_code(&room_type)) else {
            p.push(
                Problem::biz(ErrorCode::InvalidRoomTypeCode, format!("Hotel {code} has no room type {room_type:?}."))
                    .at(format!("{tag}/RoomTypes/RoomType/@RoomTypeCode")),
            );
            return None;
        };
        let (start, end) = (rs.time_span.start.0, rs.time_span.end.0);
        if let Err(problem) = check_dates(start, end, hotel.today(self.asker.utc), &format!("{tag}/TimeSpan")) {
            p.push(problem);
            return None;
        }
        let in_room = room_guests(who, i, &tag, self.guests, &mut self.placed, room, self.commit, p);
        let guest_count = u32::try_from(in_room.len()).unwrap_or(u32::MAX);
        let stay = ((start, end), guest_count);
        let (board, room_currency, total) =
            match price_stay(rs, self.services, self.catalogue, hotel, room, self.currency.as_deref(), stay, &tag) {
                Ok(priced) => priced,
                Err(problem) => {
                    p.push(problem);
                    return None;
                }
            };
        self.currency = Some(room_currency);
        let services_of: Vec<u64> =
            rs.service_rphs.as_ref().map(|r| r.service_rph.iter().map(|r| r.rph).collect()).unwrap_or_default();
        for rph in &services_of {
            if !self.services.iter().any(|s| s.service_rph == *rph) {
                p.push(
                    Problem::biz(ErrorCode::InvalidValue, format!("ServiceRPH {rph} names no Service."))
                        .at(format!("{tag}/ServiceRPHs")),
                );
            }
            self.used_services.insert(*rph);
        }
        Some(Room {
            index: Some(i as u64 + 1),
            status: Some("Book".to_string()),
            hotel: code.to_string(),
            room_type,
            board,
            start,
            end,
            total: Some(total),
            guests: in_room,
            services: services_of,
            reference: None,
            sources: Vec::new(),
            penalties: hotel.cancellation.penalties(start.and_time(chrono::NaiveTime::MIN)),
            cancelled: None,
        })
    }
}

/// The guests of one room stay (its `ResGuestRPHs`, each placed once, at least one adult, the
/// lead named on a Commit, no more than the room takes); `placed`: which room each guest is in.
#[allow(clippy::too_many_arguments)]
fn room_guests(
    in_room: &[u64],
    i: usize,
    tag: &str,
    guests: &[Guest],
    placed: &mut BTreeMap<u64, usize>,
    room: &RoomType,
    commit: bool,
    p: &mut Vec<Problem>,
) -> Vec<u64> {
    let index = i + 1;
    for rph in in_room {
        if !guests.iter().any(|g| g.rph == *rph) {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, format!("ResGuestRPH {rph} names no ResGuest."))
                    .at(format!("{tag}/ResGuestRPHs")),
            );
        } else if let Some(other) = placed.insert(*rph, i) {
            p.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("Guest {rph} is in room stays {} and {}.", other + 1, i + 1),
                )
                .at(format!("{tag}/ResGuestRPHs")),
            );
        }
    }
    let room_guests: Vec<&Guest> = guests.iter().filter(|g| in_room.contains(&g.rph)).collect();
    match room_guests.iter().find(|g| is_adult(&g.age_code)) {
        None => p.push(
            Problem::biz(ErrorCode::InvalidValue, "A room needs at least one adult (AgeQualifyingCode 10 or 11).")
                .at(format!("{tag}/ResGuestRPHs")),
        ),
        Some(lead) if commit && (lead.given.is_none() || lead.surname.is_none()) => p.push(
            Problem::required(format!(
                "Guest {} is the responsible person of room stay {index}: give GivenName and Surname.",
                lead.rph
            ))
            .at(format!("{tag}/ResGuestRPHs")),
        ),
        Some(_) => {}
    }
    if !room.fits(room_guests.len() as u32) {
        p.push(
            Problem::biz(
                ErrorCode::InvalidValue,
                format!(
                    "Room type {} takes at most {} guests, not {}.",
                    room.code,
                    room.max_guests.unwrap_or_default(),
                    room_guests.len()
                ),
            )
            .at(format!("{tag}/ResGuestRPHs")),
        );
    }
    in_room.to_vec()
}

/// Who stays in each room stay, by ResGuestRPH: the guests its `ResGuestRPHs` names; without
/// them (OpenTravel 2016B), as many of the guests no room names, in document order, as its
/// `GuestCounts` count, or every guest when the booking is of one room stay. Counts that do not
/// agree with the guests named are a problem at them.
fn who_stays(stays: &[res::BookRoomStay], guests: &[Guest], p: &mut Vec<Problem>) -> Vec<Vec<u64>> {
    let named = |rs: &res::BookRoomStay| {
        rs.res_guest_rphs.as_ref().map(|r| r.res_guest_rph.iter().map(|r| r.rph).collect::<Vec<u64>>())
    };
    let counted = |rs: &res::BookRoomStay| {
        rs.guest_counts.as_ref().map(|c| c.guest_count.iter().map(|g| g.count.unwrap_or(1)).sum::<u64>())
    };
    let taken: BTreeSet<u64> = stays.iter().filter_map(named).flatten().collect();
    let mut free = guests.iter().map(|g| g.rph).filter(|rph| !taken.contains(rph));
    let mut out = Vec::new();
    for (i, rs) in stays.iter().enumerate() {
        let tag = format!("{ROOM_STAYS}/RoomStay[{}]", i + 1);
        out.push(match (named(rs), counted(rs)) {
            (Some(rphs), Some(n)) => {
                if rphs.len() as u64 != n {
                    p.push(
                        Problem::biz(
                            ErrorCode::InvalidValue,
                            format!("GuestCounts count {n} guests, ResGuestRPHs names {}.", rphs.len()),
                        )
                        .at(format!("{tag}/GuestCounts")),
                    );
                }
                rphs
            }
            (Some(rphs), None) => rphs,
            (None, Some(n)) => free.by_ref().take(usize::try_from(n).unwrap_or(usize::MAX)).collect(),
            (None, None) if stays.len() == 1 => guests.iter().map(|g| g.rph).collect(),
            (None, None) => Vec::new(),
        });
    }
    out
}

/// The booked services (boards only, each used by a room stay, of the board of its rooms).
fn booked_services(
    services: &[res::BookService],
    rooms: &[Room],
    used_services: &BTreeSet<u64>,
    catalogue: &Catalogue,
    p: &mut Vec<Problem>,
) -> Vec<Service> {
    let mut booked_services = Vec::new();
    for (i, s) in services.iter().enumerate() {
        let tag = format!("{ROOT}/Services/Service[{}]", i + 1);
        let code = s.service_inventory_code.trim();
        if !catalogue.is_board(code) {
            p.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("Service {code:?} is not a board; only boards are booked with the rooms."),
                )
                .at(format!("{tag}/@ServiceInventoryCode")),
            );
        } else if !used_services.contains(&s.service_rph) {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, format!("Service {} is used by no room stay.", s.service_rph))
                    .at(format!("{tag}/@ServiceRPH")),
            );
        } else if booked_services.iter().any(|b: &Service| b.rph == s.service_rph) {
            p.push(
                Problem::biz(ErrorCode::InvalidValue, format!("ServiceRPH {} names two services.", s.service_rph))
                    .at(format!("{tag}/@ServiceRPH")),
            );
        }
        let users = rooms
            .iter()
            .filter(|r| r.services.contains(&s.service_rph))
            .flat_map(|r| r.guests.iter().copied())
            .collect();
        booked_services.push(Service { rph: s.service_rph, code: code.to_string(), guests: users, legs: Vec::new() });
    }
    for r in rooms {
        let boards: Vec<&Service> = booked_services.iter().filter(|s| r.services.contains(&s.rph)).collect();
        if boards.iter().any(|s| s.code != r.board) {
            let index = r.index.unwrap_or_default();
            p.push(
                Problem::biz(
                    ErrorCode::InvalidValue,
                    format!("Room stay {index} is booked with board {}; its board service says otherwise.", r.board),
                )
                .at(format!("{ROOM_STAYS}/RoomStay[{index}]/ServiceRPHs")),
            );
        }
    }
    booked_services
}

/// The board of a room stay, the currency it is sold in with that board (the booking's, when an
/// earlier room set it) and its price for the stay; or the problem why it has none.
#[allow(clippy::too_many_arguments)]
fn price_stay(
    rs: &res::BookRoomStay,
    services: &[res::BookService],
    catalogue: &Catalogue,
    hotel: &Hotel,
    room: &RoomType,
    currency: Option<&str>,
    ((start, end), guests): ((NaiveDate, NaiveDate), u32),
    tag: &str,
) -> Result<(String, String, Decimal), Problem> {
    let code = &hotel.code;
    let Some(board) = board_of(rs, services, catalogue).map_err(|p| p.at(format!("{tag}/RoomRates/RoomRate")))? else {
        return Err(Problem::required("A room stay needs its board: RoomRates/RoomRate/Features/Feature/Description/Text, RoomRates/RoomRate/@RatePlanCode, or a board Service in its ServiceRPHs.")
            .at(format!("{tag}/RoomRates")));
    };
    let Some(room_currency) = hotel
        .rates_for(&room.code, guests)
        .sold_with()
        .into_iter()
        .find(|(b, _)| *b == board)
        .map(|(_, c)| c.to_string())
    else {
        let what = if catalogue.is_board(&board) {
            format!("Room type {} of hotel {code} is not sold with board {board}.", room.code)
        } else {
            format!("Board {board:?} is not known.")
        };
        return Err(Problem::biz(ErrorCode::InvalidValue, what)
            .at(format!("{tag}/RoomRates/RoomRate/Features/Feature/Description/Text")));
    };
    if let Some(c) = currency
        && c != room_currency
    {
        return Err(Problem::biz(
            ErrorCode::InvalidCurrencyCode,
            format!("One booking is priced in one currency: this room is sold in {room_currency}, the first in {c}."),
        )
        .at(tag));
    }
    if let Some(why) = hotel.restricted(&room.code, &board, start, end) {
        return Err(Problem::biz(
            ErrorCode::NoAvailability,
            format!("Room type {} with board {board} is not sold for this stay: {why}.", room.code),
        )
        .at(format!("{tag}/TimeSpan")));
    }
    match hotel.price(&room.code, &board, &room_currency, (start, end), guests) {
        Ok(total) => Ok((board, room_currency, total)),
        Err(e) => Err(Problem::biz(
            ErrorCode::NoAvailability,
            format!("Room type {} with board {board} cannot be booked for this stay: {e}.", room.code),
        )
        .at(format!("{tag}/TimeSpan"))),
    }
}
