//! The hotel operations on both backends, called directly (at a fixed time) on a fresh database
//! with the demo content: hotel NBC, booking read (by reference and as a list) and the
//! read-then-modify flow, with its version check. The last tests go through HTTP with the typed
//! client.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use chrono::{TimeZone, Utc};
use ota_messages::booking_read::{BookingStatus, HotelReservation, OtaReadRq, OtaResRetrieveRs};
use ota_messages::common::{
    AgeQualifyingCode, ErrorCode, ErrorWarningType, IdContext, Pos, RequestorId, RequestorIdCode, ResStatus, Source,
    Text,
};
use ota_messages::hotel_descriptive_info::{OtaHotelDescriptiveInfoRq, OtaHotelDescriptiveInfoRs};
use ota_messages::hotel_res_modify::{self as m, OtaHotelResModifyRq, OtaHotelResModifyRs};
use ota_messages::runtime::{DecodeErrorKind, Message, Response};
use support::Call;
use support::{Backend, TestGateway, backend_tests};

const NS: &str = "http://www.opentravel.org/OTA/2003/05";
const POS_XML: &str = r#"<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>"#;

// ---------------------------------------------------------------------------------------------
// Set-up.

/// A fresh database with the demo content.
async fn env(b: Backend) -> TestGateway {
    TestGateway::start(b).await
}

/// A request of `who` at a fixed time: 2027-01-15T10:30:00Z.
fn ctx_of(env: &TestGateway, who: &str) -> Call {
    let mut call = env.ctx();
    call.cx.requestor.id = who.into();
    call.cx.now = Utc.with_ymd_and_hms(2027, 1, 15, 10, 30, 0).unwrap();
    call
}

/// The hotel handlers, answering as the gateway does (a refused request is an RS with Errors).
mod handlers {
    use super::*;
    pub use ota_gateway::hotels::modify_payload;

    pub async fn descriptive_info(cx: &Call, rq: &OtaHotelDescriptiveInfoRq) -> OtaHotelDescriptiveInfoRs {
        support::answer(ota_gateway::hotels::descriptive_info(&cx.hotels, rq).await)
    }

    pub async fn read(cx: &Call, rq: &OtaReadRq) -> OtaResRetrieveRs {
        support::answer(ota_gateway::bookings::read(cx, &cx.hotels, &cx.activities, rq).await)
    }

    pub async fn modify(cx: &Call, rq: &OtaHotelResModifyRq) -> OtaHotelResModifyRs {
        support::answer(ota_gateway::hotels::modify(cx, &cx.hotels, rq).await)
    }
}

/// Encodes an answer as a partner on the service dialect gets it and strictly decodes it
/// again: it must be valid, and come back as written (the value the handler made also carries
/// what only the ota2016b dialect writes, such as `Service@Type`/`@ID`; that the encoders lose
/// nothing else is `tests/tests/it/properties.rs`'s).
fn roundtrip<T: Message + PartialEq + std::fmt::Debug>(rs: &T) -> String {
    let xml = rs.to_xml_pretty().unwrap();
    let back = T::from_xml(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    assert_eq!(back.to_xml_pretty().unwrap(), xml);
    xml
}

/// The value of an attribute replaced by `[redacted]` wherever it occurs.
fn redact(xml: &str, attr: &str) -> String {
    let key = format!(" {attr}=\"");
    let mut out = String::new();
    let mut rest = xml;
    while let Some(i) = rest.find(&key) {
        out.push_str(&rest[..i + key.len()]);
        rest = &rest[i + key.len()..];
        let end = rest.find('"').unwrap();
        out.push_str("[redacted]");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn errors_of<R: Response<Errors = ota_messages::common::Errors>>(
    rs: &R,
) -> Vec<(ErrorWarningType, ErrorCode, String, Option<String>)> {
    assert!(!rs.is_success(), "expected an error answer");
    rs.errors()
        .unwrap()
        .error
        .iter()
        .map(|e| (e.r#type.clone(), e.code.clone().unwrap(), e.value.clone(), e.tag.clone()))
        .collect()
}

fn single_error<R: Response<Errors = ota_messages::common::Errors>>(
    rs: &R,
) -> (ErrorWarningType, ErrorCode, String, Option<String>) {
    let mut errs = errors_of(rs);
    assert_eq!(errs.len(), 1, "{errs:?}");
    errs.remove(0)
}

// ---------------------------------------------------------------------------------------------
// Requests.

fn nbc_rq(attrs: &str, infos: &str) -> OtaHotelDescriptiveInfoRq {
    OtaHotelDescriptiveInfoRq::from_xml(&format!(
        r#"<OTA_HotelDescriptiveInfoRQ xmlns="{NS}" Version="2009.1" {attrs}>{POS_XML}<HotelDescriptiveInfos>{infos}</HotelDescriptiveInfos></OTA_HotelDescriptiveInfoRQ>"#
    ))
    .unwrap()
}

fn read_rq(id: &str, context: &str) -> OtaReadRq {
    OtaReadRq::from_xml(&format!(
        r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1" PrimaryLangID="en" ReturnListIndicator="false">{POS_XML}<UniqueID Type="36" ID="{id}" ID_Context="{context}"/></OTA_ReadRQ>"#
    ))
    .unwrap()
}

fn list_rq(start: &str, end: &str, date_type: &str, status: Option<&str>) -> OtaReadRq {
    let status = status.map(|s| format!(r#" ResStatus="{s}""#)).unwrap_or_default();
    OtaReadRq::from_xml(&format!(
        r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1" ReturnListIndicator="true">{POS_XML}<ReadRequests><HotelReadRequest><SelectionCriteria Start="{start}" End="{end}" DateType="{date_type}"{status}/></HotelReadRequest></ReadRequests></OTA_ReadRQ>"#
    ))
    .unwrap()
}

fn pos((id, id_context, password): (&str, &str, &str)) -> Pos {
    Pos {
        source: vec![
            Source {
                requestor_id: RequestorId {
                    r#type: RequestorIdCode::Requestor,
                    id: id.into(),
                    id_context: Some(id_context.into()),
                    instance: None,
                    message_password: None,
                    company_name: None,
                },
            },
            Source {
                requestor_id: RequestorId {
                    r#type: RequestorIdCode::MessageCredentials,
                    id: id.into(),
                    id_context: None,
                    instance: None,
                    message_password: Some(password.into()),
                    company_name: None,
                },
            },
        ],
    }
}

fn modify_rq(status: ResStatus, payload: m::HotelResModify) -> OtaHotelResModifyRq {
    OtaHotelResModifyRq {
        version: "2008.1".into(),
        primary_lang_id: Some("en".parse().unwrap()),
        res_status: Some(status),
        pos: pos(support::DEMO),
        hotel_res_modifies: m::HotelResModifies { hotel_res_modify: payload },
        ..Default::default()
    }
}

async fn read_one(ctx: &Call, id: &str, context: &str) -> HotelReservation {
    let rs = handlers::read(ctx, &read_rq(id, context)).await;
    assert!(rs.is_success(), "{:?}", rs.errors());
    roundtrip(&rs);
    let mut list = rs.reservations_list.unwrap().hotel_reservation;
    assert_eq!(list.len(), 1);
    list.remove(0)
}

/// Reads a booking and gives it back as a modify payload (the read-then-modify flow).
async fn payload(ctx: &Call, id: &str) -> m::HotelResModify {
    handlers::modify_payload(&read_one(ctx, id, "Internal").await).unwrap()
}

fn rooms(p: &mut m::HotelResModify) -> &mut Vec<m::RoomStay> {
    &mut p.room_stays.as_mut().unwrap().room_stay
}

fn guests(p: &mut m::HotelResModify) -> &mut Vec<m::ResGuest> {
    &mut p.res_guests.as_mut().unwrap().res_guest
}

fn set_board(rs: &mut m::RoomStay, board: &str) {
    let feature = &mut rs.room_rates.as_mut().unwrap().room_rate[0].features.as_mut().unwrap().feature[0];
    feature.description = Some(m::TextDescription { text: vec![Text { language: None, value: board.into() }] });
}

fn total(t: &Option<ota_messages::common::Total>) -> String {
    t.as_ref().unwrap().amount_after_tax.unwrap().to_string()
}

fn payload_of(rs: &OtaHotelResModifyRs) -> &m::HotelResModify {
    assert!(rs.is_success(), "{:?}", rs.errors());
    &rs.hotel_res_modifies.as_ref().unwrap().hotel_res_modify
}

// ---------------------------------------------------------------------------------------------
// Hotel NBC.

async fn nbc_by_hotel_code_in_one_language(b: Backend) {
    let env = env(b).await;
    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq(r#"PrimaryLangID="es""#, r#"<HotelDescriptiveInfo HotelCode="HTL00042"/>"#),
    )
    .await;
    assert!(rs.is_success(), "{:?}", rs.errors());
    roundtrip(&rs);
    assert_eq!(rs.transaction_identifier.as_deref(), Some("1-1/1"));
    assert!(rs.warnings.is_none());
    let contents = &rs.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content;
    assert_eq!(contents.len(), 1);
    let c = &contents[0];
    assert_eq!((c.language_code.as_deref(), c.rph, c.hotel_code.as_str()), (Some("es"), Some(1), "HTL00042"));
    assert_eq!(c.hotel_name.as_deref(), Some("Hotel Sol de Palma"));
    assert_eq!(c.chain_name.as_deref(), Some("Sol & Mar Hotels"));
    assert_eq!(c.last_modified_date.unwrap().to_string(), "2026-09-18");
    let info = c.hotel_info.as_ref().unwrap();
    // One plain description: its language is the content's (OpenTravel 2016B).
    assert!(info.descriptions.as_ref().unwrap().descriptive_text.starts_with("Hotel frente al mar"));
    let codes = info.category_codes.as_ref().unwrap();
    // The category: an empty element with Code and CodeDetail; the rating in AffiliationInfo.
    assert_eq!(
        (codes.hotel_category[0].code.as_str(), codes.hotel_category[0].code_detail.as_deref()),
        ("20", Some("Hotel"))
    );
    assert_eq!(c.affiliation_info.as_ref().unwrap().awards.award[0].rating, "Hotel ****");
    // A room: no OTA code; its code in CodeDetail, its name as DescriptiveText, its
    // description as a text item in its language.
    let rooms = &codes.guest_room_info;
    let names: Vec<_> = rooms
        .iter()
        .map(|r| (r.code.as_deref(), r.code_detail.as_str(), r.descriptive_text.as_deref().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            (None, "RMSD000000", "Habitación doble estándar"),
            (None, "RMTW000000", "Habitación twin"),
            (None, "RMJS000000", "Junior suite")
        ]
    );
    let item = &rooms[0].multimedia_descriptions.as_ref().unwrap().multimedia_description[0].text_items.text_item[0];
    assert_eq!((item.title.as_deref(), item.description[0].language.as_deref()), (Some("Description"), Some("es")));
    assert!(!item.description[0].value.is_empty());
    assert_eq!(info.position.as_ref().unwrap().latitude.to_string(), "39.5663");
    let images = &c.multimedia_descriptions.as_ref().unwrap().multimedia_description[0].image_items.image_item;
    assert_eq!(images.len(), 2);
    assert_eq!(images[0].image_format.len(), 2);
    assert_eq!(images[0].description[0].language.as_deref(), Some("es"));
    // The second image has an English caption only: the text falls back to English.
    assert_eq!(images[1].description[0].language.as_deref(), Some("en"));
    let contact = &c.contact_infos.as_ref().unwrap().contact_info[0];
    let address = &contact.addresses.as_ref().unwrap().address[0];
    assert_eq!(
        address.country_name.as_ref().map(|c| (c.code.as_deref(), c.value.as_str())),
        Some((Some("ES"), "España"))
    );
    assert_eq!(contact.phones.as_ref().unwrap().phone.len(), 2);
    assert_eq!(contact.emails.as_ref().unwrap().email.len(), 2);
}

async fn nbc_by_brand_gives_every_hotel_of_the_feed(b: Backend) {
    let env = env(b).await;
    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq(r#"PrimaryLangID="en""#, r#"<HotelDescriptiveInfo HotelCode="" BrandCode="SOLMAR"/>"#),
    )
    .await;
    assert!(rs.is_success(), "{:?}", rs.errors());
    roundtrip(&rs);
    let contents = &rs.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content;
    let codes: Vec<_> = contents.iter().map(|c| (c.hotel_code.as_str(), c.rph)).collect();
    assert_eq!(codes, [("HTL00042", Some(1)), ("HTL00077", Some(2))]);
    assert_eq!(rs.transaction_identifier.as_deref(), Some("1-2/2"));

    // A brand plus one of its hotels by code: each hotel once.
    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq("", r#"<HotelDescriptiveInfo HotelCode="HTL00077"/><HotelDescriptiveInfo HotelCode="*" BrandCode="SOLMAR"/><HotelDescriptiveInfo HotelCode="HTL02001"/>"#),
    )
    .await;
    let contents = &rs.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content;
    let codes: Vec<_> = contents.iter().map(|c| c.hotel_code.as_str()).collect();
    assert_eq!(codes, ["HTL00077", "HTL00042", "HTL02001"]);
    assert_eq!(rs.transaction_identifier.as_deref(), Some("1-3/3"));
}

async fn nbc_star_gives_every_language(b: Backend) {
    let env = env(b).await;
    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq(
            r#"PrimaryLangID="*""#,
            r#"<HotelDescriptiveInfo HotelCode="HTL00042"/><HotelDescriptiveInfo HotelCode="HTL00105"/>"#,
        ),
    )
    .await;
    assert!(rs.is_success(), "{:?}", rs.errors());
    roundtrip(&rs);
    let contents = &rs.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content;
    let got: Vec<_> =
        contents.iter().map(|c| (c.hotel_code.as_str(), c.language_code.as_deref().unwrap(), c.rph.unwrap())).collect();
    assert_eq!(
        got,
        [
            ("HTL00042", "de", 1),
            ("HTL00042", "en", 2),
            ("HTL00042", "es", 3),
            ("HTL00105", "en", 4),
            ("HTL00105", "es", 5)
        ]
    );
    assert_eq!(rs.transaction_identifier.as_deref(), Some("1-5/5"));
    let de = &contents[0].hotel_info.as_ref().unwrap();
    assert_eq!(
        de.category_codes.as_ref().unwrap().guest_room_info[0].descriptive_text.as_deref(),
        Some("Doppelzimmer Standard")
    );
}

async fn nbc_falls_back_to_alt_language_then_english(b: Backend) {
    let env = env(b).await;
    // The hostal is described in en and es only.
    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq(r#"PrimaryLangID="de" AltLangID="es""#, r#"<HotelDescriptiveInfo HotelCode="HTL00105"/>"#),
    )
    .await;
    assert!(rs.is_success(), "{:?}", rs.errors());
    let c = &rs.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content[0];
    assert_eq!(c.language_code.as_deref(), Some("es"));
    let rooms = &c.hotel_info.as_ref().unwrap().category_codes.as_ref().unwrap().guest_room_info;
    assert_eq!(rooms[0].descriptive_text.as_deref(), Some("Habitación doble"));
    let w = &rs.warnings.as_ref().unwrap().warning;
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].r#type, ErrorWarningType::Advisory);
    assert!(w[0].value.contains("not described in de"), "{}", w[0].value);

    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq(r#"PrimaryLangID="fr""#, r#"<HotelDescriptiveInfo HotelCode="HTL00105"/>"#),
    )
    .await;
    let c = &rs.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content[0];
    assert_eq!(c.language_code.as_deref(), Some("en"));

    // A regional code finds its language: de-AT → de.
    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq(r#"PrimaryLangID="de-AT""#, r#"<HotelDescriptiveInfo HotelCode="HTL00042"/>"#),
    )
    .await;
    let c = &rs.hotel_descriptive_contents.as_ref().unwrap().hotel_descriptive_content[0];
    assert_eq!(c.language_code.as_deref(), Some("de"));
    assert!(rs.warnings.is_none());
}

async fn nbc_unknown_hotel_or_brand(b: Backend) {
    let env = env(b).await;
    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq("", r#"<HotelDescriptiveInfo HotelCode="HTL00042"/><HotelDescriptiveInfo HotelCode="HTL99999"/>"#),
    )
    .await;
    roundtrip(&rs);
    let (kind, code, text, tag) = single_error(&rs);
    assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::InvalidHotelCode));
    assert!(text.contains("HTL99999"));
    assert_eq!(
        tag.as_deref(),
        Some("/OTA_HotelDescriptiveInfoRQ/HotelDescriptiveInfos/HotelDescriptiveInfo[2]/@HotelCode")
    );
    assert!(rs.hotel_descriptive_contents.is_none());

    let rs = handlers::descriptive_info(
        &ctx_of(&env, "DEMO"),
        &nbc_rq("", r#"<HotelDescriptiveInfo HotelCode="" BrandCode="NOPE"/>"#),
    )
    .await;
    let (kind, code, _, tag) = single_error(&rs);
    assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::NoHotelsFound));
    assert_eq!(
        tag.as_deref(),
        Some("/OTA_HotelDescriptiveInfoRQ/HotelDescriptiveInfos/HotelDescriptiveInfo[1]/@BrandCode")
    );

    let rs =
        handlers::descriptive_info(&ctx_of(&env, "DEMO"), &nbc_rq("", r#"<HotelDescriptiveInfo HotelCode=""/>"#)).await;
    let (kind, code, _, _) = single_error(&rs);
    assert_eq!((kind, code), (ErrorWarningType::RequiredFieldMissing, ErrorCode::RequiredFieldMissing));
}

// ---------------------------------------------------------------------------------------------
// Booking read.

async fn read_by_client_and_by_internal_reference(b: Backend) {
    let env = env(b).await;
    let by_client = read_one(&ctx_of(&env, "DEMO"), "DEMO-2030-0001", "Client").await;
    let by_internal = read_one(&ctx_of(&env, "DEMO"), "4471200", "Internal").await;
    assert_eq!(by_client, by_internal);
    let b = by_client;
    assert_eq!(b.res_status, BookingStatus::Reserved);
    assert_eq!(b.create_date_time.unwrap().to_string(), "2026-05-20T17:04:31");
    assert_eq!(b.last_modify_date_time.unwrap().to_string(), "2026-05-21T08:12:05");
    let ids: Vec<_> = b
        .unique_id
        .iter()
        .map(|u| (u.id.as_str(), u.id_context.clone(), u.company_name.as_ref().and_then(|c| c.code.clone())))
        .collect();
    assert_eq!(
        ids,
        [("4471200", IdContext::Internal, None), ("DEMO-2030-0001", IdContext::Client, Some("DEMO".into()))]
    );
    let rooms = &b.room_stays.as_ref().unwrap().room_stay;
    assert_eq!(rooms.len(), 2);
    assert_eq!(total(&rooms[0].total), "665.00");
    assert_eq!(total(&rooms[1].total), "885.50");
    assert_eq!(rooms[0].basic_property_info.as_ref().unwrap().hotel_name.as_deref(), Some("Hotel Sol de Palma"));
    let description = &rooms[0].room_types.as_ref().unwrap().room_type[0].room_description.as_ref().unwrap().text;
    assert_eq!(description[0].value, "Standard double room");
    let guests = &b.res_guests.as_ref().unwrap().res_guest;
    assert_eq!(guests.len(), 4);
    assert_eq!(guests[3].age_qualifying_code, Some(AgeQualifyingCode::Child));
    let services = &b.services.as_ref().unwrap().service;
    let codes: Vec<_> = services.iter().map(|s| s.service_inventory_code.as_deref().unwrap()).collect();
    assert_eq!(codes, ["BB", "HB", "TRF"]);
    let service = &services[2];
    assert_eq!(service.tpa_extensions.as_ref().unwrap().transfer_info_type.as_ref().unwrap().transfer_leg.len(), 2);
    let global = b.res_global_info.as_ref().unwrap();
    assert_eq!(total(&global.total), "1550.50");
    assert_eq!(global.comments.as_ref().unwrap().comment.len(), 2);
    assert_eq!(global.hotel_reservation_ids.hotel_reservation_id.len(), 4);

    // Without ID_Context, either reference is found.
    let rs = handlers::read(
        &ctx_of(&env, "DEMO"),
        &OtaReadRq::from_xml(&format!(
            r#"<OTA_ReadRQ xmlns="{NS}" Version="2008.1">{POS_XML}<UniqueID Type="36" ID="4471201"/></OTA_ReadRQ>"#
        ))
        .unwrap(),
    )
    .await;
    assert!(rs.is_success());
}

async fn read_of_other_requestors_or_unknown_booking_is_not_found(b: Backend) {
    let env = env(b).await;
    for (id, context) in
        [("4471300", "Internal"), ("P2-2030-0001", "Client"), ("NOPE-1", "Client"), ("999", "Internal")]
    {
        let rs = handlers::read(&ctx_of(&env, "DEMO"), &read_rq(id, context)).await;
        roundtrip(&rs);
        let (kind, code, _, tag) = single_error(&rs);
        assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::BookingReferenceNotFound), "{id}");
        assert_eq!(tag.as_deref(), Some("/OTA_ReadRQ/UniqueID"));
    }
    // Its owner reads it.
    let b = read_one(&ctx_of(&env, "PARTNER2"), "4471300", "Internal").await;
    assert_eq!(b.unique_id[1].id, "P2-2030-0001");
    // And PARTNER2 cannot read DEMO's.
    let rs = handlers::read(&ctx_of(&env, "PARTNER2"), &read_rq("DEMO-2030-0001", "Client")).await;
    assert_eq!(single_error(&rs).1, ErrorCode::BookingReferenceNotFound);
}

async fn read_of_a_cancelled_booking_warns(b: Backend) {
    let env = env(b).await;
    let rs = handlers::read(&ctx_of(&env, "DEMO"), &read_rq("4471202", "Internal")).await;
    assert!(rs.is_success());
    let b = &rs.reservations_list.as_ref().unwrap().hotel_reservation[0];
    assert_eq!(b.res_status, BookingStatus::Cancelled);
    assert_eq!(rs.warnings.as_ref().unwrap().warning[0].code, Some(ErrorCode::BookingAlreadyCancelled));
}

fn refs(rs: &OtaResRetrieveRs) -> Vec<(String, String)> {
    assert!(rs.is_success(), "{:?}", rs.errors());
    rs.reservations_list
        .as_ref()
        .map(|l| {
            l.hotel_reservation
                .iter()
                .map(|h| {
                    assert!(h.room_stays.is_none() && h.res_global_info.is_none(), "a list gives references only");
                    (h.unique_id[0].id.clone(), h.res_status.as_str().to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn list_by_arrival_date_with_status_filter(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let rs = handlers::read(&ctx, &list_rq("2030-07-01", "2030-07-31", "ArrivalDate", None)).await;
    roundtrip(&rs);
    // PARTNER2's booking arrives on 2030-07-03 too, but is not listed.
    assert_eq!(refs(&rs), [("4471200".into(), "Reserved".into())]);
    let rs = handlers::read(&ctx, &list_rq("2030-01-01", "2030-12-31", "ArrivalDate", None)).await;
    let ids: Vec<_> = refs(&rs).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["4471202", "4471200", "4471201", "4471203"]);
    let rs = handlers::read(&ctx, &list_rq("2030-01-01", "2030-12-31", "ArrivalDate", Some("Cancelled"))).await;
    assert_eq!(refs(&rs), [("4471202".into(), "Cancelled".into())]);
    let rs = handlers::read(&ctx, &list_rq("2030-01-01", "2030-12-31", "ArrivalDate", Some("Reserved"))).await;
    assert_eq!(refs(&rs).len(), 3);
    // Departure 2030-08-14.
    let rs = handlers::read(&ctx, &list_rq("2030-08-14", "2030-08-14", "DepartureDate", None)).await;
    assert_eq!(refs(&rs), [("4471201".into(), "Reserved".into())]);
    // Nothing matches: a success without a list.
    let rs = handlers::read(&ctx, &list_rq("2031-01-01", "2031-12-31", "ArrivalDate", None)).await;
    roundtrip(&rs);
    assert!(rs.is_success() && rs.reservations_list.is_none());
    // End before Start.
    let rs = handlers::read(&ctx, &list_rq("2030-12-31", "2030-01-01", "ArrivalDate", None)).await;
    assert_eq!(single_error(&rs).1, ErrorCode::InvalidStartEndDateCombination);
}

async fn list_by_create_and_last_update_date(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let rs = handlers::read(&ctx, &list_rq("2026-07-01", "2026-09-30", "CreateDate", None)).await;
    let ids: Vec<_> = refs(&rs).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["4471201", "4471203"]);
    let rs = handlers::read(&ctx, &list_rq("2026-01-01", "2026-12-31", "CreateDate", Some("Cancelled"))).await;
    assert_eq!(refs(&rs), [("4471202".into(), "Cancelled".into())]);
    let rs = handlers::read(&ctx, &list_rq("2026-05-21", "2026-05-21", "LastUpdateDate", None)).await;
    assert_eq!(refs(&rs), [("4471200".into(), "Reserved".into())]);
    let rs = handlers::read(&ctx_of(&env, "PARTNER2"), &list_rq("2026-01-01", "2026-12-31", "CreateDate", None)).await;
    assert_eq!(refs(&rs), [("4471300".into(), "Reserved".into())]);
}

// ---------------------------------------------------------------------------------------------
// Read, then modify.

async fn comment_change_is_applied_without_repricing(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let mut p = payload(&ctx, "4471200").await;
    p.res_global_info.comments.as_mut().unwrap().comment[0].text[0].value =
        "Arrival around midnight; a cot in room 2 please.".into();
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    roundtrip(&rs);
    let b = payload_of(&rs);
    assert_eq!(total(&b.res_global_info.total), "1550.50");
    assert_eq!(b.create_date_time.unwrap().to_string(), "2026-05-20T17:04:31");
    assert_eq!(b.last_update_date_time.unwrap().to_string(), "2027-01-15T10:30:00");
    assert_eq!(
        b.res_global_info.comments.as_ref().unwrap().comment[0].text[0].value,
        "Arrival around midnight; a cot in room 2 please."
    );

    let again = read_one(&ctx, "DEMO-2030-0001", "Client").await;
    assert_eq!(again.last_modify_date_time.unwrap().to_string(), "2027-01-15T10:30:00");
    assert_eq!(
        again.res_global_info.unwrap().comments.unwrap().comment[0].text[0].value,
        "Arrival around midnight; a cot in room 2 please."
    );

    // Comments can be added and removed too.
    let mut p = payload(&ctx, "4471200").await;
    p.res_global_info.comments = None;
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    assert!(payload_of(&rs).res_global_info.comments.is_none());
}

async fn non_lead_guest_name_is_a_minor_change_lead_guest_name_is_not(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let mut p = payload(&ctx, "4471200").await;
    let name = guests(&mut p)[1].profiles.as_mut().unwrap().profile_info.profile.customer.person_name.as_mut().unwrap();
    name.surname = Some("O'Brien".into());
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    let b = payload_of(&rs);
    assert_eq!(total(&b.res_global_info.total), "1550.50");
    let g = &b.res_guests.as_ref().unwrap().res_guest[1];
    assert_eq!(
        g.profiles.as_ref().unwrap().profile_info.profile.customer.person_name.as_ref().unwrap().surname.as_deref(),
        Some("O'Brien")
    );

    let mut p = payload(&ctx, "4471200").await;
    let name = guests(&mut p)[0].profiles.as_mut().unwrap().profile_info.profile.customer.person_name.as_mut().unwrap();
    name.given_name = Some("Pepe".into());
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    let (kind, code, text, tag) = single_error(&rs);
    assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::RequestedActionNotPossible));
    assert!(text.starts_with("Booking not changed – data received differs from stored data"), "{text}");
    assert_eq!(
        tag.as_deref(),
        Some(
            "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/ResGuests/ResGuest[1]/Profiles/ProfileInfo/Profile/Customer/PersonName"
        )
    );
}

async fn board_change_reprices_the_room(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let mut p = payload(&ctx, "4471200").await;
    set_board(&mut rooms(&mut p)[1], "FB");
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    roundtrip(&rs);
    let b = payload_of(&rs);
    let r = &b.room_stays.as_ref().unwrap().room_stay;
    assert_eq!(total(&r[0].total), "665.00");
    assert_eq!(total(&r[1].total), "1022.00"); // 7 nights × 146.00
    assert_eq!(total(&b.res_global_info.total), "1687.00");
    // The board service of room 2 follows its board.
    let codes: Vec<_> =
        b.services.as_ref().unwrap().service.iter().map(|s| s.service_inventory_code.clone().unwrap()).collect();
    assert_eq!(codes, ["BB", "FB", "TRF"]);
    let again = read_one(&ctx, "4471200", "Internal").await;
    assert_eq!(handlers::modify_payload(&again).unwrap(), b.clone());

    // The client may change the board service along with the room's board.
    let mut p = payload(&ctx, "4471200").await;
    set_board(&mut rooms(&mut p)[0], "HB");
    p.services.as_mut().unwrap().service[0].service_inventory_code = Some("HB".into());
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    let b = payload_of(&rs);
    assert_eq!(total(&b.res_global_info.total), "1862.00"); // 7 × 120.00 + 7 × 146.00
    assert_eq!(b.services.as_ref().unwrap().service[0].service_inventory_code.as_deref(), Some("HB"));

    // But not to another board than the room's, nor a board service alone.
    let mut p = payload(&ctx, "4471200").await;
    p.services.as_mut().unwrap().service[0].service_inventory_code = Some("BB".into());
    let (_, _, text, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert!(text.contains("data received differs"), "{text}");
    assert_eq!(
        tag.as_deref(),
        Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/Services/Service[1]/@ServiceInventoryCode")
    );
}

async fn room_type_and_date_changes_reprice_with_the_season(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let mut p = payload(&ctx, "4471200").await;
    let r = &mut rooms(&mut p)[0];
    // 2030-07-30 → 2030-08-03: two July nights at 95.00, two August nights at 114.00.
    r.time_span = Some(ota_messages::common::DateSpan {
        start: "2030-07-30".parse().unwrap(),
        end: "2030-08-03".parse().unwrap(),
    });
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    let b = payload_of(&rs);
    assert_eq!(total(&b.room_stays.as_ref().unwrap().room_stay[0].total), "418.00");
    assert_eq!(total(&b.res_global_info.total), "1303.50");

    let mut p = payload(&ctx, "4471200").await;
    let r = &mut rooms(&mut p)[1];
    for t in &mut r.room_types.as_mut().unwrap().room_type {
        t.room_type_code = Some("RMJS000000".into());
    }
    r.room_rates.as_mut().unwrap().room_rate[0].room_type_code = Some("RMJS000000".into());
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    let b = payload_of(&rs);
    let r = &b.room_stays.as_ref().unwrap().room_stay[1];
    assert_eq!(total(&r.total), "1330.00"); // 7 × 190.00 (HB)
    assert_eq!(
        r.room_types.as_ref().unwrap().room_type[0].room_description.as_ref().unwrap().text[0].value,
        "Junior suite"
    );
}

async fn invalid_major_changes_are_refused(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let base = payload(&ctx, "4471200").await;
    let room = "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/RoomStays/RoomStay[1]";

    let mut p = base.clone();
    let r = &mut rooms(&mut p)[0];
    r.room_types.as_mut().unwrap().room_type[0].room_type_code = Some("RMXX000000".into());
    r.room_rates.as_mut().unwrap().room_rate[0].room_type_code = Some("RMXX000000".into());
    let (_, code, _, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Quote, p)).await);
    assert_eq!(code, ErrorCode::InvalidRoomTypeCode);
    assert_eq!(tag, Some(format!("{room}/RoomTypes/RoomType/@RoomTypeCode")));

    let mut p = base.clone();
    set_board(&mut rooms(&mut p)[0], "XX");
    assert_eq!(single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Quote, p)).await).1, ErrorCode::InvalidValue);
    let mut p = base.clone();
    set_board(&mut rooms(&mut p)[0], "AI"); // a board, but not sold in this hotel
    assert_eq!(single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Quote, p)).await).1, ErrorCode::InvalidValue);

    let span =
        |s: &str, e: &str| Some(ota_messages::common::DateSpan { start: s.parse().unwrap(), end: e.parse().unwrap() });
    for ((s, e), want) in [
        (("2030-07-08", "2030-07-01"), ErrorCode::InvalidStartEndDateCombination),
        (("2026-12-01", "2026-12-05"), ErrorCode::StartDateInvalid),
        (("2030-07-01", "2030-09-01"), ErrorCode::TooManyNights),
        (("2040-07-01", "2040-07-03"), ErrorCode::StartDateInvalid), // beyond the booking horizon
    ] {
        let mut p = base.clone();
        rooms(&mut p)[0].time_span = span(s, e);
        let (kind, code, _, _) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
        assert_eq!((kind, code), (ErrorWarningType::BizRule, want), "{s}..{e}");
    }
    // Nothing was stored.
    assert_eq!(payload(&ctx, "4471200").await, base);
}

async fn occupancy_changes_are_refused(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let base = payload(&ctx, "4471200").await;

    // An adult's age.
    let mut p = base.clone();
    guests(&mut p)[0].guest_counts.as_mut().unwrap().guest_count[0].age = Some(51);
    let (kind, code, text, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::RequestedActionNotPossible));
    assert!(text.starts_with("Booking not changed – occupancy changes are not allowed"), "{text}");
    assert_eq!(
        tag.as_deref(),
        Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/ResGuests/ResGuest[1]/GuestCounts")
    );

    // A child becoming an adult.
    let mut p = base.clone();
    guests(&mut p)[3].age_qualifying_code = Some(AgeQualifyingCode::Adult);
    let (_, _, text, _) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert!(text.contains("occupancy changes are not allowed"));

    // A fifth guest.
    let mut p = base.clone();
    let mut extra = guests(&mut p)[1].clone();
    extra.res_guest_rph = Some(5);
    guests(&mut p).push(extra);
    rooms(&mut p)[0].res_guest_rphs.as_mut().unwrap().res_guest_rph.push(m::RphReference { rph: 5 });
    let errs = errors_of(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert!(!errs.is_empty());
    assert!(
        errs.iter()
            .all(|(_, code, text, _)| *code == ErrorCode::RequestedActionNotPossible && text.contains("occupancy")),
        "{errs:?}"
    );
    assert_eq!(
        errs[0].3.as_deref(),
        Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/RoomStays/RoomStay[1]/ResGuestRPHs")
    );

    // A guest moved to the other room.
    let mut p = base.clone();
    rooms(&mut p)[0].res_guest_rphs.as_mut().unwrap().res_guest_rph[1].rph = 3;
    rooms(&mut p)[1].res_guest_rphs.as_mut().unwrap().res_guest_rph[0].rph = 2;
    let errs = errors_of(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!(errs.len(), 2);

    assert_eq!(payload(&ctx, "4471200").await, base);
}

async fn other_differences_are_refused_with_the_node(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let base = payload(&ctx, "4471200").await;

    let mut p = base.clone();
    rooms(&mut p)[1].basic_property_info.as_mut().unwrap().hotel_code = Some("HTL00077".into());
    let (kind, code, text, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::RequestedActionNotPossible));
    assert!(text.starts_with("Booking not changed – data received differs from stored data"), "{text}");
    assert!(text.contains("HTL00077"));
    assert_eq!(
        tag.as_deref(),
        Some(
            "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/RoomStays/RoomStay[2]/BasicPropertyInfo/@HotelCode"
        )
    );

    // A different service: another flight.
    let mut p = base.clone();
    let leg = &mut p.services.as_mut().unwrap().service[2]
        .tpa_extensions
        .as_mut()
        .unwrap()
        .transfer_info_type
        .as_mut()
        .unwrap()
        .transfer_leg[0];
    leg.transfer_origin.connecting_transport.as_mut().unwrap().operating_airline =
        Some(m::OperatingAirline { flight_number: Some("UX6099".into()) });
    let (_, _, text, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert!(text.contains("data received differs"));
    assert_eq!(
        tag.as_deref(),
        Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/Services/Service[3]/TPA_Extensions")
    );

    // A dropped item reference.
    let mut p = base.clone();
    p.res_global_info.hotel_reservation_ids.hotel_reservation_id.pop();
    let (_, _, _, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!(
        tag.as_deref(),
        Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/ResGlobalInfo/HotelReservationIDs")
    );

    // Output-only data are not compared: names, descriptions, totals, dates of the answer.
    let mut p = base.clone();
    rooms(&mut p)[0].basic_property_info.as_mut().unwrap().hotel_name = Some("Whatever".into());
    rooms(&mut p)[0].room_types.as_mut().unwrap().room_type[0].room_description = None;
    rooms(&mut p)[0].total = None;
    p.res_global_info.total = None;
    p.create_date_time = None;
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    let b = payload_of(&rs);
    // Nothing changed: LastUpdateDateTime stays.
    assert_eq!(b.last_update_date_time.unwrap().to_string(), "2026-05-21T08:12:05");
    assert_eq!(payload(&ctx, "4471200").await, base);
}

async fn a_modify_built_from_an_older_read_is_refused(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    // Two changes built from the same read: a date change, then a comment change.
    let read = payload(&ctx, "4471200").await;
    let mut dates = read.clone();
    rooms(&mut dates)[0].time_span.as_mut().unwrap().end = "2030-07-09".parse().unwrap();
    let mut comment = read.clone();
    comment.res_global_info.comments.as_mut().unwrap().comment[0].text[0].value = "Late arrival, 23:00.".into();

    let first = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, dates)).await;
    assert!(first.is_success(), "{:?}", first.errors());
    let second = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, comment.clone())).await;
    let (kind, code, text, tag) = single_error(&second);
    assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::RequestedActionNotPossible));
    assert!(text.contains("read it again"), "{text}");
    assert_eq!(tag.as_deref(), Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/@LastUpdateDateTime"));
    // The date change stays; a Quote from the old read is refused the same way.
    let now = read_one(&ctx, "4471200", "Internal").await;
    assert_eq!(now.room_stays.as_ref().unwrap().room_stay[0].time_span.as_ref().unwrap().end.to_string(), "2030-07-09");
    assert_eq!(
        single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Quote, comment)).await).1,
        ErrorCode::RequestedActionNotPossible
    );

    // Rebuilt from a new read, the comment change goes through and keeps the dates.
    let mut comment = handlers::modify_payload(&now).unwrap();
    comment.res_global_info.comments.as_mut().unwrap().comment[0].text[0].value = "Late arrival, 23:00.".into();
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, comment)).await;
    let b = payload_of(&rs);
    assert_eq!(b.room_stays.as_ref().unwrap().room_stay[0].time_span.as_ref().unwrap().end.to_string(), "2030-07-09");
    // Two changes in the same second still get distinct versions.
    assert_ne!(b.last_update_date_time, now.last_modify_date_time);

    // A Commit must carry the version it was built from.
    let mut p = payload(&ctx, "4471200").await;
    p.last_update_date_time = None;
    let (kind, code, _, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!((kind, code), (ErrorWarningType::RequiredFieldMissing, ErrorCode::RequiredFieldMissing));
    assert_eq!(tag.as_deref(), Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/@LastUpdateDateTime"));
}

/// The read answers the booking's version as `HotelReservation@LastModifyDateTime` (the
/// OpenTravel date-time stamp); a modify may send it back under that name instead of
/// `@LastUpdateDateTime` (one field, two names: not both). `ResGlobalInfo/BasicPropertyInfo`,
/// which the answers carry, may be sent back too, but not with another hotel.
async fn a_modify_takes_the_version_under_its_opentravel_name(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let read = read_one(&ctx, "4471200", "Internal").await;
    assert!(read.last_modify_date_time.is_some());
    let info = read.res_global_info.as_ref().unwrap().basic_property_info.as_ref().unwrap();
    assert_eq!(info.hotel_code.as_deref(), Some("HTL00042"));
    let built = handlers::modify_payload(&read).unwrap();

    // The version under its OpenTravel name is the same request; under both names it is one
    // attribute given twice, refused when decoding.
    let rq = modify_rq(ResStatus::Commit, built.clone());
    let xml = rq.to_xml().unwrap();
    assert!(xml.contains("LastUpdateDateTime="));
    assert_eq!(
        m::OtaHotelResModifyRq::from_xml(&xml.replace("LastUpdateDateTime=", "LastModifyDateTime=")).unwrap(),
        m::OtaHotelResModifyRq::from_xml(&xml).unwrap()
    );
    let both =
        xml.replace(r#"LastUpdateDateTime=""#, r#"LastModifyDateTime="2020-01-01T00:00:00" LastUpdateDateTime=""#);
    let e = m::OtaHotelResModifyRq::from_xml(&both).unwrap_err();
    assert!(matches!(&e.kind, DecodeErrorKind::GivenTwice { name: "LastUpdateDateTime", .. }), "{e}");

    // Another hotel in ResGlobalInfo/BasicPropertyInfo: refused as a difference.
    let mut p = built.clone();
    p.res_global_info.basic_property_info.as_mut().unwrap().hotel_code = Some("HTL00043".into());
    let (_, code, _, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!(code, ErrorCode::RequestedActionNotPossible);
    assert_eq!(
        tag.as_deref(),
        Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/ResGlobalInfo/BasicPropertyInfo/@HotelCode")
    );

    // A Commit sent back from the read goes through, and again from its answer.
    let mut p = built.clone();
    p.res_global_info.comments.as_mut().unwrap().comment[0].text[0].value = "Late arrival, 23:30.".into();
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    assert!(rs.is_success(), "{:?}", rs.errors());
    let p = payload_of(&rs).clone();
    assert!(handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await.is_success());
}

async fn concurrent_modifies_from_one_read_apply_once(b: Backend) {
    let env = std::sync::Arc::new(env(b).await);
    let read = payload(&ctx_of(&env, "DEMO"), "4471201").await;
    // Four valid changes of the one room stay (AI at HTL00077 today).
    let mut changes = Vec::new();
    for board in ["HB", "BB"] {
        let mut p = read.clone();
        set_board(&mut rooms(&mut p)[0], board);
        changes.push(p);
    }
    let mut p = read.clone();
    rooms(&mut p)[0].time_span.as_mut().unwrap().end = "2030-08-15".parse().unwrap();
    changes.push(p);
    let mut p = read.clone();
    p.res_global_info.comments = None;
    changes.push(p);
    let mut tasks = Vec::new();
    for p in changes {
        let env = env.clone();
        tasks.push(tokio::spawn(async move {
            handlers::modify(&ctx_of(&env, "DEMO"), &modify_rq(ResStatus::Commit, p)).await
        }));
    }
    let mut applied = Vec::new();
    for t in tasks {
        let rs = t.await.unwrap();
        if rs.is_success() {
            applied.push(payload_of(&rs).clone());
        } else {
            assert_eq!(single_error(&rs).1, ErrorCode::RequestedActionNotPossible);
        }
    }
    assert_eq!(applied.len(), 1, "exactly one of the changes built from one read applies");
    let stored = read_one(&ctx_of(&env, "DEMO"), "4471201", "Internal").await;
    assert_eq!(handlers::modify_payload(&stored).unwrap(), applied[0]);
}

async fn quote_changes_nothing(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let before = read_one(&ctx, "4471200", "Internal").await;
    let mut p = handlers::modify_payload(&before).unwrap();
    set_board(&mut rooms(&mut p)[0], "HB");
    p.res_global_info.comments = None;
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Quote, p.clone())).await;
    let b = payload_of(&rs);
    assert_eq!(total(&b.room_stays.as_ref().unwrap().room_stay[0].total), "840.00"); // 7 × 120.00
    assert_eq!(total(&b.res_global_info.total), "1725.50");
    assert_eq!(b.last_update_date_time, before.last_modify_date_time);
    assert_eq!(read_one(&ctx, "4471200", "Internal").await, before);

    // No ResStatus is a quote too.
    let mut rq = modify_rq(ResStatus::Quote, p);
    rq.res_status = None;
    assert!(handlers::modify(&ctx, &rq).await.is_success());
    assert_eq!(read_one(&ctx, "4471200", "Internal").await, before);
}

/// A request's totals are never taken (the gateway computes them); one that differs from the
/// computed one gets a Type 11 warning at that `Total`, and the answer carries the computed one.
/// Totals sent back as read, or none, give no warning.
async fn a_request_total_that_differs_is_warned_about(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let read = read_one(&ctx, "4471200", "Internal").await;
    let p = handlers::modify_payload(&read).unwrap();
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Quote, p.clone())).await;
    assert!(rs.is_success() && rs.warnings.is_none(), "{:?}", rs.warnings);
    let mut none = p.clone();
    rooms(&mut none)[0].total = None;
    none.res_global_info.total = None;
    assert!(handlers::modify(&ctx, &modify_rq(ResStatus::Quote, none)).await.warnings.is_none());

    // A room's total of 1.00 and a booking total in another currency: two warnings.
    let mut cheap = p.clone();
    rooms(&mut cheap)[0].total.as_mut().unwrap().amount_after_tax = Some("1.00".parse().unwrap());
    cheap.res_global_info.total.as_mut().unwrap().currency_code = Some("USD".into());
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, cheap)).await;
    let b = payload_of(&rs);
    assert_eq!(
        total(&b.room_stays.as_ref().unwrap().room_stay[0].total),
        total(&read.room_stays.as_ref().unwrap().room_stay[0].total)
    );
    assert_eq!(b.res_global_info.total, read.res_global_info.as_ref().unwrap().total);
    let w = &rs.warnings.as_ref().unwrap().warning;
    let got: Vec<_> = w.iter().map(|w| (w.r#type.clone(), w.tag.as_deref().unwrap_or_default())).collect();
    let base = "/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify";
    assert_eq!(
        got,
        [
            (ErrorWarningType::Advisory, format!("{base}/RoomStays/RoomStay[1]/Total").as_str()),
            (ErrorWarningType::Advisory, format!("{base}/ResGlobalInfo/Total").as_str())
        ]
    );
    assert!(w[0].value.contains("1.00 EUR") && w[0].value.contains("computed"), "{}", w[0].value);
    assert!(w[1].value.contains("USD"), "{}", w[1].value);
}

async fn six_rooms_are_refused(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let mut p = payload(&ctx, "4471200").await;
    let extra = rooms(&mut p)[1].clone();
    for _ in 0..4 {
        rooms(&mut p).push(extra.clone());
    }
    let (kind, code, _, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!((kind, code), (ErrorWarningType::BizRule, ErrorCode::MaxNumberOfRoomsExceeded));
    assert_eq!(tag.as_deref(), Some("/OTA_HotelResModifyRQ/HotelResModifies/HotelResModify/RoomStays/RoomStay[6]"));
}

async fn cancelled_unknown_and_foreign_bookings_are_refused(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let p = payload(&ctx, "4471202").await;
    let (_, code, _, _) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await);
    assert_eq!(code, ErrorCode::BookingAlreadyCancelled);

    // DEMO sends PARTNER2's booking back: not found.
    let foreign = handlers::modify_payload(&read_one(&ctx_of(&env, "PARTNER2"), "4471300", "Internal").await).unwrap();
    let (_, code, _, _) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, foreign)).await);
    assert_eq!(code, ErrorCode::BookingReferenceNotFound);

    // Client and Internal references of two different bookings.
    let mut p = payload(&ctx, "4471200").await;
    p.res_global_info.hotel_reservation_ids.hotel_reservation_id[1].res_id_value = "4471201".into();
    assert_eq!(
        single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await).1,
        ErrorCode::BookingReferenceInvalid
    );

    // No booking-level reference at all.
    let mut p = payload(&ctx, "4471200").await;
    p.res_global_info.hotel_reservation_ids.hotel_reservation_id.retain(|r| r.res_id_type.as_str() != "36");
    assert_eq!(
        single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await).1,
        ErrorCode::RequiredFieldMissing
    );

    // Another ResStatus.
    let p = payload(&ctx, "4471200").await;
    let (_, code, _, tag) = single_error(&handlers::modify(&ctx, &modify_rq(ResStatus::Book, p)).await);
    assert_eq!(code, ErrorCode::InvalidActionStatusCode);
    assert_eq!(tag.as_deref(), Some("/OTA_HotelResModifyRQ/@ResStatus"));
}

async fn a_modified_booking_survives_reopening_the_database(b: Backend) {
    let env = env(b).await;
    let mut p = payload(&ctx_of(&env, "DEMO"), "4471201").await;
    set_board(&mut rooms(&mut p)[0], "HB");
    let rs = handlers::modify(&ctx_of(&env, "DEMO"), &modify_rq(ResStatus::Commit, p)).await;
    assert_eq!(total(&payload_of(&rs).res_global_info.total), "540.00"); // 4 × 135.00

    // Another store on the same database (the first one still open, as another gateway would).
    let store = env.db.open().await;
    let mut ctx = ctx_of(&env, "DEMO");
    ctx.cx.store = store;
    let b = read_one(&ctx, "DEMO-2030-0002", "Client").await;
    assert_eq!(total(&b.res_global_info.unwrap().total), "540.00");
    assert_eq!(b.last_modify_date_time.unwrap().to_string(), "2027-01-15T10:30:00");
}

async fn storing_the_demo_twice_is_an_upsert(b: Backend) {
    let env = env(b).await;
    let demo = ota_gateway::import::demo_content().unwrap();
    let file = ota_gateway::import::ImportFile { requestors: Vec::new(), activities: None, hotels: demo.hotels };
    ota_gateway::import::import(&env.store, file).await.unwrap();
    env.reload().await;
    let rs = handlers::read(&ctx_of(&env, "DEMO"), &list_rq("2030-01-01", "2030-12-31", "ArrivalDate", None)).await;
    assert_eq!(refs(&rs).len(), 4);
    let b = read_one(&ctx_of(&env, "DEMO"), "4471200", "Internal").await;
    assert_eq!(total(&b.res_global_info.unwrap().total), "1550.50");
}

async fn snapshots_of_a_read_and_a_modify(b: Backend) {
    let env = env(b).await;
    let ctx = ctx_of(&env, "DEMO");
    let rs = handlers::read(&ctx, &read_rq("4471200", "Internal")).await;
    let xml = roundtrip(&rs);
    insta::assert_snapshot!("read_rs", redact(&redact(&xml, "TimeStamp"), "LastModifyDateTime"));

    let mut p = payload(&ctx, "4471200").await;
    set_board(&mut rooms(&mut p)[1], "FB");
    p.res_global_info.comments.as_mut().unwrap().comment.push(m::Comment {
        name: Some("Remarks".into()),
        comment_originator_code: Some("Client".into()),
        text: vec![m::CommentText { language: Some("en".into()), value: "Full board for room 2.".into() }],
    });
    let rs = handlers::modify(&ctx, &modify_rq(ResStatus::Commit, p)).await;
    let xml = roundtrip(&rs);
    insta::assert_snapshot!("modify_rs", redact(&redact(&xml, "TimeStamp"), "LastUpdateDateTime"));
}

// ---------------------------------------------------------------------------------------------
// Through HTTP.

async fn http_read_then_modify(b: Backend) {
    let server = support::TestServer::start(b).await;
    let client = server.client();
    let mut read = read_rq("DEMO-2030-0001", "Client");
    read.pos = pos(support::DEMO);
    read.echo_token = Some("read-1".into());
    let rs = client.send(&read).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    assert_eq!(rs.echo_token.as_deref(), Some("read-1"));
    assert!(rs.time_stamp.is_some());
    let reservation = rs.reservations_list.unwrap().hotel_reservation.remove(0);
    let before = reservation.last_modify_date_time;

    let mut p = handlers::modify_payload(&reservation).unwrap();
    set_board(&mut rooms(&mut p)[0], "HB");
    let rs = client.send(&modify_rq(ResStatus::Commit, p)).await.unwrap();
    let b = payload_of(&rs);
    assert_eq!(total(&b.res_global_info.total), "1725.50");
    assert_ne!(b.last_update_date_time, before);

    // Read again: the change is there.
    let rs = client.send(&read).await.unwrap();
    let again = &rs.reservations_list.as_ref().unwrap().hotel_reservation[0];
    assert_eq!(total(&again.res_global_info.as_ref().unwrap().total), "1725.50");
    assert_eq!(again.last_modify_date_time, b.last_update_date_time);
}

async fn http_other_partner_and_nbc(b: Backend) {
    let server = support::TestServer::start(b).await;
    let client = server.client();
    // PARTNER2 reads DEMO's booking: not found.
    let mut read = read_rq("4471200", "Internal");
    read.pos = pos(support::PARTNER2);
    let rs = client.send(&read).await.unwrap();
    assert_eq!(single_error(&rs).1, ErrorCode::BookingReferenceNotFound);
    // PARTNER2 modifies its own booking.
    read.unique_id.as_mut().unwrap().id = "4471300".into();
    let rs = client.send(&read).await.unwrap();
    let mut p = handlers::modify_payload(&rs.reservations_list.unwrap().hotel_reservation[0]).unwrap();
    p.res_global_info.comments = Some(m::Comments {
        comment: vec![m::Comment {
            name: Some("Remarks".into()),
            comment_originator_code: Some("Client".into()),
            text: vec![m::CommentText { language: None, value: "Sea view.".into() }],
        }],
    });
    let mut rq = modify_rq(ResStatus::Commit, p);
    rq.pos = pos(support::PARTNER2);
    let rs = client.send(&rq).await.unwrap();
    assert_eq!(total(&payload_of(&rs).res_global_info.total), "190.00");

    // The NBC of a brand, with the sample request's shape.
    let mut nbc =
        nbc_rq(r#"PrimaryLangID="de" AltLangID="en""#, r#"<HotelDescriptiveInfo HotelCode="" BrandCode="SOLMAR"/>"#);
    nbc.pos = pos(support::DEMO);
    let rs: OtaHotelDescriptiveInfoRs = client.send(&nbc).await.unwrap();
    assert!(rs.is_success(), "{:?}", rs.errors());
    assert_eq!(rs.hotel_descriptive_contents.unwrap().hotel_descriptive_content.len(), 2);
}

backend_tests!(
    a_modify_built_from_an_older_read_is_refused,
    a_modify_takes_the_version_under_its_opentravel_name,
    concurrent_modifies_from_one_read_apply_once,
    nbc_by_hotel_code_in_one_language,
    nbc_by_brand_gives_every_hotel_of_the_feed,
    nbc_star_gives_every_language,
    nbc_falls_back_to_alt_language_then_english,
    nbc_unknown_hotel_or_brand,
    read_by_client_and_by_internal_reference,
    read_of_other_requestors_or_unknown_booking_is_not_found,
    read_of_a_cancelled_booking_warns,
    list_by_arrival_date_with_status_filter,
    list_by_create_and_last_update_date,
    comment_change_is_applied_without_repricing,
    non_lead_guest_name_is_a_minor_change_lead_guest_name_is_not,
    board_change_reprices_the_room,
    room_type_and_date_changes_reprice_with_the_season,
    invalid_major_changes_are_refused,
    occupancy_changes_are_refused,
    other_differences_are_refused_with_the_node,
    quote_changes_nothing,
    a_request_total_that_differs_is_warned_about,
    six_rooms_are_refused,
    cancelled_unknown_and_foreign_bookings_are_refused,
    a_modified_booking_survives_reopening_the_database,
    storing_the_demo_twice_is_an_upsert,
    snapshots_of_a_read_and_a_modify,
    http_read_then_modify,
    http_other_partner_and_nbc,
);
