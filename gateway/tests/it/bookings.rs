//! Finding any booking (`ota-gateway bookings search|show`, issue 30), on both backends, with
//! bookings made through the OTA API of a real gateway process: found by Internal reference,
//! Client reference and surname (any case, Unicode); each filter narrows; paging lists every
//! row once in either order; a modify and a cancel show in the history with who and when, next
//! to the transaction-log entries and outbox events; a hostile guest name comes out escaped in
//! text and as itself in JSON; bad filter values are refused, naming the field.

use std::collections::BTreeSet;

use ota_messages::runtime::Message;
use serde_json::Value;

use crate::support::{self, Backend, GatewayProcess, TestDb, backend_tests, cli, day};

backend_tests!(bookings_are_found_by_every_filter, history_log_and_events_of_a_booking, hostile_names_and_bad_values);

/// The POS of `DEMO`.
pub(crate) fn pos() -> String {
    r#"<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>"#.to_string()
}

/// The sample hotel Commit (lead guest José Müller, HTL00042) arriving in `from` days for three
/// nights, Client reference `client`.
pub(crate) fn hotel_booking(client: &str, from: i64) -> String {
    support::sample("hotel_res")
        .replace("RMSG000000", "RMTW000000")
        .replace("2025-07-01", &day(from).to_string())
        .replace("2025-07-04", &day(from + 3).to_string())
        .replace("CLI-2025-001204", client)
}

/// An activity Commit (the Drach caves) on day `on` of one participant named `surname` (XML
/// text, escaped as it must be), Client reference `client`.
pub(crate) fn activity_booking(client: &str, on: i64, surname: &str) -> String {
    let date = day(on);
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit">{}<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TIC"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><GivenName>Eva</GivenName><Surname>{surname}</Surname></Individual></ParticipantInfo><Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{client}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#,
        pos()
    )
}

fn cancel(client: &str) -> String {
    format!(
        r#"<OTA_CancelRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" CancelType="Commit">{}<UniqueID Type="36" ID="{client}" ID_Context="Client"/></OTA_CancelRQ>"#,
        pos()
    )
}

/// Posts `body` to the gateway's `path`: the answer, which must be a success.
async fn post(gw: &GatewayProcess, path: &str, body: String) -> String {
    let res = reqwest::Client::new()
        .post(format!("{}{path}", gw.url))
        .header("content-type", "application/xml")
        .body(body)
        .send()
        .await
        .unwrap();
    let text = res.text().await.unwrap();
    assert!(text.contains("<Success/>"), "{path}: {text}");
    text
}

/// `ota-gateway bookings ARGS --db DB`: stdout, which must be a success.
fn bookings(db: &TestDb, args: &[&str]) -> String {
    let (code, out, err) = run(db, args);
    assert_eq!(code, 0, "bookings {args:?}: {err}");
    out
}

fn run(db: &TestDb, args: &[&str]) -> (i32, String, String) {
    let mut all = vec!["bookings"];
    all.extend_from_slice(args);
    let arg = db.arg();
    all.extend(["--db", &arg]);
    cli(&all, "")
}

/// `bookings search ARGS --json`: the rows.
fn search(db: &TestDb, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["search", "--json"];
    all.extend_from_slice(args);
    let out = bookings(db, &all);
    serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().clone()
}

/// The Client references of rows.
fn clients(rows: &[Value]) -> BTreeSet<String> {
    rows.iter().map(|r| r["client_ref"].as_str().unwrap().to_string()).collect()
}

/// The Internal reference of the booking with Client reference `client` (as a search by it
/// lists it), checked to be the one `answer` gave.
fn internal(db: &TestDb, client: &str, answer: &str) -> String {
    let rows = search(db, &["--ref", client]);
    assert_eq!(rows.len(), 1, "{client}: {rows:?}");
    let reference = rows[0]["internal_ref"].as_str().unwrap().to_string();
    assert!(answer.contains(&format!("\"{reference}\"")), "{reference} in {answer}");
    reference
}

/// Every filter narrows; the Internal and Client references, and the surname in any case,
/// find a booking; another partner's filter does not; paging lists every row once.
async fn bookings_are_found_by_every_filter(b: Backend) {
    let db = TestDb::new(b).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    let hotel = post(&gw, "/hotelbook", hotel_booking("BKS-H1", 40)).await;
    let hotel_ref = internal(&db, "BKS-H1", &hotel);
    let activity = post(&gw, "/activitybook", activity_booking("BKS-A1", 20, "Kowalska")).await;
    let activity_ref = internal(&db, "BKS-A1", &activity);

    // By either reference.
    for r in ["BKS-H1", hotel_ref.as_str()] {
        let rows = search(&db, &["--ref", r]);
        assert_eq!(rows.len(), 1, "{r}: {rows:?}");
        let row = &rows[0];
        assert_eq!(
            (row["kind"].as_str(), row["internal_ref"].as_str(), row["client_ref"].as_str(), row["partner"].as_str()),
            (Some("hotel"), Some(hotel_ref.as_str()), Some("BKS-H1"), Some("DEMO"))
        );
        assert_eq!(row["hotel"], "HTL00042");
        assert_eq!(row["lead_guest"], "José Müller");
        assert_eq!(row["arrival"], day(40).to_string());
        assert_eq!(row["nights"], 3);
        assert_eq!(row["status"], "Reserved");
        assert!(row["total"].as_str().unwrap().parse::<f64>().unwrap() > 0.0 && row["currency"] == "EUR", "{row}");
        assert!(row["created"].as_str().unwrap().starts_with(&day(0).to_string()), "{row}");
    }
    for r in ["BKS-A1", activity_ref.as_str()] {
        let rows = search(&db, &["--ref", r]);
        assert_eq!(rows.len(), 1, "{r}: {rows:?}");
        assert_eq!((rows[0]["kind"].as_str(), rows[0]["activity"].as_str()), (Some("activity"), Some("LESPMIBKUI")));
        assert_eq!(rows[0]["lead_guest"], "Eva Kowalska");
        assert_eq!(rows[0]["arrival"], day(20).to_string());
        assert_eq!(rows[0]["nights"], Value::Null);
    }
    // By surname: a prefix, in any case (beyond ASCII too).
    for s in ["Müller", "MÜLL", "müller", "o'brien"] {
        assert!(clients(&search(&db, &["--surname", s])).contains("BKS-H1"), "{s}");
    }
    assert_eq!(clients(&search(&db, &["--surname", "kowal"])), BTreeSet::from(["BKS-A1".to_string()]));
    assert!(search(&db, &["--surname", "Müllerx"]).is_empty());

    // Each filter narrows.
    let all = clients(&search(&db, &["--limit", "500"]));
    assert!(all.contains("BKS-H1") && all.contains("BKS-A1") && all.len() > 2, "the demo bookings too: {all:?}");
    let only = |args: &[&str]| clients(&search(&db, args));
    assert!(!only(&["--partner", "PARTNER2"]).contains("BKS-H1"), "another partner's filter");
    assert!(only(&["--partner", "DEMO"]).is_superset(&BTreeSet::from(["BKS-H1".into(), "BKS-A1".into()])));
    assert!(only(&["--partner", "PARTNER2", "--ref", "BKS-H1"]).is_empty());
    let at_hotel = only(&["--hotel", "HTL00042"]);
    assert!(at_hotel.contains("BKS-H1") && !at_hotel.contains("BKS-A1"));
    assert!(only(&["--hotel", "HTL99999"]).is_empty());
    assert_eq!(only(&["--activity", "LESPMIBKUI"]), BTreeSet::from(["BKS-A1".to_string()]));
    let today = day(0).to_string();
    let created_today = only(&["--created-from", &today, "--created-to", &today]);
    assert_eq!(created_today, BTreeSet::from(["BKS-H1".to_string(), "BKS-A1".to_string()]), "the demo's are older");
    assert!(only(&["--created-to", &day(-1).to_string(), "--ref", "BKS-H1"]).is_empty());
    assert!(only(&["--created-from", &day(1).to_string()]).is_empty());
    assert_eq!(
        only(&["--arrival-from", &day(40).to_string(), "--arrival-to", &day(40).to_string()]),
        BTreeSet::from(["BKS-H1".to_string()])
    );
    assert_eq!(
        only(&["--arrival-from", &day(20).to_string(), "--arrival-to", &day(21).to_string()]),
        BTreeSet::from(["BKS-A1".to_string()])
    );
    assert!(only(&["--status", "cancelled", "--partner", "DEMO"]).is_disjoint(&created_today));
    post(&gw, "/bookcancel", cancel("BKS-A1")).await;
    assert!(only(&["--status", "Cancelled"]).contains("BKS-A1"));
    assert!(!only(&["--status", "Reserved"]).contains("BKS-A1"));

    // Paging: every row once, in order, in every sort.
    for _ in 0..3 {
        post(&gw, "/hotelbook", hotel_booking(&format!("BKS-P{}", all.len()), 41)).await;
    }
    let all: Vec<Value> = search(&db, &["--limit", "500"]);
    for sort in ["created-desc", "created", "arrival", "arrival-desc"] {
        let whole = search(&db, &["--limit", "500", "--sort", sort]);
        assert_eq!(whole.len(), all.len());
        let mut paged = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let mut args = vec!["search", "--json", "--limit", "2", "--sort", sort];
            if let Some(a) = &after {
                args.extend(["--after", a]);
            }
            let (code, out, err) = run(&db, &args);
            assert_eq!(code, 0, "{err}");
            paged.extend(serde_json::from_str::<Value>(&out).unwrap().as_array().unwrap().clone());
            match err.lines().find_map(|l| l.strip_prefix("more: --after '")) {
                Some(next) => after = Some(next.trim_end_matches('\'').to_string()),
                None => break,
            }
            assert!(paged.len() <= whole.len(), "{sort}: pages never end");
        }
        let refs =
            |rows: &[Value]| rows.iter().map(|r| r["internal_ref"].as_str().unwrap().to_string()).collect::<Vec<_>>();
        assert_eq!(refs(&paged), refs(&whole), "{sort}: every row once, in the order of one page");
        let keys: Vec<String> = whole
            .iter()
            .map(|r| r[if sort.starts_with("arrival") { "arrival" } else { "created" }].as_str().unwrap().to_string())
            .collect();
        let mut sorted = keys.clone();
        sorted.sort();
        if sort.ends_with("desc") {
            sorted.reverse();
        }
        assert_eq!(keys, sorted, "{sort}");
    }

    // The text table: a header and one row per booking.
    let text = bookings(&db, &["search", "--ref", "BKS-H1"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() == 2 && lines[0].starts_with("KIND") && lines[1].contains(&hotel_ref), "{text}");
}

/// A modify and a cancel show in the booking's history (by whom, when), with its items, its
/// guests, its transaction-log entries and its outbox events (the demo hotels have a supplier).
async fn history_log_and_events_of_a_booking(b: Backend) {
    let db = TestDb::new(b).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    let (code, _, err) = cli(&["requestor", "set", "DEMO", "--log", "bookings", "--db", &db.arg()], "");
    assert_eq!(code, 0, "{err}");
    // The running gateway serves the change within a second.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let booked = post(&gw, "/hotelbook", hotel_booking("BKS-M1", 30)).await;
    let hotel_ref = internal(&db, "BKS-M1", &booked);

    // The partner modifies it (a comment added, from its read), then cancels it.
    let read = ota_messages::booking_read::OtaReadRq::from_xml(&format!(
        r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1">{}<UniqueID Type="36" ID="BKS-M1" ID_Context="Client"/></OTA_ReadRQ>"#,
        pos()
    ))
    .unwrap();
    let client = gw.client();
    let as_read: ota_messages::booking_read::OtaResRetrieveRs = client.send(&read).await.unwrap();
    let payload = crate::support::with_a_remark(&as_read.reservations_list.as_ref().unwrap().hotel_reservation[0]);
    let modify = ota_messages::hotel_res_modify::OtaHotelResModifyRq {
        version: "2008.1".into(),
        res_status: Some(ota_messages::common::ResStatus::Commit),
        pos: read.pos.clone(),
        hotel_res_modifies: ota_messages::hotel_res_modify::HotelResModifies { hotel_res_modify: payload },
        ..Default::default()
    };
    let modified = client.send(&modify).await.unwrap();
    assert!(ota_messages::runtime::Response::is_success(&modified), "{modified:?}");
    post(&gw, "/bookcancel", cancel("BKS-M1")).await;
    let activity = post(&gw, "/activitybook", activity_booking("BKS-M2", 25, "Nowak")).await;
    let activity_ref = internal(&db, "BKS-M2", &activity);
    post(&gw, "/bookcancel", cancel("BKS-M2")).await;

    for reference in ["BKS-M1", hotel_ref.as_str()] {
        let out = bookings(&db, &["show", reference, "--json"]);
        let shown: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            (shown["internal_ref"].as_str(), shown["status"].as_str()),
            (Some(hotel_ref.as_str()), Some("Cancelled"))
        );
        let history = shown["history"].as_array().unwrap();
        let changes: Vec<(&str, &str, &str)> = history
            .iter()
            .map(|v| (v["change"].as_str().unwrap(), v["by_kind"].as_str().unwrap(), v["by"].as_str().unwrap()))
            .collect();
        assert_eq!(
            changes,
            [("created", "partner", "DEMO"), ("modified", "partner", "DEMO"), ("cancelled", "partner", "DEMO")],
            "{out}"
        );
        let today = day(0).to_string();
        assert!(history.iter().all(|v| v["at"].as_str().unwrap().starts_with(&today)), "{out}");
        assert_eq!(history[2]["status"], "Cancelled");
        assert_eq!(history[0]["status"], "Reserved");
        let items = shown["items"].as_array().unwrap();
        assert!(!items.is_empty() && items.iter().all(|i| i["hotel"] == "HTL00042" && i["price"].is_string()), "{out}");
        assert_eq!(shown["guests"][0]["surname"], "Müller");
        let operations: Vec<&str> =
            shown["log"].as_array().unwrap().iter().map(|e| e["operation"].as_str().unwrap()).collect();
        assert_eq!(operations, ["hotelbook", "bookread", "bookmodify", "bookcancel"], "{out}");
        assert!(shown["log"].as_array().unwrap().iter().all(|e| e["outcome"] == "success"));
        let events: Vec<&str> =
            shown["events"].as_array().unwrap().iter().map(|e| e["kind"].as_str().unwrap()).collect();
        assert_eq!(events, ["new", "modified", "cancelled"], "{out}");
    }
    let shown: Value = serde_json::from_str(&bookings(&db, &["show", &activity_ref, "--json"])).unwrap();
    let changes: Vec<&str> =
        shown["history"].as_array().unwrap().iter().map(|v| v["change"].as_str().unwrap()).collect();
    assert_eq!(changes, ["created", "cancelled"]);
    assert_eq!(shown["items"][0]["product"], "TE0CC00A");
    assert!(shown["items"][0]["cancelled_at"].is_string());

    // As text: each section.
    let text = bookings(&db, &["show", "BKS-M1"]);
    for part in [
        "--- items",
        "--- history",
        "--- transaction log",
        "--- outbox events",
        "cancelled by partner DEMO",
        "bookmodify",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    // The demo's imported bookings: created by the import.
    let shown: Value = serde_json::from_str(&bookings(&db, &["show", "DEMO-2030-0001", "--json"])).unwrap();
    assert_eq!(
        (shown["history"][0]["by_kind"].as_str(), shown["history"][0]["by"].as_str()),
        (Some("operator"), Some("import"))
    );

    let (code, _, err) = run(&db, &["show", "NO-SUCH-REF"]);
    assert!(code == 1 && err.contains("no booking has the reference \"NO-SUCH-REF\""), "{err}");
}

/// A guest named with markup and CR/LF forges no row in text and is itself in JSON; a bad
/// filter value is refused, naming the field.
async fn hostile_names_and_bad_values(b: Backend) {
    let db = TestDb::new(b).await;
    let gw = GatewayProcess::start(&db.arg(), &[]).await;
    let hostile = "<script>alert(1)</script>\r\nactivity ACT-FORGED";
    let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&#13;&#10;activity ACT-FORGED";
    post(&gw, "/activitybook", activity_booking("BKS-X1\u{200b}", 22, escaped)).await;

    let rows = search(&db, &["--surname", "<SCRIPT>"]);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        rows[0]["lead_guest"].as_str(),
        Some(format!("Eva {hostile}").as_str()),
        "JSON carries the name as it is"
    );
    assert_eq!(rows[0]["client_ref"], "BKS-X1\u{200b}");
    let text = bookings(&db, &["search", "--surname", "<script>"]);
    assert_eq!(text.lines().count(), 2, "a header and one row: {text}");
    assert!(
        text.contains(r"alert(1)</script>\u{d}\u{a}activity ACT-FORGED") && text.contains(r"BKS-X1\u{200b}"),
        "{text}"
    );
    let shown = bookings(&db, &["show", "BKS-X1\u{200b}"]);
    assert!(!shown.lines().any(|l| l.starts_with("activity ACT-FORGED")), "{shown}");
    let json: Value = serde_json::from_str(&bookings(&db, &["show", "BKS-X1\u{200b}", "--json"])).unwrap();
    assert_eq!(json["guests"][0]["surname"].as_str(), Some(hostile));

    for (args, field) in [
        (vec!["--created-from", "2030-02-30"], "created-from: \"2030-02-30\" is not a date"),
        (vec!["--arrival-to", "tomorrow"], "arrival-to: \"tomorrow\" is not a date"),
        (vec!["--limit", "1000000"], "limit: \"1000000\" is not a number from 1 to 500"),
        (vec!["--limit=-1"], "limit: \"-1\" is not a number"),
        (vec!["--status", "Gone\r\n"], "status:"),
        (vec!["--sort", "price"], "sort: \"price\" is not one of"),
        (vec!["--after", "created-desc~junk"], "after:"),
        (vec!["--hotel", "HTL00042", "--activity", "LESPMIBKUI"], "activity:"),
    ] {
        let mut all = vec!["search"];
        all.extend(args.iter().copied());
        let (code, out, err) = run(&db, &all);
        assert!(code == 1 && out.is_empty() && err.contains(field) && !err.contains("panicked"), "{args:?}: {err}");
    }
    let (code, _, err) = run(&db, &["search", "--ref", &"R".repeat(100_000)]);
    assert!(code == 1 && err.contains("ref: longer than 128 characters"), "{}", &err[..err.len().min(300)]);
}
