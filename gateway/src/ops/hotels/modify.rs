//! `/bookmodify`: read-then-modify of a hotel booking.
//!
//! The request carries the booking as read, with only the intended change. It is compared with
//! the stored booking field by field:
//!
//! - **minor** changes are applied without re-pricing: the comments, and the names (prefix,
//!   given name, surname) of guests other than the lead guest (the first `ResGuest`);
//! - **major** changes re-price the room stay from the stored rates: its room type
//!   (`RoomTypeCode`), its board (the `RoomRate` feature text) and its dates (`TimeSpan`). A
//!   board service (a `Service` whose code is a board code) follows the board of its rooms;
//! - **occupancy** changes are refused (Type 3, Code 172, "Booking not changed – occupancy
//!   changes are not allowed"): the number of room stays or guests, a guest's RPH, age
//!   qualifying code, age or birth date, and which guests are in a room or use a service;
//! - any other difference is refused (Type 3, Code 172, "Booking not changed – data received
//!   differs from stored data"), with `Tag` at the differing node: the hotel, `IndexNumber`,
//!   `RoomStayStatus`, the room's extension sources and reference, the services (code, RPH,
//!   transfer legs), the room–service links, the lead guest's name and the item references.
//!
//! Output-only data are not compared: `CreateDateTime`, `LastUpdateDateTime`, `HotelName`,
//! `RoomDescription`, the totals, `CancelPenalties` and the `MessagePassword` of a room's
//! extension sources (never stored).
//!
//! `ResStatus` `Quote` (or none) answers the booking as it would be and stores nothing;
//! `Commit` applies it in one `IMMEDIATE` transaction and sets `LastUpdateDateTime` (unchanged
//! when nothing changed). Other values are refused (Code 356).

use std::collections::HashSet;

use chrono::{NaiveDate, NaiveDateTime, Timelike};
use ota_messages::common::{ErrorCode, ResIdSourceContext, ResStatus, ReservationIdCode};
use ota_messages::hotel_res_modify as m;
use ota_messages::runtime::Response;
use rusqlite::Transaction;

use super::booking::{Booking, ItemRef, Labels, RoomSource, Service, comments_from};
use super::content::MAX_ROOMS;
use super::lang::LangPref;
use super::repo::{self, Lookup, PriceError};
use crate::db::{DbError, immediate};
use crate::errors::{Problem, errors};
use crate::ops::{Ctx, system_error};

const BASE: &str = "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify";

/// The most nights of one room stay.
pub const MAX_NIGHTS: i64 = 30;
/// The most comments of a booking, and the longest comment text (characters).
const MAX_COMMENTS: usize = 20;
const MAX_COMMENT_CHARS: usize = 2000;
/// The longest guest name part (characters).
const MAX_NAME_CHARS: usize = 100;
/// At most this many problems are reported for one request.
const MAX_PROBLEMS: usize = 20;

const DIFFERS: &str = "Booking not changed – data received differs from stored data";
const OCCUPANCY: &str = "Booking not changed – occupancy changes are not allowed";

fn refuse(problems: Vec<Problem>) -> m::OtaHotelResModifyRs {
    m::OtaHotelResModifyRs::from_errors(errors(problems.into_iter().take(MAX_PROBLEMS)))
}

/// `/bookmodify`.
pub async fn modify(ctx: &Ctx, rq: &m::OtaHotelResModifyRq) -> m::OtaHotelResModifyRs {
    let commit = match &rq.res_status {
        None | Some(ResStatus::Quote) => false,
        Some(ResStatus::Commit) => true,
        Some(other) => {
            return refuse(vec![Problem::biz(
                ErrorCode::InvalidActionStatusCode,
                format!("ResStatus {} is not supported by a modify; use Quote (preview) or Commit.", other.as_str()),
            )
            .at("/OTA_HotelResModifyRQ/@ResStatus")]);
        }
    };
    let hrm = rq.hotel_res_modifies.hotel_res_modify.clone();
    let rooms = hrm.room_stays.as_ref().map_or(0, |r| r.room_stay.len());
    if rooms > MAX_ROOMS {
        return refuse(vec![Problem::biz(
            ErrorCode::MaxNumberOfRoomsExceeded,
            format!("A hotel booking holds at most {MAX_ROOMS} rooms; the modification asks for {rooms}."),
        )
        .at(format!("{BASE}/RoomStays/RoomStay[{}]", MAX_ROOMS + 1))]);
    }
    let ids = &hrm.res_global_info.hotel_reservation_ids.hotel_reservation_id;
    let booking_ref = |context: ResIdSourceContext| {
        ids.iter().find(|r| r.res_id_type == ReservationIdCode::Booking && r.res_id_source_context == context).map(|r| r.res_id_value.clone())
    };
    let (client, internal) = (booking_ref(ResIdSourceContext::Client), booking_ref(ResIdSourceContext::Internal));
    if client.is_none() && internal.is_none() {
        return refuse(vec![Problem::required(
            "The booking to modify is identified by a HotelReservationID with ResID_Type 36 and ResID_SourceContext Client or Internal.",
        )
        .at(format!("{BASE}/ResGlobalInfo/HotelReservationIDs"))]);
    }
    let input = Input {
        owner: ctx.requestor.id.clone(),
        client,
        internal,
        hrm,
        now: ctx.now.naive_utc().with_nanosecond(0).unwrap_or(ctx.now.naive_utc()),
        commit,
    };
    let pref = LangPref::new(rq.primary_lang_id.as_ref(), rq.alt_lang_id.as_deref());
    let result = ctx
        .db
        .call(move |conn| {
            if input.commit {
                immediate(conn, |tx| run(tx, &input))
            } else {
                let tx = conn.transaction()?;
                let out = run(&tx, &input);
                tx.rollback()?;
                out
            }
        })
        .await;
    match result {
        Err(e) => system_error(ctx, "booking modify", &e),
        Ok(Err(problems)) => refuse(problems),
        Ok(Ok((booking, labels))) => m::OtaHotelResModifyRs::success(m::HotelResModifies { hotel_res_modify: booking.hotel_res_modify(&labels, &pref) }),
    }
}

struct Input {
    owner: String,
    client: Option<String>,
    internal: Option<String>,
    hrm: m::HotelResModify,
    now: NaiveDateTime,
    commit: bool,
}

type Outcome = Result<(Booking, Labels), Vec<Problem>>;

fn run(tx: &Transaction, input: &Input) -> Result<Outcome, DbError> {
    let ids_tag = format!("{BASE}/ResGlobalInfo/HotelReservationIDs");
    let reference = input.internal.as_deref().or(input.client.as_deref()).unwrap_or_default();
    let row = match repo::find_booking(tx, &input.owner, input.client.as_deref(), input.internal.as_deref())? {
        Lookup::Found(row) => row,
        Lookup::NotFound => {
            return Ok(Err(vec![Problem::biz(ErrorCode::BookingReferenceNotFound, format!("Booking {reference} was not found.")).at(ids_tag)]));
        }
        Lookup::Mismatch => {
            return Ok(Err(vec![Problem::biz(
                ErrorCode::BookingReferenceInvalid,
                "The Client and the Internal booking references designate different bookings.",
            )
            .at(ids_tag)]));
        }
    };
    let stored = repo::load_booking(tx, row)?;
    if stored.is_cancelled() {
        return Ok(Err(vec![Problem::biz(ErrorCode::BookingAlreadyCancelled, format!("Booking {} is cancelled; it cannot be modified.", stored.internal_ref)).at(ids_tag)]));
    }
    let boards = repo::board_codes(tx)?;
    let (mut desired, major) = match compare(&input.hrm, &stored, &boards, input.client.is_some(), input.internal.is_some()) {
        Ok(plan) => plan,
        Err(problems) => return Ok(Err(problems)),
    };

    // Re-price the room stays with a major change.
    let today = input.now.date();
    let mut problems = Vec::new();
    for &i in &major {
        let tag = format!("{BASE}/RoomStays/RoomStay[{}]", i + 1);
        let Some(r) = desired.rooms.get_mut(i) else { continue };
        if let Some(p) = check_dates(r.start, r.end, today, &tag) {
            problems.push(p);
            continue;
        }
        match repo::price(tx, &r.hotel, r.base_room_type(), &r.board, &stored.currency, r.start, r.end)? {
            Ok(total) => r.total = Some(total),
            Err(e) => problems.push(price_problem(&e, r, &stored.currency, &tag)),
        }
    }
    if !problems.is_empty() {
        return Ok(Err(problems));
    }

    let changed = desired != stored;
    if changed && input.commit {
        desired.last_update = Some(input.now.max(stored.updated()));
        repo::save_booking(tx, &desired)?;
    }
    let labels = repo::labels(tx, &desired)?;
    Ok(Ok((desired, labels)))
}

fn check_dates(start: NaiveDate, end: NaiveDate, today: NaiveDate, tag: &str) -> Option<Problem> {
    if end <= start {
        return Some(
            Problem::biz(ErrorCode::InvalidStartEndDateCombination, format!("End {end} must be after Start {start}.")).at(format!("{tag}/TimeSpan")),
        );
    }
    if start < today {
        return Some(Problem::biz(ErrorCode::StartDateInvalid, format!("Start {start} is in the past.")).at(format!("{tag}/TimeSpan/@Start")));
    }
    let nights = (end - start).num_days();
    if nights > MAX_NIGHTS {
        return Some(
            Problem::biz(ErrorCode::TooManyNights, format!("A room stay has at most {MAX_NIGHTS} nights, not {nights}.")).at(format!("{tag}/TimeSpan")),
        );
    }
    None
}

fn price_problem(e: &PriceError, r: &super::booking::Room, currency: &str, tag: &str) -> Problem {
    match e {
        PriceError::UnknownHotel => {
            Problem::biz(ErrorCode::InvalidHotelCode, format!("Hotel {} is not known.", r.hotel)).at(format!("{tag}/BasicPropertyInfo/@HotelCode"))
        }
        PriceError::UnknownRoomType => Problem::biz(ErrorCode::InvalidRoomTypeCode, format!("Hotel {} has no room type {}.", r.hotel, r.room_type))
            .at(format!("{tag}/RoomTypes/RoomType/@RoomTypeCode")),
        PriceError::UnknownBoard => Problem::biz(ErrorCode::InvalidValue, format!("Board {} is not known.", r.board))
            .at(format!("{tag}/RoomRates/RoomRate/Features/Feature/Description/Text")),
        PriceError::BoardNotOffered => {
            Problem::biz(ErrorCode::InvalidValue, format!("Room {} of hotel {} is not sold with board {} in {currency}.", r.room_type, r.hotel, r.board))
                .at(format!("{tag}/RoomRates/RoomRate/Features/Feature/Description/Text"))
        }
        PriceError::NoRate(night) => Problem::biz(
            ErrorCode::NoAvailability,
            format!("Room {} with board {} is not available for the night of {night}.", r.room_type, r.board),
        )
        .at(format!("{tag}/TimeSpan")),
    }
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

/// The board code of a room stay in a request: the first `Text` without a `Language` of the
/// first rate feature, else its first `Text`.
fn board_of(rs: &m::RoomStay) -> Option<String> {
    let rate = rs.room_rates.as_ref()?.room_rate.first()?;
    let feature = rate.features.as_ref()?.feature.first()?;
    let texts = &feature.description.as_ref()?.text;
    let text = texts.iter().find(|t| t.language.is_none()).or_else(|| texts.first())?;
    let code = text.value.trim();
    (!code.is_empty()).then(|| code.to_string())
}

fn person_name(g: &m::ResGuest) -> (Option<String>, Option<String>, Option<String>) {
    let name = g.profiles.as_ref().and_then(|p| p.profile_info.profile.customer.person_name.as_ref());
    (
        name.and_then(|n| n.name_prefix.clone()),
        name.and_then(|n| n.given_name.clone()),
        name.and_then(|n| n.surname.clone()),
    )
}

/// Compares a request with the stored booking. Gives the booking as it should be (minor
/// changes applied; room stays with a major change are unpriced and listed) or the problems.
fn compare(
    rq: &m::HotelResModify,
    stored: &Booking,
    boards: &HashSet<String>,
    has_client: bool,
    has_internal: bool,
) -> Result<(Booking, Vec<usize>), Vec<Problem>> {
    let mut p = Problems::default();
    let mut desired = stored.clone();
    let mut major = Vec::new();

    // Room stays.
    let rq_rooms = rq.room_stays.as_ref().map(|r| r.room_stay.as_slice()).unwrap_or_default();
    if rq_rooms.len() != stored.rooms.len() {
        p.occupancy(format!("{BASE}/RoomStays"), format!("the booking has {} room stays, the request {}", stored.rooms.len(), rq_rooms.len()));
    }
    for (i, (rs, st)) in rq_rooms.iter().zip(&stored.rooms).enumerate() {
        let tag = format!("{BASE}/RoomStays/RoomStay[{}]", i + 1);
        if rs.index_number != st.index {
            p.differs(format!("{tag}/@IndexNumber"), format!("IndexNumber {} (stored {})", show(&rs.index_number), show(&st.index)));
        }
        let status = rs.room_stay_status.as_ref().map(|s| s.as_str().to_string());
        if status != st.status {
            p.differs(format!("{tag}/@RoomStayStatus"), format!("RoomStayStatus {} (stored {})", show(&status), show(&st.status)));
        }
        let hotel = rs.basic_property_info.as_ref().and_then(|b| b.hotel_code.clone());
        if hotel.as_deref() != Some(st.hotel.as_str()) {
            p.differs(format!("{tag}/BasicPropertyInfo/@HotelCode"), format!("hotel {} (stored {:?})", show(&hotel), st.hotel));
        }
        let sources: Vec<RoomSource> = rs
            .tpa_extensions
            .as_ref()
            .and_then(|x| x.pos.as_ref())
            .map(|pos| pos.source.iter().map(RoomSource::from_message).collect())
            .unwrap_or_default();
        if sources != st.sources {
            p.differs(format!("{tag}/TPA_Extensions"), "the room stay's extension sources are not the stored ones");
        }
        let reference = rs.reference.as_ref().map(|r| (r.id.clone(), r.r#type.as_ref().map(|t| t.as_str().to_string())));
        if reference != st.reference.as_ref().map(|r| (r.id.clone(), r.kind.clone())) {
            p.differs(format!("{tag}/Reference"), "the room stay's Reference is not the stored one");
        }
        let guests = rs.res_guest_rphs.as_ref().map(|g| g.res_guest_rph.iter().map(|r| r.rph).collect()).unwrap_or_default();
        if sorted(guests) != sorted(st.guests.clone()) {
            p.occupancy(format!("{tag}/ResGuestRPHs"), format!("the guests of room stay {} are not the stored ones", i + 1));
        }
        let services = rs.service_rphs.as_ref().map(|s| s.service_rph.iter().map(|r| r.rph).collect()).unwrap_or_default();
        if sorted(services) != sorted(st.services.clone()) {
            p.differs(format!("{tag}/ServiceRPHs"), format!("the services of room stay {} are not the stored ones", i + 1));
        }

        // Room type, board and dates: the changeable part.
        let types = rs.room_types.as_ref().map(|t| t.room_type.as_slice()).unwrap_or_default();
        let room_type = match types {
            [one] => match one.room_type_code.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                Some(code) => Some(code.to_string()),
                None => {
                    p.push(Problem::required("RoomTypeCode is required.").at(format!("{tag}/RoomTypes/RoomType/@RoomTypeCode")));
                    None
                }
            },
            [] => {
                p.push(Problem::required("A room stay needs its RoomTypes/RoomType.").at(format!("{tag}/RoomTypes")));
                None
            }
            _ => {
                p.push(Problem::biz(ErrorCode::InvalidValue, "A room stay has exactly one RoomType.").at(format!("{tag}/RoomTypes/RoomType[2]")));
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
                        Problem::biz(ErrorCode::InvalidValue, format!("RoomRate@RoomTypeCode {rate_code} is not the RoomType's {code}."))
                            .at(format!("{tag}/RoomRates/RoomRate[{}]/@RoomTypeCode", k + 1)),
                    );
                }
            }
        }
        if rates.len() > 1 {
            p.push(Problem::biz(ErrorCode::InvalidValue, "A room stay has exactly one RoomRate.").at(format!("{tag}/RoomRates/RoomRate[2]")));
        }
        let board = board_of(rs);
        if board.is_none() {
            p.push(Problem::required("The board code (RoomRates/RoomRate/Features/Feature/Description/Text) is required.").at(format!("{tag}/RoomRates")));
        }
        let span = rs.time_span.as_ref().map(|t| (t.start.0, t.end.0));
        if span.is_none() {
            p.push(Problem::required("TimeSpan (Start, End) is required.").at(format!("{tag}/TimeSpan")));
        }
        if let (Some(room_type), Some(board), Some((start, end)), Some(d)) = (room_type, board, span, desired.rooms.get_mut(i))
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

    // Services.
    let rq_services = rq.services.as_ref().map(|s| s.service.as_slice()).unwrap_or_default();
    if rq_services.len() != stored.services.len() {
        p.differs(format!("{BASE}/Services"), format!("the booking has {} services, the request {}", stored.services.len(), rq_services.len()));
    }
    for (j, (sv, st)) in rq_services.iter().zip(&stored.services).enumerate() {
        let tag = format!("{BASE}/Services/Service[{}]", j + 1);
        if sv.service_rph != Some(st.rph) {
            p.differs(format!("{tag}/@ServiceRPH"), format!("ServiceRPH {} (stored {})", show(&sv.service_rph), st.rph));
        }
        let guests = sv
            .service_details
            .as_ref()
            .and_then(|d| d.res_guest_rphs.as_ref())
            .map(|g| g.res_guest_rph.iter().map(|r| r.rph).collect())
            .unwrap_or_default();
        if sorted(guests) != sorted(st.guests.clone()) {
            p.occupancy(format!("{tag}/ServiceDetails/ResGuestRPHs"), format!("the guests of service {} are not the stored ones", st.rph));
        }
        match Service::legs_from(sv) {
            Some(legs) if legs == st.legs => {}
            Some(_) => p.differs(format!("{tag}/TPA_Extensions"), format!("the transfer legs of service {} are not the stored ones", st.rph)),
            None => p.differs(format!("{tag}/TPA_Extensions"), "each end of a transfer leg is either a ConnectingTransport or a Hotel"),
        }
        let code = sv.service_inventory_code.as_deref().map(str::trim).unwrap_or_default();
        // The rooms that use this service, as they should be.
        let users: Vec<&super::booking::Room> = desired.rooms.iter().filter(|r| r.services.contains(&st.rph)).collect();
        let is_board_service = boards.contains(&st.code) && !users.is_empty();
        if code != st.code {
            let follows_rooms = is_board_service && boards.contains(code) && users.iter().all(|r| r.board == code);
            if follows_rooms {
                if let Some(d) = desired.services.get_mut(j) {
                    d.code = code.to_string();
                }
            } else {
                p.differs(format!("{tag}/@ServiceInventoryCode"), format!("service {} is {:?} (stored {:?})", st.rph, code, st.code));
            }
        } else if is_board_service {
            // A board service left unchanged follows the new board of its rooms when they all
            // had this board and now share another one.
            let olds: HashSet<&str> =
                stored.rooms.iter().filter(|r| r.services.contains(&st.rph)).map(|r| r.board.as_str()).collect();
            let news: HashSet<&str> = users.iter().map(|r| r.board.as_str()).collect();
            if olds.len() == 1 && olds.contains(st.code.as_str())
                && let (1, Some(new)) = (news.len(), news.iter().next())
                && let Some(d) = desired.services.get_mut(j)
            {
                d.code = (*new).to_string();
            }
        }
    }

    // Guests.
    let rq_guests = rq.res_guests.as_ref().map(|g| g.res_guest.as_slice()).unwrap_or_default();
    if rq_guests.len() != stored.guests.len() {
        p.occupancy(format!("{BASE}/ResGuests"), format!("the booking has {} guests, the request {}", stored.guests.len(), rq_guests.len()));
    }
    for (k, (g, st)) in rq_guests.iter().zip(&stored.guests).enumerate() {
        let tag = format!("{BASE}/ResGuests/ResGuest[{}]", k + 1);
        if g.res_guest_rph != Some(st.rph) {
            p.occupancy(format!("{tag}/@ResGuestRPH"), format!("ResGuestRPH {} (stored {})", show(&g.res_guest_rph), st.rph));
        }
        let code = g.age_qualifying_code.as_ref().map(|c| c.as_str().to_string());
        if code.as_deref() != Some(st.age_code.as_str()) {
            p.occupancy(format!("{tag}/@AgeQualifyingCode"), format!("guest {} AgeQualifyingCode {} (stored {:?})", st.rph, show(&code), st.age_code));
        }
        let ages: Vec<Option<u64>> = g.guest_counts.as_ref().map(|c| c.guest_count.iter().map(|c| c.age).collect()).unwrap_or_default();
        let stored_ages: Vec<Option<u64>> = st.age.map(|a| vec![Some(a)]).unwrap_or_default();
        if ages != stored_ages {
            p.occupancy(format!("{tag}/GuestCounts"), format!("guest {} age {:?} (stored {})", st.rph, ages.iter().flatten().collect::<Vec<_>>(), show(&st.age)));
        }
        let customer = g.profiles.as_ref().map(|x| &x.profile_info.profile.customer);
        let birth = customer.and_then(|c| c.birth_date).map(|d| d.0);
        if birth != st.birth_date {
            p.occupancy(format!("{tag}/Profiles/ProfileInfo/Profile/Customer/@BirthDate"), format!("guest {} birth date {} (stored {})", st.rph, show(&birth), show(&st.birth_date)));
        }
        let name = person_name(g);
        if name != (st.prefix.clone(), st.given.clone(), st.surname.clone()) {
            let name_tag = format!("{tag}/Profiles/ProfileInfo/Profile/Customer/PersonName");
            if k == 0 {
                p.differs(name_tag, "the lead guest's name cannot be changed");
            } else if [&name.0, &name.1, &name.2].iter().any(|n| n.as_ref().is_some_and(|n| n.chars().count() > MAX_NAME_CHARS)) {
                p.push(Problem::biz(ErrorCode::InvalidValue, format!("A name part has at most {MAX_NAME_CHARS} characters.")).at(name_tag));
            } else if let Some(d) = desired.guests.get_mut(k) {
                (d.prefix, d.given, d.surname) = name;
            }
        }
    }

    // Comments (a minor change).
    let comments = comments_from(rq.res_global_info.comments.as_ref());
    if comments != stored.comments {
        let tag = format!("{BASE}/ResGlobalInfo/Comments");
        if comments.len() > MAX_COMMENTS {
            p.push(Problem::biz(ErrorCode::InvalidValue, format!("A booking has at most {MAX_COMMENTS} comments.")).at(tag));
        } else if comments.iter().flat_map(|c| &c.texts).any(|t| t.text.chars().count() > MAX_COMMENT_CHARS) {
            p.push(Problem::biz(ErrorCode::InvalidValue, format!("A comment text has at most {MAX_COMMENT_CHARS} characters.")).at(tag));
        } else {
            desired.comments = comments;
        }
    }

    // References other than the two booking-level ones that identified the booking.
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
        others.push(ItemRef::from_message(r));
    }
    others.sort();
    let mut stored_others = stored.item_refs.clone();
    stored_others.sort();
    if others != stored_others {
        p.differs(format!("{BASE}/ResGlobalInfo/HotelReservationIDs"), "the item references (HotelReservationID other than the booking's Client and Internal ones) are not the stored ones");
    }

    if p.0.is_empty() { Ok((desired, major)) } else { Err(p.0) }
}
