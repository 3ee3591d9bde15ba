//! A supplier's `OTA_ReadRQ` with criteria (issue 31, "The same for systems"): one of its
//! bookings by the Internal or the partner's Client reference, or its bookings by arrival or
//! creation dates, whatever their acknowledgement; another supplier's booking answered exactly
//! as an unknown one; a criterion the gateway does not apply refused by name; the plain pull
//! unchanged (only unacknowledged events, each read kept); the answers valid under OpenTravel
//! 2016B for a supplier on that dialect (`xmllint`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::process::{Command, Stdio};

use chrono::NaiveDate;
use ota_messages::booking_read::OtaResRetrieveRs;
use ota_messages::common::IdContext;
use ota_messages::runtime::{Message, Response};

use crate::outbox::{hotel_commit, notif_report, pos, supplier_read};
use crate::support::{Backend, TestServer, backend_tests, cli, day};

const XML: &str = "application/xml";
const NS: &str = r#"xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1""#;

/// A read of the demo supplier with `attrs` on the root and `body` after its POS.
fn read(attrs: &str, body: &str) -> String {
    format!(r#"<OTA_ReadRQ {NS} {attrs}>{}{body}</OTA_ReadRQ>"#, pos("SUP-DEMO", "SUP-DEMO-DIST", "sup-demo-pass"))
}

fn by_reference(id: &str, context: &str) -> String {
    read("", &format!(r#"<UniqueID Type="36" ID="{id}" ID_Context="{context}"/>"#))
}

fn by_dates(date_type: &str, start: NaiveDate, end: NaiveDate, hotel: Option<&str>) -> String {
    let hotel = hotel.map(|h| format!(r#" HotelCode="{h}""#)).unwrap_or_default();
    read(
        "",
        &format!(
            r#"<ReadRequests><HotelReadRequest{hotel}><SelectionCriteria Start="{start}" End="{end}" DateType="{date_type}"/></HotelReadRequest></ReadRequests>"#
        ),
    )
}

async fn post(server: &TestServer, path: &str, body: &str) -> String {
    let (status, _, answer) = server.client().send_raw(path, body.to_string(), XML).await.unwrap();
    assert_eq!(status, 200, "{answer}");
    answer
}

/// The bookings of an answer: (Internal reference, Client reference, status, hotels of its
/// room stays).
fn bookings(body: &str) -> Vec<(String, String, String, Vec<String>)> {
    let rs = OtaResRetrieveRs::from_xml(body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert!(rs.is_success(), "{body}");
    rs.reservations_list
        .map(|l| l.hotel_reservation)
        .unwrap_or_default()
        .into_iter()
        .map(|hr| {
            let id = |c: IdContext| {
                hr.unique_id.iter().find(|u| u.id_context == c).map(|u| u.id.clone()).unwrap_or_default()
            };
            let hotels = hr
                .room_stays
                .iter()
                .flat_map(|r| r.room_stay.iter())
                .filter_map(|r| r.basic_property_info.as_ref()?.hotel_code.clone())
                .collect();
            (id(IdContext::Internal), id(IdContext::Client), hr.res_status.as_str().to_string(), hotels)
        })
        .collect()
}

/// The one error of an answer: (Type, Code, Tag, text).
fn error(body: &str) -> (String, String, String, String) {
    let rs = OtaResRetrieveRs::from_xml(body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    let errors = rs.errors.unwrap_or_else(|| panic!("an error: {body}")).error;
    assert_eq!(errors.len(), 1, "{body}");
    let e = &errors[0];
    (
        e.r#type.as_str().to_string(),
        e.code.as_ref().map(|c| c.as_str().to_string()).unwrap_or_default(),
        e.tag.clone().unwrap_or_default(),
        e.value.clone(),
    )
}

/// xmllint's verdict on an answer under the official 2016B schema of `OTA_ResRetrieveRS`.
fn official_verdict(xml: &str) -> Result<(), String> {
    let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/opentravel-2016b/OTA_ResRetrieveRS.xsd");
    let mut child = Command::new("xmllint")
        .args(["--noout", "--schema", schema, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xmllint (apt-get install libxml2-utils)");
    child.stdin.take().unwrap().write_all(xml.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

async fn pulled_attempts(server: &TestServer) -> i64 {
    let store = server.store().clone();
    let ota_gateway::store::Scalar(n): ota_gateway::store::Scalar<i64> = store
        .read(|c| {
            Box::pin(
                async move { c.query_one("SELECT count(*) FROM outbox_attempt WHERE outcome = 'pulled'", &[]).await },
            )
        })
        .await
        .unwrap();
    n
}

/// Two bookings at the demo supplier's HTL00042 and one at CM2's HTL00077, acknowledged: the
/// demo supplier reads its own by reference and by dates, never CM2's; the pull still gives
/// only what is not acknowledged.
async fn a_supplier_reads_its_bookings_by_reference_and_dates(b: Backend) {
    let server = TestServer::start(b).await;
    let db = server.db.arg();
    let run = |args: &[&str], stdin: &str| {
        let mut all: Vec<&str> = vec!["requestor"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--db", &db]);
        let (code, out, err) = cli(&all, stdin);
        assert_eq!(code, 0, "{out}{err}");
    };
    run(&["set", "SUP-DEMO", "--hotels", "HTL00042,HTL00105,HTL02001"], "");
    run(&["add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL00077"], "cm2-secret\n");
    server.state.content.refresh().await.unwrap();

    for (client_ref, arrival, hotel) in
        [("SR-A", day(40), "HTL00042"), ("SR-B", day(60), "HTL00042"), ("SR-C", day(50), "HTL00077")]
    {
        let body = post(&server, "/hotelbook", &hotel_commit(client_ref, arrival, hotel, "RMSD000000")).await;
        assert!(body.contains("<Success"), "{body}");
    }
    // The pull gives the two of HTL00042; the supplier acknowledges them.
    let pulled = post(&server, "/bookread", &supplier_read()).await;
    let mine = bookings(&pulled);
    assert_eq!(mine.iter().map(|b| b.1.as_str()).collect::<Vec<_>>(), ["SR-A", "SR-B"], "{pulled}");
    let versions = OtaResRetrieveRs::from_xml(&pulled).unwrap().reservations_list.unwrap().hotel_reservation;
    let taken: Vec<(String, String)> = versions
        .iter()
        .zip(&mine)
        .map(|(hr, b)| (b.0.clone(), hr.last_modify_date_time.unwrap().local.format("%Y-%m-%dT%H:%M:%S").to_string()))
        .collect();
    let body = post(&server, "/notifreport", &notif_report(&taken)).await;
    assert!(body.contains("<Success") && !body.contains("Warning"), "{body}");
    assert!(bookings(&post(&server, "/bookread", &supplier_read()).await).is_empty(), "all acknowledged");
    let attempts = pulled_attempts(&server).await;
    let (a, b_ref) = (mine[0].0.clone(), mine[1].0.clone());
    // CM2's booking, by the Internal reference DEMO's read gives.
    let partner_read = format!(
        r#"<OTA_ReadRQ {NS}>{}<UniqueID Type="36" ID="SR-C" ID_Context="Client"/></OTA_ReadRQ>"#,
        pos("DEMO", "DEMO-DIST", "demo-password")
    );
    let c = bookings(&post(&server, "/bookread", &partner_read).await)[0].0.clone();

    // By reference, acknowledged as they are: the Internal one, the partner's Client one (in
    // either form of the request).
    let got = bookings(&post(&server, "/bookread", &by_reference(&a, "Internal")).await);
    assert_eq!(got, vec![(a.clone(), "SR-A".into(), "Reserved".into(), vec!["HTL00042".into()])]);
    let got = bookings(&post(&server, "/bookread", &by_reference("SR-B", "Client")).await);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, b_ref);
    let in_requests = read(
        "",
        r#"<ReadRequests><ReadRequest><UniqueID Type="36" ID="SR-B" ID_Context="Client"/></ReadRequest></ReadRequests>"#,
    );
    assert_eq!(bookings(&post(&server, "/bookread", &in_requests).await)[0].0, b_ref);

    // Another supplier's booking answers exactly as an unknown reference does.
    let theirs = error(&post(&server, "/bookread", &by_reference(&c, "Internal")).await);
    let unknown = error(&post(&server, "/bookread", &by_reference("HTL-NOSUCHTHING", "Internal")).await);
    assert_eq!((theirs.0.as_str(), theirs.1.as_str()), ("3", "97"), "{theirs:?}");
    assert_eq!(
        theirs,
        (unknown.0.clone(), unknown.1.clone(), unknown.2.clone(), unknown.3.replace("HTL-NOSUCHTHING", &c))
    );
    let theirs = error(&post(&server, "/bookread", &by_reference("SR-C", "Client")).await);
    assert_eq!((theirs.0.as_str(), theirs.1.as_str()), ("3", "97"), "{theirs:?}");

    // By arrival: exactly its bookings in the range.
    let refs = |body: String| bookings(&body).into_iter().map(|b| b.1).collect::<Vec<_>>();
    assert_eq!(refs(post(&server, "/bookread", &by_dates("ArrivalDate", day(35), day(45), None)).await), ["SR-A"]);
    assert_eq!(
        refs(post(&server, "/bookread", &by_dates("ArrivalDate", day(30), day(70), None)).await),
        ["SR-A", "SR-B"]
    );
    assert_eq!(
        refs(post(&server, "/bookread", &by_dates("ArrivalDate", day(30), day(70), Some("HTL00042"))).await),
        ["SR-A", "SR-B"]
    );
    assert!(
        refs(post(&server, "/bookread", &by_dates("ArrivalDate", day(30), day(70), Some("HTL00077"))).await).is_empty(),
        "another supplier's hotel: as if it had none"
    );
    assert!(refs(post(&server, "/bookread", &by_dates("ArrivalDate", day(61), day(70), None)).await).is_empty());
    // By creation: likewise (made in the same second: in either order).
    let mut created = refs(post(&server, "/bookread", &by_dates("CreateDate", day(-1), day(1), None)).await);
    created.sort();
    assert_eq!(created, ["SR-A", "SR-B"]);
    assert!(refs(post(&server, "/bookread", &by_dates("CreateDate", day(-30), day(-2), None)).await).is_empty());

    // A criterion the gateway does not apply is refused, naming it.
    let duration = by_dates("ArrivalDate", day(30), day(70), None).replace("DateType=", r#"Duration="P3D" DateType="#);
    let (kind, _, tag, text) = error(&post(&server, "/bookread", &duration).await);
    assert_eq!(kind, "2", "{text}");
    assert!(tag.ends_with("SelectionCriteria/@Duration") && text.contains("Duration"), "{tag} {text}");
    let chain = by_dates("ArrivalDate", day(30), day(70), None)
        .replace("<HotelReadRequest>", r#"<HotelReadRequest ChainCode="XX">"#);
    let (kind, _, tag, text) = error(&post(&server, "/bookread", &chain).await);
    assert_eq!(kind, "2", "{text}");
    assert!(tag.ends_with("@ChainCode") && text.contains("ChainCode"), "{tag} {text}");
    let max = read(r#"MaxResponses="1""#, "<ReadRequests><HotelReadRequest/></ReadRequests>");
    let (kind, _, _, text) = error(&post(&server, "/bookread", &max).await);
    assert!(kind == "2" && text.contains("MaxResponses"), "{text}");
    let long = by_dates("ArrivalDate", day(1), day(500), None);
    let (kind, code, _, text) = error(&post(&server, "/bookread", &long).await);
    assert!(kind == "3" && code == "161" && text.contains("400 days"), "{text}");

    // The reads changed nothing: no pull kept, nothing acknowledged; the pull gives only what
    // is not acknowledged (the cancellation of SR-A).
    assert_eq!(pulled_attempts(&server).await, attempts, "a read by criteria keeps no pull");
    assert!(bookings(&post(&server, "/bookread", &supplier_read()).await).is_empty());
    let body = post(&server, "/bookcancel", &crate::outbox::cancel("SR-A")).await;
    assert!(body.contains("<Success"), "{body}");
    let again = bookings(&post(&server, "/bookread", &supplier_read()).await);
    assert_eq!(again.iter().map(|b| (b.1.as_str(), b.2.as_str())).collect::<Vec<_>>(), [("SR-A", "Cancelled")]);
    assert!(pulled_attempts(&server).await > attempts, "the pull keeps its read");
    // A cancelled booking reads by reference too, as it stands.
    assert_eq!(bookings(&post(&server, "/bookread", &by_reference("SR-A", "Client")).await)[0].2, "Cancelled");

    // Another partner uses the same Client reference at another of its hotels: both read.
    let second = hotel_commit("SR-B", day(60), "HTL00105", "RMDB000000")
        .replace(&pos("DEMO", "DEMO-DIST", "demo-password"), &pos("PARTNER2", "P2-DIST", "partner2-pass"));
    let body = post(&server, "/hotelbook", &second).await;
    assert!(body.contains("<Success"), "{body}");
    let both = bookings(&post(&server, "/bookread", &by_reference("SR-B", "Client")).await);
    assert_eq!(both.len(), 2, "{both:?}");
    assert!(both.iter().any(|b| b.0 == b_ref && b.3 == ["HTL00042"]), "{both:?}");
    assert!(both.iter().any(|b| b.0 != b_ref && b.3 == ["HTL00105"]), "{both:?}");

    // A supplier on OpenTravel 2016B gets answers valid there.
    run(&["set", "SUP-DEMO", "--dialect", "ota2016b"], "");
    server.state.content.refresh().await.unwrap();
    for rq in [by_reference(&a, "Internal"), by_dates("ArrivalDate", day(30), day(70), None), supplier_read()] {
        let body = post(&server, "/bookread", &rq).await;
        assert!(body.contains("<Success/>"), "{body}");
        official_verdict(&body).unwrap_or_else(|e| panic!("not valid under OpenTravel 2016B:\n{e}\n{body}"));
    }
    let body = post(&server, "/bookread", &by_reference(&c, "Internal")).await;
    official_verdict(&body).unwrap_or_else(|e| panic!("not valid under OpenTravel 2016B:\n{e}\n{body}"));
}

/// 101 bookings arriving over 11 nights: a read by dates gives the first 100 and a Warning
/// saying how to narrow it; the first 10 nights give their 100 bookings and no Warning.
async fn a_read_by_dates_says_when_more_match(b: Backend) {
    let server = TestServer::start(b).await;
    for i in 0..101 {
        let body = post(
            &server,
            "/hotelbook",
            &hotel_commit(&format!("SR-M{i}"), day(100 + i / 10), "HTL00042", "RMSD000000"),
        )
        .await;
        assert!(body.contains("<Success"), "{body}");
    }
    let body = post(&server, "/bookread", &by_dates("ArrivalDate", day(100), day(110), None)).await;
    let rs = OtaResRetrieveRs::from_xml(&body).unwrap();
    assert_eq!(rs.reservations_list.as_ref().unwrap().hotel_reservation.len(), 100);
    let warnings = rs.warnings.as_ref().unwrap_or_else(|| panic!("a Warning: {body}"));
    assert!(
        warnings.warning.iter().any(|w| w.value.contains("More than 100 bookings match") && w.value.contains("Narrow")),
        "{body}"
    );
    let body = post(&server, "/bookread", &by_dates("ArrivalDate", day(100), day(109), None)).await;
    let rs = OtaResRetrieveRs::from_xml(&body).unwrap();
    assert_eq!(rs.reservations_list.as_ref().unwrap().hotel_reservation.len(), 100);
    assert!(rs.warnings.is_none(), "{body}");
    assert_eq!(
        bookings(&post(&server, "/bookread", &by_dates("ArrivalDate", day(110), day(110), None)).await).len(),
        1
    );
}

backend_tests!(a_supplier_reads_its_bookings_by_reference_and_dates, a_read_by_dates_says_when_more_match);
