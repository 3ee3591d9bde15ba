//! A booking's whole life over HTTP, on both backends: a partner's day with a hotel booking
//! (availability → Quote → Commit → read → modify → cancel Quote → cancel Commit → read) and
//! with an activity booking (search → availability → Commit → read → cancel), the inventory checked
//! at each step; and the races: the last room from many clients, a cancel against a modify.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use chrono::{Duration, NaiveDate, Utc};
use ota_gateway::client::Client;
use ota_gateway::store::Scalar;
use ota_messages::booking_read::{BookingStatus, OtaReadRq, OtaResRetrieveRs};
use ota_messages::cancel::{OtaCancelRq, OtaCancelRs, TransactionStatus};
use ota_messages::common::{ErrorCode, IdContext, ResIdSourceContext, ResStatus};
use ota_messages::hotel_avail::{OtaHotelAvailRq, OtaHotelAvailRs};
use ota_messages::hotel_res::{OtaHotelResRq, OtaHotelResRs};
use ota_messages::hotel_res_modify::{OtaHotelResModifyRq, OtaHotelResModifyRs};
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_avail::{OtaTourActivityAvailRq, OtaTourActivityAvailRs};
use ota_messages::tour_activity_book::{OtaTourActivityBookRq, OtaTourActivityBookRs};
use ota_messages::tour_activity_search::{OtaTourActivitySearchRq, OtaTourActivitySearchRs};
use rust_decimal::Decimal;
use support::{Backend, TestServer, backend_tests};

const NS: &str = "http://www.opentravel.org/OTA/2003/05";
const POS_XML: &str = r#"<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>"#;
/// The demo hotel with few rooms: RMDB000000 (2 rooms, 2 guests, SC 55.00 / BB 64.50 a night)
/// and RMSG000000 (1 room), cancellation free until 48 hours before arrival.
const HOTEL: &str = "HTL00105";

fn day(n: i64) -> NaiveDate {
    Utc::now().date_naive() + Duration::days(n)
}

fn avail_rq(start: NaiveDate, end: NaiveDate, adults: u32) -> OtaHotelAvailRq {
    OtaHotelAvailRq::from_xml(&format!(
        r#"<OTA_HotelAvailRQ xmlns="{NS}" Version="2008.1">{POS_XML}<AvailRequestSegments><AvailRequestSegment><HotelSearchCriteria><Criterion><HotelRef HotelCode="{HOTEL}"/></Criterion></HotelSearchCriteria><StayDateRange Start="{start}" End="{end}"/><RoomStayCandidates><RoomStayCandidate RPH="1"><GuestCounts><GuestCount AgeQualifyingCode="10" Count="{adults}"/></GuestCounts></RoomStayCandidate></RoomStayCandidates></AvailRequestSegment></AvailRequestSegments></OTA_HotelAvailRQ>"#
    ))
    .unwrap()
}

fn book_rq(status: &str, client_ref: &str, room: &str, board: &str, start: NaiveDate, end: NaiveDate) -> OtaHotelResRq {
    OtaHotelResRq::from_xml(&format!(
        r#"<OTA_HotelResRQ xmlns="{NS}" Version="2008.1" ResStatus="{status}">{POS_XML}<HotelReservations><HotelReservation>
<RoomStays><RoomStay RPH="1"><RoomTypes><RoomType RoomTypeCode="{room}"/></RoomTypes><RoomRates><RoomRate RoomTypeCode="{room}"><Features><Feature><Description><Text>{board}</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{HOTEL}"/><ResGuestRPHs><ResGuestRPH RPH="1"/><ResGuestRPH RPH="2"/></ResGuestRPHs></RoomStay></RoomStays>
<ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest><ResGuest ResGuestRPH="2" AgeQualifyingCode="10"/></ResGuests>
<ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client_ref}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo>
</HotelReservation></HotelReservations></OTA_HotelResRQ>"#
    ))
    .unwrap()
}

fn read_rq(id: &str, context: &str) -> OtaReadRq {
    OtaReadRq::from_xml(&format!(r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1">{POS_XML}<UniqueID Type="36" ID="{id}" ID_Context="{context}"/></OTA_ReadRQ>"#))
        .unwrap()
}

/// A modify Commit of the demo requestor carrying `payload` (the booking as read, changed).
fn modify_commit(payload: ota_messages::hotel_res_modify::HotelResModify) -> OtaHotelResModifyRq {
    OtaHotelResModifyRq {
        version: "2008.1".into(),
        res_status: Some(ResStatus::Commit),
        pos: read_rq("X", "Client").pos,
        hotel_res_modifies: ota_messages::hotel_res_modify::HotelResModifies { hotel_res_modify: payload },
        ..Default::default()
    }
}

fn cancel_rq(cancel_type: &str, kind: &str, id: &str, context: &str) -> OtaCancelRq {
    OtaCancelRq::from_xml(&format!(
        r#"<OTA_CancelRQ xmlns="{NS}" Version="2008.1" CancelType="{cancel_type}">{POS_XML}<UniqueID Type="{kind}" ID="{id}" ID_Context="{context}"/></OTA_CancelRQ>"#
    ))
    .unwrap()
}

/// Asserts that a cancel answer's `CancelByDate` is now, as the local time of the hotel or
/// activity with its UTC offset (Madrid's demo content: `+01:00` or `+02:00`, never a local
/// time marked `Z`).
fn registered_now(rs: &OtaCancelRs) {
    let rule = &rs.cancel_info_rs.as_ref().unwrap().cancel_rules.as_ref().unwrap().cancel_rule[0];
    let at = rule.cancel_by_date.as_ref().unwrap();
    let offset = match at.zone {
        Some(ota_messages::runtime::Zone::Offset(m)) => i64::from(m),
        other => panic!("CancelByDate {at:?}: the place's offset expected, not {other:?}"),
    };
    assert!([60, 120].contains(&offset), "Madrid's offset expected: {offset} minutes");
    let utc = at.local - Duration::minutes(offset);
    let off_by = (Utc::now().naive_utc() - utc).num_seconds().abs();
    assert!(off_by < 120, "CancelByDate {at:?} is {off_by} s from now");
}

fn error_code<R: Response<Errors = ota_messages::common::Errors>>(rs: &R) -> Option<ErrorCode> {
    rs.errors().and_then(|e| e.error.first()).and_then(|e| e.code.clone())
}

fn warning_codes<R: Response<Warnings = ota_messages::common::Warnings>>(rs: &R) -> Vec<ErrorCode> {
    rs.warnings().map(|w| w.warning.iter().filter_map(|w| w.code.clone()).collect()).unwrap_or_default()
}

fn internal_ref(rs: &OtaHotelResRs) -> Option<String> {
    let ids = &rs
        .hotel_reservations
        .as_ref()?
        .hotel_reservation
        .res_global_info
        .hotel_reservation_ids
        .as_ref()?
        .hotel_reservation_id;
    ids.iter().find(|r| r.res_id_source_context == ResIdSourceContext::Internal).map(|r| r.res_id_value.clone())
}

fn total(rs: &OtaHotelResRs) -> Decimal {
    rs.hotel_reservations.as_ref().unwrap().hotel_reservation.res_global_info.total.amount_after_tax.unwrap().0
}

/// Rooms sold of a room type of [`HOTEL`] on a night, as stored.
async fn sold(server: &TestServer, room: &str, night: NaiveDate) -> i64 {
    let room = room.to_string();
    server
        .store()
        .read(move |c| {
            Box::pin(async move {
                let row: Option<Scalar<i64>> = c
                    .query_opt(
                        "SELECT rooms FROM hotel_rooms_sold WHERE hotel_code = $1 AND room_code = $2 AND night = $3",
                        &[&HOTEL, &room, &night],
                    )
                    .await?;
                Ok::<_, ota_gateway::store::StoreError>(row.map_or(0, |Scalar(n)| n))
            })
        })
        .await
        .unwrap()
}

/// Whether availability offers a room type for the stay.
async fn offered(client: &Client, room: &str, start: NaiveDate, end: NaiveDate) -> bool {
    let rs: OtaHotelAvailRs = client.send(&avail_rq(start, end, 2)).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    rs.room_stays.as_ref().is_some_and(|r| {
        r.room_stay.iter().any(|s| s.room_types.room_type.iter().any(|t| t.room_type_code.as_deref() == Some(room)))
    })
}

pub(crate) async fn hotel_partner_day(b: Backend) {
    let server = TestServer::start(b).await;
    let client = server.client();
    let (start, end) = (day(40), day(43));
    const ROOM: &str = "RMDB000000";

    // Availability offers the double room, priced from the rates, with its cancellation terms.
    let rs: OtaHotelAvailRs = client.send(&avail_rq(start, end, 2)).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    let board = |s: &ota_messages::hotel_avail::AvailRoomStay| {
        s.room_rates.room_rate[0].features.feature[0].description.as_ref().unwrap().text[0].value.clone()
    };
    let offer = rs
        .room_stays
        .as_ref()
        .unwrap()
        .room_stay
        .iter()
        .find(|s| s.room_types.room_type[0].room_type_code.as_deref() == Some(ROOM) && board(s) == "BB")
        .cloned();
    let offer = offer.expect("the double room is offered");
    assert!(offer.cancel_penalties.as_ref().is_some_and(|p| !p.cancel_penalty.is_empty()));
    assert!(offer.room_rates.room_rate[0].rates.is_none(), "nightly rates only with PriceBreakdown");
    let breakdown = avail_rq(start, end, 2)
        .to_xml()
        .unwrap()
        .replace(r#"ID_Context="DEMO-DIST""#, r#"ID_Context="DEMO-DIST" Instance="PriceBreakdown""#);
    let rs: OtaHotelAvailRs = client.send(&OtaHotelAvailRq::from_xml(&breakdown).unwrap()).await.unwrap();
    let nights =
        rs.room_stays.as_ref().unwrap().room_stay[0].room_rates.room_rate[0].rates.as_ref().map(|r| r.rate.len());
    assert_eq!(nights, Some(3), "one rate per night");
    // Three guests do not fit a double room.
    let rs: OtaHotelAvailRs = client.send(&avail_rq(start, end, 3)).await.unwrap();
    assert!(
        rs.room_stays.as_ref().is_none_or(|r| r
            .room_stay
            .iter()
            .all(|s| s.room_types.room_type[0].room_type_code.as_deref() != Some(ROOM)))
    );

    // Quote: priced as offered, nothing stored, no Internal reference.
    let quote: OtaHotelResRs = client.send(&book_rq("Quote", "DAY-H-1", ROOM, "BB", start, end)).await.unwrap();
    assert!(quote.is_success(), "{:?}", quote.errors());
    assert_eq!(total(&quote).to_string(), "193.50");
    assert_eq!(Some(total(&quote)), offer.total.amount_after_tax.map(|d| d.0), "the price offered");
    assert_eq!(internal_ref(&quote), None);
    assert_eq!(sold(&server, ROOM, start).await, 0);

    // Commit: booked once, the room taken for each night; a repeated Commit answers the same booking.
    let committed: OtaHotelResRs = client.send(&book_rq("Commit", "DAY-H-1", ROOM, "BB", start, end)).await.unwrap();
    assert!(committed.is_success(), "{:?}", committed.errors());
    let internal = internal_ref(&committed).expect("an Internal reference");
    let again: OtaHotelResRs = client.send(&book_rq("Commit", "DAY-H-1", ROOM, "BB", start, end)).await.unwrap();
    assert_eq!(internal_ref(&again).as_deref(), Some(internal.as_str()));
    for n in 40..43 {
        assert_eq!(sold(&server, ROOM, day(n)).await, 1, "night {n}");
    }
    assert_eq!(sold(&server, ROOM, end).await, 0, "the departure day is not a night");
    // Asked for something else under the same Client reference: the booking made, and a warning.
    let other: OtaHotelResRs = client.send(&book_rq("Commit", "DAY-H-1", ROOM, "SC", start, end)).await.unwrap();
    assert_eq!(internal_ref(&other).as_deref(), Some(internal.as_str()));
    assert_eq!(warning_codes(&other), vec![ErrorCode::ReservationAlreadyExists]);

    // The second room sells; the third is refused, and availability no longer offers it.
    let second: OtaHotelResRs = client.send(&book_rq("Commit", "DAY-H-2", ROOM, "SC", start, end)).await.unwrap();
    assert!(second.is_success(), "{:?}", second.errors());
    let third: OtaHotelResRs = client.send(&book_rq("Commit", "DAY-H-3", ROOM, "SC", day(42), day(44))).await.unwrap();
    assert_eq!(error_code(&third), Some(ErrorCode::NoAvailability));
    let quote: OtaHotelResRs = client.send(&book_rq("Quote", "DAY-H-3", ROOM, "SC", day(42), day(44))).await.unwrap();
    assert_eq!(error_code(&quote), Some(ErrorCode::NoAvailability));
    assert!(!offered(&client, ROOM, start, end).await);
    assert_eq!(sold(&server, ROOM, day(43)).await, 0, "a refused Commit takes nothing");

    // Read: the booking as made, with its cancellation terms.
    let read: OtaResRetrieveRs = client.send(&read_rq(&internal, "Internal")).await.unwrap();
    assert!(read.is_success(), "{:?}", read.errors());
    let reservation = read.reservations_list.as_ref().unwrap().hotel_reservation[0].clone();
    assert_eq!(reservation.res_status, BookingStatus::Reserved);

    // Modify: three nights later; the rooms move with it.
    let mut payload = ota_gateway::hotels::modify_payload(&reservation).unwrap();
    let stay = &mut payload.room_stays.as_mut().unwrap().room_stay[0];
    stay.time_span = Some(ota_messages::common::DateSpan {
        start: ota_messages::runtime::Date(day(44)),
        end: ota_messages::runtime::Date(day(47)),
    });
    let modify = modify_commit(payload);
    let modified: OtaHotelResModifyRs = client.send(&modify).await.unwrap();
    assert!(modified.is_success(), "{:?}", modified.errors());
    // Re-priced from the new arrival, with the policy's deadline moved with it (48 hours before).
    let moved =
        &modified.hotel_res_modifies.as_ref().unwrap().hotel_res_modify.room_stays.as_ref().unwrap().room_stay[0];
    let deadline =
        moved.cancel_penalties.as_ref().unwrap().cancel_penalty[0].deadline.as_ref().unwrap().absolute_deadline.local;
    assert_eq!(deadline, day(42).and_time(chrono::NaiveTime::MIN));
    assert_eq!(sold(&server, ROOM, day(40)).await, 1, "given back: only the second booking holds it");
    assert_eq!(sold(&server, ROOM, day(44)).await, 1, "taken on the new nights");
    assert!(offered(&client, ROOM, start, end).await);

    // Cancel: Quote costs nothing yet (free until 48 hours before) and changes nothing.
    let quote: OtaCancelRs = client.send(&cancel_rq("Quote", "36", "DAY-H-1", "Client")).await.unwrap();
    assert!(quote.is_success(), "{:?}", quote.errors());
    assert_eq!(quote.status, TransactionStatus::Pending);
    let rule = &quote.cancel_info_rs.as_ref().unwrap().cancel_rules.as_ref().unwrap().cancel_rule[0];
    assert_eq!(rule.amount.unwrap().0, Decimal::ZERO);
    registered_now(&quote);
    assert_eq!(sold(&server, ROOM, day(44)).await, 1);
    // Commit cancels and gives the rooms back; the answer names both references.
    let cancelled: OtaCancelRs = client.send(&cancel_rq("Commit", "36", "DAY-H-1", "Client")).await.unwrap();
    assert!(cancelled.is_success(), "{:?}", cancelled.errors());
    assert_eq!(cancelled.status, TransactionStatus::Committed);
    assert!(cancelled.unique_id.iter().any(|u| u.id == internal && u.id_context == IdContext::Internal));
    assert!(cancelled.unique_id.iter().any(|u| u.id == "DAY-H-1"
        && u.id_context == IdContext::Client
        && u.company_name.as_ref().and_then(|c| c.code.as_deref()) == Some("DEMO")));
    assert_eq!(sold(&server, ROOM, day(44)).await, 0);
    // Repeated: the same outcome, no second penalty; a Quote now is refused.
    let repeated: OtaCancelRs = client.send(&cancel_rq("Commit", "36", &internal, "Internal")).await.unwrap();
    assert!(repeated.is_success());
    assert_eq!(repeated.status, TransactionStatus::Committed);
    assert_eq!(warning_codes(&repeated), vec![ErrorCode::BookingAlreadyCancelled]);
    assert_eq!(repeated.cancel_info_rs, cancelled.cancel_info_rs);
    let quote: OtaCancelRs = client.send(&cancel_rq("Quote", "36", "DAY-H-1", "Client")).await.unwrap();
    assert_eq!(error_code(&quote), Some(ErrorCode::BookingAlreadyCancelled));
    assert_eq!(sold(&server, ROOM, day(44)).await, 0, "given back once");

    // Read: cancelled; a modify is refused.
    let read: OtaResRetrieveRs = client.send(&read_rq("DAY-H-1", "Client")).await.unwrap();
    assert_eq!(read.reservations_list.as_ref().unwrap().hotel_reservation[0].res_status, BookingStatus::Cancelled);
    let again: OtaHotelResModifyRs = client.send(&modify).await.unwrap();
    assert_eq!(error_code(&again), Some(ErrorCode::BookingAlreadyCancelled));

    // Unknown and other partners' references are answered alike.
    let unknown: OtaCancelRs = client.send(&cancel_rq("Quote", "36", "NO-SUCH-REF", "Client")).await.unwrap();
    assert_eq!(error_code(&unknown), Some(ErrorCode::BookingReferenceNotFound));
}

pub(crate) async fn hotel_item_cancel_and_the_last_item(b: Backend) {
    let server = TestServer::start(b).await;
    let client = server.client();
    let (start, end) = (day(50), day(52));
    // Two rooms in one booking: the double (2 guests) and the single (1 guest).
    let xml = book_rq("Commit", "DAY-I-1", "RMDB000000", "SC", start, end).to_xml().unwrap().replace(
        "</RoomStay></RoomStays>",
        &format!(r#"</RoomStay><RoomStay RPH="2"><RoomTypes><RoomType RoomTypeCode="RMSG000000"/></RoomTypes><RoomRates><RoomRate RoomTypeCode="RMSG000000"><Features><Feature><Description><Text>SC</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{HOTEL}"/><ResGuestRPHs><ResGuestRPH RPH="3"/></ResGuestRPHs></RoomStay></RoomStays>"#),
    ).replace("</ResGuests>", r#"<ResGuest ResGuestRPH="3" AgeQualifyingCode="11"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Joan</GivenName><Surname>Puig</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests>"#);
    let rs: OtaHotelResRs = client.send(&OtaHotelResRq::from_xml(&xml).unwrap()).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    let internal = internal_ref(&rs).unwrap();
    let stays = &rs.hotel_reservations.as_ref().unwrap().hotel_reservation.room_stays.room_stay;
    assert_eq!(stays[1].reference.as_ref().unwrap().id, format!("{internal}-2"));
    assert_eq!(sold(&server, "RMSG000000", start).await, 1);

    // The single room alone: the booking stays, the room is given back.
    let one: OtaCancelRs = client.send(&cancel_rq("Commit", "37", &format!("{internal}-2"), "Internal")).await.unwrap();
    assert!(one.is_success(), "{:?}", one.errors());
    assert!(one.warnings.is_none());
    assert_eq!(one.unique_id[0].id, format!("{internal}-2"));
    assert_eq!(sold(&server, "RMSG000000", start).await, 0);
    assert_eq!(sold(&server, "RMDB000000", start).await, 1);
    let read: OtaResRetrieveRs = client.send(&read_rq(&internal, "Internal")).await.unwrap();
    let r = &read.reservations_list.as_ref().unwrap().hotel_reservation[0];
    assert_eq!(r.res_status, BookingStatus::Reserved);
    let rooms = &r.room_stays.as_ref().unwrap().room_stay;
    assert_eq!(rooms[1].room_stay_status.as_ref().map(|s| s.as_str()), Some("Cancelled"));
    assert!(rooms[1].cancel_penalties.is_none() && rooms[0].cancel_penalties.is_some(), "terms only for the live room");
    // A modify built from that read (a comment added) keeps the cancelled room as it is.
    let payload = crate::support::with_a_remark(r);
    let modify = modify_commit(payload);
    let modified: OtaHotelResModifyRs = client.send(&modify).await.unwrap();
    assert!(modified.is_success(), "{:?}", modified.errors());
    let after = &modified.hotel_res_modifies.as_ref().unwrap().hotel_res_modify.room_stays.as_ref().unwrap().room_stay;
    assert_eq!(after[1].room_stay_status.as_ref().map(|s| s.as_str()), Some("Cancelled"));
    assert_eq!((sold(&server, "RMSG000000", start).await, sold(&server, "RMDB000000", start).await), (0, 1));
    // The last live room: the whole booking is cancelled, with a warning.
    let last: OtaCancelRs =
        client.send(&cancel_rq("Commit", "37", &format!("{internal}-1"), "Internal")).await.unwrap();
    assert!(last.is_success(), "{:?}", last.errors());
    assert_eq!(warning_codes(&last), vec![ErrorCode::BookingAlreadyCancelled]);
    assert_eq!(sold(&server, "RMDB000000", start).await, 0);
    let read: OtaResRetrieveRs = client.send(&read_rq(&internal, "Internal")).await.unwrap();
    assert_eq!(read.reservations_list.as_ref().unwrap().hotel_reservation[0].res_status, BookingStatus::Cancelled);
}

async fn hotel_booking_refusals(b: Backend) {
    let server = TestServer::start(b).await;
    let client = server.client();
    let (start, end) = (day(60), day(62));
    let send = |rq: OtaHotelResRq| {
        let client = client.clone();
        async move { client.send(&rq).await.unwrap() }
    };
    // Six rooms: Type 3 / 378.
    let six = book_rq("Quote", "R-1", "RMDB000000", "SC", start, end).to_xml().unwrap();
    let stay = six[six.find("<RoomStay RPH").unwrap()..six.find("</RoomStays>").unwrap()].to_string();
    let many = six.replace("</RoomStays>", &format!("{}</RoomStays>", stay.repeat(5)));
    let rs: OtaHotelResRs = send(OtaHotelResRq::from_xml(&many).unwrap()).await;
    assert_eq!(error_code(&rs), Some(ErrorCode::MaxNumberOfRoomsExceeded));
    // Unknown room type, unknown board, past dates, no Client reference on Commit.
    let rs: OtaHotelResRs = send(book_rq("Quote", "R-1", "RMXX000000", "SC", start, end)).await;
    assert_eq!(error_code(&rs), Some(ErrorCode::InvalidRoomTypeCode));
    let rs: OtaHotelResRs = send(book_rq("Quote", "R-1", "RMDB000000", "ZZ", start, end)).await;
    assert_eq!(error_code(&rs), Some(ErrorCode::InvalidValue));
    let rs: OtaHotelResRs = send(book_rq("Quote", "R-1", "RMDB000000", "SC", day(-2), day(1))).await;
    assert_eq!(error_code(&rs), Some(ErrorCode::StartDateInvalid));
    let xml = book_rq("Commit", "R-1", "RMDB000000", "SC", start, end)
        .to_xml()
        .unwrap()
        .replace("ResID_SourceContext=\"Client\"", "ResID_SourceContext=\"Internal\"");
    let rs: OtaHotelResRs = send(OtaHotelResRq::from_xml(&xml).unwrap()).await;
    assert_eq!(error_code(&rs), Some(ErrorCode::RequiredFieldMissing));
    // A Quote whose reference is not a Client one (found by the gateway fuzz target): priced,
    // and answered without references rather than with an empty, invalid HotelReservationIDs.
    let xml = book_rq("Quote", "R-1", "RMDB000000", "SC", start, end)
        .to_xml()
        .unwrap()
        .replace("ResID_Type=\"36\"", "ResID_Type=\"18\"");
    assert!(xml.contains("ResID_Type=\"18\""));
    let rs: OtaHotelResRs = send(OtaHotelResRq::from_xml(&xml).unwrap()).await;
    assert!(rs.is_success(), "{:?}", rs.errors());
    let global = &rs.hotel_reservations.as_ref().unwrap().hotel_reservation.res_global_info;
    assert!(global.hotel_reservation_ids.is_none());
    // A Client reference longer than the 64 characters a booking reference may have (found by
    // the gateway fuzz target: it reached the database's CHECK and was answered Type 12).
    let xml = book_rq("Commit", "R-LONG", "RMDB000000", "SC", start, end)
        .to_xml()
        .unwrap()
        .replace("R-LONG", &"R".repeat(65));
    let (_, _, answer) = server.client().send_raw("/hotelbook", xml, "application/xml").await.unwrap();
    let rs = OtaHotelResRs::from_xml(&answer).unwrap();
    assert!(!rs.is_success());
    assert!(error_code(&rs).is_some_and(|c| c != ErrorCode::SystemError), "{:?}", rs.errors());
    let error = &rs.errors().unwrap().error[0];
    // Valid OpenTravel 2016B (an xs:string there): refused as not supported, naming the limit.
    assert!(
        error.tag.as_deref().is_some_and(|t| t.ends_with("/HotelReservationIDs/HotelReservationID[1]/@ResID_Value")),
        "{error:?}"
    );
    assert!(error.value.contains("@ResID_Value") && error.value.contains("at most 64 characters"), "{error:?}");
    // None of the refused requests took a room.
    assert_eq!(
        support::count(server.store(), "hotel_rooms_sold WHERE hotel_code = 'HTL00105'").await,
        0,
        "nothing was taken"
    );
}

/// The last room, wanted by many clients at once: sold once.
pub(crate) async fn the_last_room_is_sold_once(b: Backend) {
    let server = TestServer::start(b).await;
    let (start, end) = (day(70), day(72));
    // One of the two double rooms is sold (and the partner logged in) before the race.
    let first: OtaHotelResRs =
        server.client().send(&book_rq("Commit", "RACE-FIRST", "RMDB000000", "SC", start, end)).await.unwrap();
    assert!(first.is_success(), "{:?}", first.errors());
    // Availability offers the last one (and its read of the rooms sold is kept for a moment).
    assert!(offered(&server.client(), "RMDB000000", start, end).await);
    let mut tasks = Vec::new();
    for i in 0..12 {
        let client = server.client();
        tasks.push(tokio::spawn(async move {
            let rs: OtaHotelResRs =
                client.send(&book_rq("Commit", &format!("RACE-{i}"), "RMDB000000", "SC", start, end)).await.unwrap();
            rs
        }));
    }
    let mut booked = 0;
    for t in tasks {
        let rs = t.await.unwrap();
        if rs.is_success() {
            booked += 1;
        } else {
            assert_eq!(error_code(&rs), Some(ErrorCode::NoAvailability), "{:?}", rs.errors());
        }
    }
    assert_eq!(booked, 1);
    assert_eq!(sold(&server, "RMDB000000", start).await, 2);
    // At once, no longer offered: the kept read is not served after the booking.
    assert!(!offered(&server.client(), "RMDB000000", start, end).await);
}

/// A cancel and a modify of the same booking at once: one consistent outcome — the booking
/// cancelled and its rooms (wherever the modify put them, or not) all given back.
pub(crate) async fn a_cancel_racing_a_modify_leaves_one_outcome(b: Backend) {
    let server = TestServer::start(b).await;
    let client = server.client();
    let (start, end) = (day(80), day(82));
    for round in 0..4 {
        let client_ref = format!("RACE-CM-{round}");
        let rs: OtaHotelResRs =
            client.send(&book_rq("Commit", &client_ref, "RMDB000000", "SC", start, end)).await.unwrap();
        assert!(rs.is_success(), "{:?}", rs.errors());
        let read: OtaResRetrieveRs = client.send(&read_rq(&client_ref, "Client")).await.unwrap();
        let mut payload =
            ota_gateway::hotels::modify_payload(&read.reservations_list.as_ref().unwrap().hotel_reservation[0])
                .unwrap();
        payload.room_stays.as_mut().unwrap().room_stay[0].time_span = Some(ota_messages::common::DateSpan {
            start: ota_messages::runtime::Date(day(83)),
            end: ota_messages::runtime::Date(day(85)),
        });
        let modify = modify_commit(payload);
        let (c1, c2) = (client.clone(), client.clone());
        let cancel = cancel_rq("Commit", "36", &client_ref, "Client");
        let (modified, cancelled) =
            tokio::join!(async move { c1.send(&modify).await.unwrap() as OtaHotelResModifyRs }, async move {
                c2.send(&cancel).await.unwrap() as OtaCancelRs
            });
        assert!(cancelled.is_success(), "the cancel always lands: {:?}", cancelled.errors());
        let read: OtaResRetrieveRs = client.send(&read_rq(&client_ref, "Client")).await.unwrap();
        let stored = &read.reservations_list.as_ref().unwrap().hotel_reservation[0];
        assert_eq!(stored.res_status, BookingStatus::Cancelled);
        if !modified.is_success() {
            let code = error_code(&modified);
            assert!(
                matches!(code, Some(ErrorCode::BookingAlreadyCancelled) | Some(ErrorCode::RequestedActionNotPossible)),
                "{code:?}"
            );
        }
        for n in 80..85 {
            assert_eq!(sold(&server, "RMDB000000", day(n)).await, 0, "round {round}, night {n}: every room given back");
        }
    }
}

fn activity_book_rq(status: &str, client_ref: &str, date: NaiveDate) -> OtaTourActivityBookRq {
    let xml = support::sample("tour_activity_book")
        .replace("2025-07-03", &date.to_string())
        .replace(r#"ResStatus="Quote""#, &format!(r#"ResStatus="{status}""#))
        .replace("CLI-ACT-2025-0077", client_ref);
    OtaTourActivityBookRq::from_xml(&xml).unwrap()
}

async fn places_booked(server: &TestServer, date: NaiveDate) -> i64 {
    server
        .store()
        .read(move |c| {
            Box::pin(async move {
                let row: Option<Scalar<i64>> = c
                    .query_opt(
                        "SELECT places FROM activity_places_booked WHERE activity_id = 'LESPMIBKUI' AND product_code = 'TE0CC00A' AND service_code = 'TRF' AND date = $1",
                        &[&date],
                    )
                    .await?;
                Ok::<_, ota_gateway::store::StoreError>(row.map_or(0, |Scalar(n)| n))
            })
        })
        .await
        .unwrap()
}

pub(crate) async fn activity_partner_day(b: Backend) {
    let server = TestServer::start(b).await;
    let client = server.client();
    let date = day(10);
    // Search around the partner's hotel, then the availability of the transfer.
    let search = support::sample("tour_activity_search")
        .replace("2025-08-01", &day(2).to_string())
        .replace("2025-08-15", &day(16).to_string());
    let rs: OtaTourActivitySearchRs = client.send(&OtaTourActivitySearchRq::from_xml(&search).unwrap()).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    assert!(rs.tour_activity_info.iter().any(|a| a.basic_info.tour_activity_id == "LESPMIBKUI"));
    let avail = support::sample("tour_activity_avail")
        .replace("2025-07-02", &day(9).to_string())
        .replace("2025-07-07", &day(11).to_string());
    let rs: OtaTourActivityAvailRs = client.send(&OtaTourActivityAvailRq::from_xml(&avail).unwrap()).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    assert!(!rs.tour_activity_info.is_empty());
    let rs: OtaTourActivityBookRs = client.send(&activity_book_rq("Commit", "DAY-A-1", date)).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    let internal = rs
        .reservation_details
        .as_ref()
        .unwrap()
        .confirmation
        .iter()
        .find(|c| c.id_context == Some(IdContext::Internal))
        .unwrap()
        .id
        .clone();
    assert_eq!(places_booked(&server, date).await, 3);

    // Read: the activity booking as a HotelReservation without room stays, its service in full.
    let read: OtaResRetrieveRs = client.send(&read_rq("DAY-A-1", "Client")).await.unwrap();
    assert!(read.is_success(), "{:?}", read.errors());
    let r = &read.reservations_list.as_ref().unwrap().hotel_reservation[0];
    assert_eq!((r.room_stay_reservation, &r.res_status), (Some(false), &BookingStatus::Reserved));
    assert!(r.room_stays.is_none());
    let service = &r.services.as_ref().unwrap().service[0];
    let details = service.service_details.as_ref().unwrap();
    assert_eq!(details.time_span.as_ref().unwrap().start.local.date(), date);
    assert_eq!(details.res_guest_rphs.as_ref().unwrap().res_guest_rph.len(), 3);
    assert!(details.cancel_penalties.as_ref().is_some_and(|p| !p.cancel_penalty.is_empty()));
    assert_eq!(service.tpa_extensions.as_ref().unwrap().tour_activity.as_ref().unwrap().tour_activity_id, "LESPMIBKUI");
    assert_eq!(r.res_guests.as_ref().unwrap().res_guest.len(), 3);
    // The list shows it, after the hotel bookings.
    let list = OtaReadRq::from_xml(&format!(
        r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1" ReturnListIndicator="true">{POS_XML}<ReadRequests><HotelReadRequest><SelectionCriteria Start="{date}" End="{date}" DateType="ArrivalDate"/></HotelReadRequest></ReadRequests></OTA_ReadRQ>"#
    ))
    .unwrap();
    let rs: OtaResRetrieveRs = client.send(&list).await.unwrap();
    let lines = &rs.reservations_list.as_ref().unwrap().hotel_reservation;
    assert!(
        lines.iter().any(|l| l.room_stay_reservation == Some(false) && l.unique_id.iter().any(|u| u.id == internal))
    );

    // A modify names it: not supported for activity bookings (Type 2), not "not found"; by
    // either reference (another partner's stays unknown: below).
    for (id, context) in [("DAY-A-1", "Client"), (internal.as_str(), "Internal")] {
        let modify = OtaHotelResModifyRq::from_xml(&format!(
            r#"<OTA_HotelResModifyRQ xmlns="{NS}" Version="2008.1" ResStatus="Quote">{POS_XML}<HotelResModifies><HotelResModify><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{id}" ResID_SourceContext="{context}"/></HotelReservationIDs></ResGlobalInfo></HotelResModify></HotelResModifies></OTA_HotelResModifyRQ>"#
        ))
        .unwrap();
        let rs: OtaHotelResModifyRs = client.send(&modify).await.unwrap();
        let error = &rs.errors().unwrap().error[0];
        assert_eq!(error.r#type, ota_messages::common::ErrorWarningType::NoImplementation, "{error:?}");
        assert!(error.value.contains("activity booking"), "{error:?}");
    }

    // Cancel Quote: free (the demo policy: 24 hours), nothing changes.
    let quote: OtaCancelRs = client.send(&cancel_rq("Quote", "36", "DAY-A-1", "Client")).await.unwrap();
    assert!(quote.is_success(), "{:?}", quote.errors());
    assert_eq!(quote.status, TransactionStatus::Pending);
    registered_now(&quote);
    assert_eq!(places_booked(&server, date).await, 3);
    // The service as the item: the last live one, so the booking is cancelled; places back.
    let cancelled: OtaCancelRs =
        client.send(&cancel_rq("Commit", "37", &format!("{internal}-1"), "Internal")).await.unwrap();
    assert!(cancelled.is_success(), "{:?}", cancelled.errors());
    assert_eq!(cancelled.status, TransactionStatus::Committed);
    assert_eq!(warning_codes(&cancelled), vec![ErrorCode::BookingAlreadyCancelled]);
    assert_eq!(places_booked(&server, date).await, 0);
    let again: OtaCancelRs = client.send(&cancel_rq("Commit", "36", &internal, "Internal")).await.unwrap();
    assert_eq!(again.status, TransactionStatus::Committed);
    assert_eq!(again.cancel_info_rs, cancelled.cancel_info_rs);
    assert_eq!(places_booked(&server, date).await, 0, "given back once");
    let read: OtaResRetrieveRs = client.send(&read_rq(&internal, "Internal")).await.unwrap();
    assert_eq!(read.reservations_list.as_ref().unwrap().hotel_reservation[0].res_status, BookingStatus::Cancelled);
    assert_eq!(warning_codes(&read), vec![ErrorCode::BookingAlreadyCancelled]);
    // Another partner cannot see it.
    let foreign = format!(
        r#"<OTA_CancelRQ xmlns="{NS}" Version="2008.1" CancelType="Quote"><POS><Source><RequestorID Type="22" ID="PARTNER2" ID_Context="P2-DIST"/></Source><Source><RequestorID Type="88" ID="PARTNER2" MessagePassword="partner2-pass"/></Source></POS><UniqueID Type="36" ID="{internal}" ID_Context="Internal"/></OTA_CancelRQ>"#
    );
    let rs: OtaCancelRs = client.send(&OtaCancelRq::from_xml(&foreign).unwrap()).await.unwrap();
    assert_eq!(error_code(&rs), Some(ErrorCode::BookingReferenceNotFound));
    let foreign = format!(
        r#"<OTA_HotelResModifyRQ xmlns="{NS}" Version="2008.1" ResStatus="Quote"><POS><Source><RequestorID Type="22" ID="PARTNER2" ID_Context="P2-DIST"/></Source><Source><RequestorID Type="88" ID="PARTNER2" MessagePassword="partner2-pass"/></Source></POS><HotelResModifies><HotelResModify><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{internal}" ResID_SourceContext="Internal"/></HotelReservationIDs></ResGlobalInfo></HotelResModify></HotelResModifies></OTA_HotelResModifyRQ>"#
    );
    let rs: OtaHotelResModifyRs = client.send(&OtaHotelResModifyRq::from_xml(&foreign).unwrap()).await.unwrap();
    assert_eq!(error_code(&rs), Some(ErrorCode::BookingReferenceNotFound), "another partner's: not found");
}

/// `ota-gateway send` posts each of the new messages to its path and prints the answer.
async fn send_posts_the_new_messages(b: Backend) {
    let server = TestServer::start(b).await;
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (day(30).to_string(), day(33).to_string());
    let hotel_res = support::sample("hotel_res").replace("2025-07-01", &from).replace("2025-07-04", &to);
    for (name, xml, root) in [
        (
            "avail.xml",
            support::sample("hotel_avail").replace("2025-07-01", &from).replace("2025-07-04", &to),
            "OTA_HotelAvailRS",
        ),
        ("book.xml", hotel_res, "OTA_HotelResRS"),
        ("cancel.xml", support::sample("cancel"), "OTA_CancelRS"),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, xml).unwrap();
        let url = server.url().to_string();
        let out = tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
                .arg("send")
                .arg(url)
                .arg(file)
                .output()
                .unwrap()
        })
        .await
        .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{name}: {stdout} {}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains(root) && stdout.contains("<Success/>"), "{name}: {stdout}");
    }
}

backend_tests!(
    send_posts_the_new_messages,
    hotel_partner_day,
    hotel_item_cancel_and_the_last_item,
    hotel_booking_refusals,
    the_last_room_is_sold_once,
    a_cancel_racing_a_modify_leaves_one_outcome,
    activity_partner_day,
);
