//! Several gateways on one database, as real processes (`ota-gateway serve`): three started
//! together on a fresh database (migrations and the demo seed run once), three taking Commits
//! for the last places of a service, for the last room of a hotel and for one Client reference,
//! two modifying one booking
//! from the same read, and an import made on the side reaching every instance within a second.
//! On PostgreSQL, the way to run many instances; on SQLite too (several processes on one file).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use ota_gateway::hotels::modify_payload;
use ota_messages::booking_read::OtaReadRq;
use ota_messages::common::{ErrorCode, IdContext, ResStatus};
use ota_messages::hotel_res_modify::{self as m, OtaHotelResModifyRq};
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use support::{Backend, GatewayProcess, TestDb, backend_tests, sample};

const XML: &str = "application/xml";

fn day(n: i64) -> NaiveDate {
    Utc::now().date_naive() + chrono::Duration::days(n)
}

/// A Commit of one adult on the 2-place sunset catamaran.
fn commit_xml(client_ref: &str, date: NaiveDate) -> String {
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><BookingInfo><BasicInfo TourActivityID="LESPMICATA" SupplierProductCode="CATSUNSET" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><Surname>Sailor</Surname></Individual></ParticipantInfo><Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#
    )
}

/// Three gateways started at the same moment on a fresh database.
async fn three(db: &TestDb) -> Vec<GatewayProcess> {
    let arg = db.arg();
    let starts = (0..3).map(|_| {
        let arg = arg.clone();
        tokio::spawn(async move { GatewayProcess::start(&arg, &[]).await })
    });
    let mut out = Vec::new();
    for s in starts {
        out.push(s.await.unwrap());
    }
    out
}

/// Internal reference of a Commit answer (`None`: an error answer).
fn internal(body: &str) -> Result<String, ErrorCode> {
    let rs = OtaTourActivityBookRs::from_xml(body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    if rs.is_success() {
        Ok(rs
            .reservation_details
            .unwrap()
            .confirmation
            .into_iter()
            .find(|c| c.id_context == Some(IdContext::Internal))
            .unwrap()
            .id)
    } else {
        Err(rs.errors().unwrap().error[0].code.clone().unwrap())
    }
}

/// Three gateways start together on a fresh database: all come up (no "table already exists"),
/// the demo is seeded once.
pub(crate) async fn gateways_started_together_share_one_schema_and_one_seed(b: Backend) {
    let db = TestDb::new(b).await;
    let gateways = three(&db).await;
    let store = db.open().await;
    assert_eq!(support::count(&store, "requestor").await, 4);
    assert_eq!(support::count(&store, "hotel_booking").await, 9);
    for g in &gateways {
        let (status, _, body) =
            g.client().send_raw("/activitynbc", sample("product_descriptive_info"), XML).await.unwrap();
        assert_eq!(status, 200);
        assert!(body.contains("<Success/>"), "{body}");
    }
}

/// Ten Commits for the two places of a date, spread over three gateways: two are booked, the
/// others are told there is no place; the same Client reference sent to all three at once is
/// one booking, answered everywhere with one Internal reference.
pub(crate) async fn commits_on_three_gateways_never_overbook_nor_duplicate(b: Backend) {
    let db = TestDb::new(b).await;
    let gateways = three(&db).await;
    let date = day(4);
    let mut tasks = Vec::new();
    for i in 0..10 {
        let client = gateways[i % 3].client();
        tasks.push(tokio::spawn(async move {
            client.send_raw("/activitybook", commit_xml(&format!("CLI-MULTI-{i}"), date), XML).await.unwrap()
        }));
    }
    let mut booked = 0;
    for t in tasks {
        let (status, _, body) = t.await.unwrap();
        assert_eq!(status, 200);
        match internal(&body) {
            Ok(_) => booked += 1,
            Err(code) => assert_eq!(code, ErrorCode::NoAvailability, "{body}"),
        }
    }
    assert_eq!(booked, 2, "the 2-place catamaran on {date}");

    // One Client reference, four times on each gateway, all at once, on another date.
    let date = day(5);
    let mut tasks = Vec::new();
    for i in 0..12 {
        let client = gateways[i % 3].client();
        tasks.push(tokio::spawn(async move {
            client.send_raw("/activitybook", commit_xml("CLI-SAME-REF", date), XML).await.unwrap()
        }));
    }
    let mut references = BTreeSet::new();
    for t in tasks {
        let (_, _, body) = t.await.unwrap();
        references.insert(internal(&body).unwrap_or_else(|e| panic!("{e:?}: {body}")));
    }
    assert_eq!(references.len(), 1, "one booking, one Internal reference: {references:?}");
    let store = db.open().await;
    let client_ref = "CLI-SAME-REF".to_string();
    let ota_gateway::store::Scalar(n): ota_gateway::store::Scalar<i64> = store
        .read(move |c| {
            Box::pin(async move {
                c.query_one("SELECT count(*) FROM activity_booking WHERE client_reference = $1", &[&client_ref]).await
            })
        })
        .await
        .unwrap();
    assert_eq!(n, 1);
}

/// Two partners' clerks read one booking on two gateways and both change it: the first change
/// applies, the second is refused (it would undo the first); nothing is lost.
pub(crate) async fn modifies_on_two_gateways_from_one_read_never_lose_an_update(b: Backend) {
    let db = TestDb::new(b).await;
    let gateways = three(&db).await;
    let read = OtaReadRq::from_xml(&sample("booking_read")).unwrap();
    let rs = gateways[0].client().send(&read).await.unwrap();
    let reservation = rs.reservations_list.unwrap().hotel_reservation.remove(0);
    let base = modify_payload(&reservation).unwrap();
    let pos = OtaHotelResModifyRq::from_xml(&sample("hotel_res_modify")).unwrap().pos;
    let modify = |p: m::HotelResModify| OtaHotelResModifyRq {
        version: "2008.1".into(),
        res_status: Some(ResStatus::Commit),
        pos: pos.clone(),
        hotel_res_modifies: m::HotelResModifies { hotel_res_modify: p },
        ..Default::default()
    };
    let mut dates = base.clone();
    dates.room_stays.as_mut().unwrap().room_stay[0].time_span.as_mut().unwrap().end = "2030-07-09".parse().unwrap();
    let mut comment = base.clone();
    comment.res_global_info.comments.as_mut().unwrap().comment[0].text[0].value = "Late arrival.".into();
    let (a, b_) = (gateways[1].client(), gateways[2].client());
    let (dates, comment) = (modify(dates), modify(comment));
    let (first, second) = tokio::join!(a.send(&dates), b_.send(&comment));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!([first.is_success(), second.is_success()].iter().filter(|s| **s).count(), 1, "exactly one applies");
    let refused = if first.is_success() { &second } else { &first };
    assert_eq!(refused.errors().unwrap().error[0].code, Some(ErrorCode::RequestedActionNotPossible));
    // What is stored is the change that was answered with Success (its version, dates, total
    // and comments; room names come in each request's language).
    let applied =
        &(if first.is_success() { &first } else { &second }).hotel_res_modifies.as_ref().unwrap().hotel_res_modify;
    let rs = gateways[0].client().send(&read).await.unwrap();
    let stored = modify_payload(&rs.reservations_list.unwrap().hotel_reservation[0]).unwrap();
    let key = |p: &m::HotelResModify| {
        let spans: Vec<String> =
            p.room_stays.as_ref().unwrap().room_stay.iter().map(|r| format!("{:?}", r.time_span)).collect();
        (p.last_update_date_time, spans, p.res_global_info.total.clone(), p.res_global_info.comments.clone())
    };
    assert_eq!(key(&stored), key(applied));
}

/// An import made with `ota-gateway import` while gateways run: every gateway serves the new
/// content within a second.
pub(crate) async fn an_import_reaches_every_gateway_within_a_second(b: Backend) {
    let db = TestDb::new(b).await;
    let gateways = three(&db).await;
    // A copy of the train excursion under a new id.
    let mut activities: serde_json::Value = serde_json::from_str(ota_gateway::activities::import::DEMO).unwrap();
    let mut copy = activities.as_array().unwrap().iter().find(|a| a["id"] == "LESPMIAZ9U").unwrap().clone();
    copy["id"] = "LESPMINEW1".into();
    for p in copy["products"].as_array_mut().unwrap() {
        p["code"] = format!("NEW-{}", p["code"].as_str().unwrap()).into();
    }
    activities = serde_json::json!([copy]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("import.json");
    std::fs::write(&file, serde_json::json!({ "activities": activities }).to_string()).unwrap();
    let nbc = sample("product_descriptive_info").replace("LESPMIBKUI", "LESPMINEW1");
    for g in &gateways {
        let (_, _, body) = g.client().send_raw("/activitynbc", nbc.clone(), XML).await.unwrap();
        assert!(body.contains("<Errors>"), "not there yet: {body}");
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
        .args(["import"])
        .arg(&file)
        .args(["--db", &db.arg()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let imported = Instant::now();
    let mut seen = vec![None; gateways.len()];
    while seen.iter().any(Option::is_none) && imported.elapsed() < Duration::from_secs(5) {
        for (i, g) in gateways.iter().enumerate() {
            if seen[i].is_none() {
                let (_, _, body) = g.client().send_raw("/activitynbc", nbc.clone(), XML).await.unwrap();
                if body.contains("<Success/>") {
                    seen[i] = Some(imported.elapsed());
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!("{b:?}: the import was served by each gateway after {seen:?}");
    for (i, s) in seen.iter().enumerate() {
        let s = s.unwrap_or_else(|| panic!("gateway {i} never served the import"));
        assert!(s < Duration::from_secs(1), "gateway {i} served the import after {s:?}");
    }
}

/// A hotel Commit of one guest in the one single room of HTL00105.
fn hotel_commit_xml(client_ref: &str, start: NaiveDate, end: NaiveDate) -> String {
    format!(
        r#"<OTA_HotelResRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" ResStatus="Commit"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><HotelReservations><HotelReservation><RoomStays><RoomStay><RoomTypes><RoomType RoomTypeCode="RMSG000000"/></RoomTypes><RoomRates><RoomRate><Features><Feature><Description><Text>SC</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="HTL00105"/><ResGuestRPHs><ResGuestRPH RPH="1"/></ResGuestRPHs></RoomStay></RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client_ref}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#
    )
}

/// Nine Commits for the last room of a stay, spread over three gateways: one is booked, the
/// others are told there is no room; the rooms sold say one.
pub(crate) async fn the_last_room_on_three_gateways_is_sold_once(b: Backend) {
    let db = TestDb::new(b).await;
    let gateways = three(&db).await;
    let (start, end) = (day(90), day(93));
    let mut tasks = Vec::new();
    for i in 0..9 {
        let client = gateways[i % 3].client();
        tasks.push(tokio::spawn(async move {
            client.send_raw("/hotelbook", hotel_commit_xml(&format!("CLI-ROOM-{i}"), start, end), XML).await.unwrap()
        }));
    }
    let mut booked = 0;
    for t in tasks {
        let (status, _, body) = t.await.unwrap();
        assert_eq!(status, 200);
        let rs = ota_messages::hotel_res::OtaHotelResRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        if rs.is_success() {
            booked += 1;
        } else {
            assert_eq!(rs.errors().unwrap().error[0].code, Some(ErrorCode::NoAvailability), "{body}");
        }
    }
    assert_eq!(booked, 1);
    let store = db.open().await;
    let ota_gateway::store::Scalar(sold): ota_gateway::store::Scalar<i64> = store
        .read(move |c| {
            Box::pin(async move {
                c.query_one("SELECT COALESCE(MAX(rooms), 0) FROM hotel_rooms_sold WHERE hotel_code = 'HTL00105' AND room_code = 'RMSG000000' AND night = $1", &[&start]).await
            })
        })
        .await
        .unwrap();
    assert_eq!(sold, 1);
}

backend_tests!(
    the_last_room_on_three_gateways_is_sold_once,
    gateways_started_together_share_one_schema_and_one_seed,
    commits_on_three_gateways_never_overbook_nor_duplicate,
    modifies_on_two_gateways_from_one_read_never_lose_an_update,
    an_import_reaches_every_gateway_within_a_second,
);
