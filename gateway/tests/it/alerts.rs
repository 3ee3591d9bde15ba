//! Booking alerts by e-mail (issue 31, "Alerts"), on real gateway processes and an SMTP server
//! of the test on loopback ([`support::smtp`]): a partner's booking at the supplier's hotel,
//! its modify and its cancel are each mailed once to each alert address; through a relay that
//! refuses or hangs up, one that is down while the gateway is killed and started again, and two
//! gateways on one PostgreSQL, every alert arrives, once; a hostile guest name adds no header.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ota_gateway::Store;
use ota_gateway::store::Scalar;
use ota_messages::runtime::Message;

use crate::outbox::{FAST, SUPPLIER, cancel, hotel_commit, pos, post};
use crate::support::smtp::{Mail, SmtpServer};
use crate::support::{Backend, GatewayProcess, TestDb, backend_tests, cli, day};

const A: &str = "frontdesk@hotel.example";
const B: &str = "reservations@hotel.example";

/// A gateway with the test's relay (and the outbox's quick retries).
async fn gateway(db: &str, smtp: &str, more: &[&str]) -> GatewayProcess {
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--smtp-url", smtp, "--smtp-timeout", "2s"]);
    args.extend(more);
    GatewayProcess::start(db, &args).await
}

/// `requestor set SUP-DEMO --alert-email …` (none: `--no-alert-email`).
fn set_alerts(db: &str, addresses: &[&str]) {
    let mut args = vec!["requestor", "set", SUPPLIER, "--db", db];
    if addresses.is_empty() {
        args.push("--no-alert-email");
    }
    for a in addresses {
        args.extend(["--alert-email", a]);
    }
    let (code, out, err) = cli(&args, "");
    assert_eq!(code, 0, "{out}{err}");
}

/// A booking of the demo partner at HTL00042 (the supplier's hotel): its Internal reference.
async fn book(urls: &Mutex<Vec<String>>, store: &Store, client_ref: &str, nights_from: i64) -> String {
    let body = post(urls, 0, "/hotelbook", &hotel_commit(client_ref, day(nights_from), "HTL00042", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    internal_ref(store, client_ref).await
}

async fn internal_ref(store: &Store, client_ref: &str) -> String {
    let client_ref = client_ref.to_string();
    let Scalar(r): Scalar<String> = store
        .read(move |c| {
            Box::pin(async move {
                c.query_one("SELECT internal_ref FROM hotel_booking WHERE client_ref = $1", &[&client_ref]).await
            })
        })
        .await
        .unwrap();
    r
}

/// The partner modifies its booking (a remark added, from its read).
async fn modify(gw: &GatewayProcess, client_ref: &str) {
    let read = ota_messages::booking_read::OtaReadRq::from_xml(&format!(
        r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1">{}<UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></OTA_ReadRQ>"#,
        pos("DEMO", "DEMO-DIST", "demo-password")
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
}

/// `outbox alerts --json` (of the supplier).
fn alerts_json(db: &str) -> Vec<serde_json::Value> {
    let (code, out, err) = cli(&["outbox", "alerts", "--supplier", SUPPLIER, "--json", "--db", db], "");
    assert_eq!(code, 0, "{out}{err}");
    serde_json::from_str::<Vec<serde_json::Value>>(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// How many alerts are queued for a booking.
async fn queued(store: &Store, booking_ref: &str) -> i64 {
    let r = booking_ref.to_string();
    let Scalar(n): Scalar<i64> = store
        .read(move |c| {
            Box::pin(
                async move { c.query_one("SELECT count(*) FROM booking_alert WHERE booking_ref = $1", &[&r]).await },
            )
        })
        .await
        .unwrap();
    n
}

/// Each mail once: (Message-ID → (To, Subject)); fails on a Message-ID seen twice.
fn once_each(mails: &[Mail]) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for m in mails {
        let id = m.header("Message-ID").expect("a Message-ID");
        let to = m.header("To").unwrap_or_default();
        let subject = m.header("Subject").unwrap_or_default();
        assert!(out.insert(id.clone(), (to, subject)).is_none(), "{id} arrived twice");
    }
    out
}

/// No mail arrives beyond the `n` expected, for a while.
async fn no_more_than(smtp: &SmtpServer, n: usize) {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(smtp.mails().len(), n, "{:?}", smtp.mails().iter().map(|m| m.header("Subject")).collect::<Vec<_>>());
}

/// A booking, its modify and its cancel: one mail each to each of the supplier's two addresses
/// (6), with the right subject, references and recipient, while the supplier (which pulls)
/// acknowledged nothing; a hostile guest name adds no header; an address with CR/LF is refused;
/// without addresses nothing is queued.
async fn each_change_is_mailed_once_to_each_address(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let smtp = SmtpServer::start().await;
    let gw = gateway(&arg, &smtp.url(), &[]).await;
    let store = db.open().await;
    let urls = Mutex::new(vec![gw.url.clone()]);

    // An address that would add a header is refused, and nothing is stored.
    let (code, out, err) = cli(
        &["requestor", "set", SUPPLIER, "--alert-email", "a@hotel.example\r\nBcc: evil@x.example", "--db", &arg],
        "",
    );
    assert_ne!(code, 0, "{out}{err}");
    assert!(err.contains("alert address"), "{err}");
    set_alerts(&arg, &[A, B]);
    let (_, list, _) = cli(&["requestor", "list", "--db", &arg], "");
    assert!(list.lines().any(|l| l.starts_with("SUP-DEMO ") && l.contains(&format!("(alerts to {A},{B})"))), "{list}");
    // Audited like every requestor change.
    let (_, audit, _) = cli(&["audit", "list", "--db", &arg], "");
    assert!(audit.contains("requestor.alert_emails"), "{audit}");

    let internal = book(&urls, &store, "ALR-1", 40).await;
    modify(&gw, "ALR-1").await;
    let body = post(&urls, 0, "/bookcancel", &cancel("ALR-1")).await;
    assert!(body.contains("<Success"), "{body}");

    let mails = smtp.wait_for(6, Duration::from_secs(20)).await;
    no_more_than(&smtp, 6).await;
    let seen = once_each(&mails);
    for address in [A, B] {
        let mut subjects: Vec<String> =
            seen.values().filter(|(to, _)| to.contains(address)).map(|(_, s)| s.clone()).collect();
        subjects.sort();
        assert_eq!(subjects.len(), 3, "{address}: {subjects:?}");
        for (subject, what) in subjects.iter().zip(["Cancelled booking", "Modified booking", "New booking"]) {
            assert!(subject.starts_with(&format!("{what} {internal} — Hotel Sol de Palma, ")), "{subject}");
        }
    }
    for m in &mails {
        assert_eq!(m.to.len(), 1, "one recipient per mail: {:?}", m.to);
        let body = m.body();
        assert!(body.contains(&format!("Internal reference: {internal}")), "{body}");
        assert!(body.contains("Partner's reference: ALR-1"), "{body}");
        assert!(body.contains("Lead guest: Ana Nowak"), "{body}");
        assert!(m.header("From").unwrap().contains("ota-gateway@localhost"));
    }
    // The alerts are sent; the events (pulled by the supplier) are still unacknowledged: the
    // two are independent.
    let alerts = alerts_json(&arg);
    assert_eq!(alerts.len(), 6, "{alerts:?}");
    assert!(alerts.iter().all(|a| a["state"] == "sent" && a["attempts"] == 1), "{alerts:?}");
    let (_, pending, _) = cli(&["outbox", "list", "--state", "pending", "--db", &arg], "");
    assert_eq!(pending.lines().count(), 1 + 3, "{pending}");
    let (_, text, _) = cli(&["outbox", "alerts", "--db", &arg], "");
    assert!(text.lines().filter(|l| l.contains(" sent ")).count() == 6, "{text}");

    // A hostile guest name: no header added, the name on its line of the body.
    let hostile = hotel_commit("ALR-H", day(44), "HTL00042", "RMSD000000").replace(
        "<Surname>Nowak</Surname>",
        "<Surname>Nowak&#13;&#10;Bcc: evil@x.example&#13;&#10;&#13;&#10;&lt;script&gt;alert(1)&lt;/script&gt;</Surname>",
    );
    let body = post(&urls, 0, "/hotelbook", &hostile).await;
    assert!(body.contains("<Success"), "{body}");
    let mails = smtp.wait_for(8, Duration::from_secs(20)).await;
    let known: BTreeSet<&str> =
        ["from", "to", "subject", "message-id", "date", "content-type", "content-transfer-encoding", "mime-version"]
            .into();
    for m in &mails[6..] {
        for (name, _) in m.headers() {
            assert!(known.contains(name.to_ascii_lowercase().as_str()), "header {name:?} in {}", m.data);
        }
        assert_eq!(m.to.len(), 1, "{:?}", m.to);
        assert!(!m.data.to_ascii_lowercase().contains("\r\nbcc:"), "{}", m.data);
        let body = m.body();
        assert!(body.contains("Lead guest: Ana Nowak  Bcc: evil@x.example    <script>alert(1)</script>\r\n"), "{body}");
    }

    // Without addresses, nothing is queued.
    set_alerts(&arg, &[]);
    let (_, list, _) = cli(&["requestor", "list", "--db", &arg], "");
    assert!(!list.contains("alerts to"), "{list}");
    let none = book(&urls, &store, "ALR-2", 46).await;
    assert_eq!(queued(&store, &none).await, 0);
    no_more_than(&smtp, 8).await;

    // The import file sets them too (`alert_emails`), each checked.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("requestors.json");
    let entry = |addresses: &str| {
        format!(
            r#"{{"requestors": [{{"id": "SUP-DEMO", "id_context": "SUP-DEMO-DIST", "name": "Demo supplier", "password": "sup-demo-pass", "alert_emails": [{addresses}]}}]}}"#
        )
    };
    std::fs::write(&file, entry(r#""night@hotel.example\r\nBcc: evil@x.example""#)).unwrap();
    let (code, out, err) = cli(&["import", "--db", &arg, file.to_str().unwrap()], "");
    assert_ne!(code, 0, "{out}{err}");
    assert!(err.contains("alert address"), "{err}");
    std::fs::write(&file, entry(r#""night@hotel.example""#)).unwrap();
    let (code, out, err) = cli(&["import", "--db", &arg, file.to_str().unwrap()], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, list, _) = cli(&["requestor", "list", "--db", &arg], "");
    assert!(
        list.lines().any(|l| l.starts_with("SUP-DEMO ") && l.contains("(alerts to night@hotel.example)")),
        "{list}"
    );
}

/// A relay that refuses every message: each alert is parked after `--outbox-max-attempts`
/// (WARN, `ota_alerts_total{outcome="parked"}`), and sent once after `outbox alerts --retry`.
async fn an_alert_is_parked_after_its_attempts_and_sent_on_retry(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let smtp = SmtpServer::start().await;
    smtp.refuse_next(1_000_000);
    let gw = gateway(&arg, &smtp.url(), &["--outbox-max-attempts", "2"]).await;
    let store = db.open().await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    set_alerts(&arg, &[A, B]);
    book(&urls, &store, "ALR-X1", 80).await;
    let started = Instant::now();
    loop {
        let alerts = alerts_json(&arg);
        if alerts.len() == 2 && alerts.iter().all(|a| a["state"] == "parked") {
            assert!(alerts.iter().all(|a| a["attempts"] == 2), "{alerts:?}");
            assert!(alerts.iter().all(|a| a["last_error"].as_str().unwrap().contains("451")), "{alerts:?}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{alerts:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let metrics = gw.metrics().await;
    assert_eq!(crate::support::metric(&metrics, r#"ota_alerts_total{outcome="parked"}"#), 2.0, "{metrics}");
    no_more_than(&smtp, 0).await;
    smtp.refuse_next(0);
    let (code, out, err) = cli(&["outbox", "alerts", "--retry", "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("2 parked alert(s)"), "{out}");
    let mails = smtp.wait_for(2, Duration::from_secs(20)).await;
    no_more_than(&smtp, 2).await;
    once_each(&mails);
}

/// A relay that refuses the first three messages (451) and then hangs up for a while: every
/// alert arrives after retries, once.
async fn a_failing_relay_gets_each_alert_after_retries(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let smtp = SmtpServer::start().await;
    smtp.refuse_next(3);
    let gw = gateway(&arg, &smtp.url(), &[]).await;
    let store = db.open().await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    set_alerts(&arg, &[A, B]);
    book(&urls, &store, "ALR-R1", 50).await;
    let mails = smtp.wait_for(2, Duration::from_secs(20)).await;
    once_each(&mails);
    let alerts = alerts_json(&arg);
    let attempts: i64 = alerts.iter().map(|a| a["attempts"].as_i64().unwrap()).sum();
    assert_eq!(attempts, 2 + 3, "three refused attempts, then one each: {alerts:?}");

    smtp.hang_up(true);
    let second = book(&urls, &store, "ALR-R2", 52).await;
    let started = Instant::now();
    loop {
        let alerts = alerts_json(&arg);
        let failing = alerts
            .iter()
            .filter(|a| a["booking_ref"] == second.as_str() && a["attempts"].as_i64().unwrap() >= 2)
            .filter(|a| a["last_error"].is_string())
            .count();
        if failing == 2 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{alerts:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    smtp.hang_up(false);
    let mails = smtp.wait_for(4, Duration::from_secs(20)).await;
    no_more_than(&smtp, 4).await;
    once_each(&mails);
    assert!(alerts_json(&arg).iter().all(|a| a["state"] == "sent"));
}

/// The relay is down while bookings are made and the gateway is SIGKILLed; a gateway started
/// again sends every alert once the relay is back: nothing is lost, nothing twice. A gateway
/// without `--smtp-url` queues none.
async fn nothing_is_lost_when_the_relay_is_down_and_the_gateway_killed(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let store = db.open().await;
    {
        let plain = GatewayProcess::start(&arg, FAST).await;
        set_alerts(&arg, &[A, B]);
        let urls = Mutex::new(vec![plain.url.clone()]);
        let r = book(&urls, &store, "ALR-K0", 60).await;
        assert_eq!(queued(&store, &r).await, 0, "no relay, no alert queued");
    }
    let smtp = SmtpServer::start().await;
    smtp.go_down();
    let mut gw = gateway(&arg, &smtp.url(), &[]).await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    let refs = [book(&urls, &store, "ALR-K1", 62).await, book(&urls, &store, "ALR-K2", 64).await];
    let body = post(&urls, 0, "/bookcancel", &cancel("ALR-K1")).await;
    assert!(body.contains("<Success"), "{body}");
    // Tried and failed at least once each.
    let started = Instant::now();
    while !alerts_json(&arg).iter().all(|a| a["last_error"].is_string()) || alerts_json(&arg).len() != 6 {
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", alerts_json(&arg));
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    gw.child.kill().unwrap();
    gw.child.wait().unwrap();
    smtp.come_up().await;
    let again = gateway(&arg, &smtp.url(), &[]).await;
    let mails = smtp.wait_for(6, Duration::from_secs(30)).await;
    no_more_than(&smtp, 6).await;
    let seen = once_each(&mails);
    for r in &refs {
        assert_eq!(seen.values().filter(|(_, s)| s.contains(r.as_str())).count(), if *r == refs[0] { 4 } else { 2 });
    }
    drop(again);
}

/// The console's partner page: a supplier's alert addresses shown to a viewer, set by an admin
/// in its form (checked and audited as the CLI's: an address with CR/LF is refused), its latest
/// alerts listed with their state, escaped.
async fn the_partner_page_shows_and_edits_alert_addresses(b: Backend) {
    use crate::support::console::ConsoleServer;
    use ota_gateway::operators::Role;
    let gw = ConsoleServer::start(b).await;
    let ann = gw.login_as("ann", Role::Admin).await;
    let vic = gw.login_as("vic", Role::Viewer).await;
    let page = ann.post("/partners/SUP-DEMO/alerts", &[("alert_emails", &format!("{A}\r\n{B}\r\n"))]).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(&format!("{A}, {B}")), "{}", page.body);
    let hostile =
        ann.post("/partners/SUP-DEMO/alerts", &[("alert_emails", "x@hotel.example\r\nBcc: <script>@x")]).await;
    assert_eq!(hostile.status, 422, "{}", hostile.body);
    assert!(!hostile.body.contains("<script>"), "{}", hostile.body);
    assert_eq!(vic.post("/partners/SUP-DEMO/alerts", &[("alert_emails", "")]).await.status, 403);
    // An alert of a booking whose reference would be markup (as stored: the table escapes it).
    gw.store()
        .write_now(|c| {
            Box::pin(async move {
                c.execute(
                    "INSERT INTO booking_alert (event_id, address, supplier_id, booking_kind, booking_ref, hotel_code, event_kind, created_at, next_attempt_at, state, attempts, last_error)
                     VALUES (1, 'frontdesk@hotel.example', 'SUP-DEMO', 'hotel', '<script>x</script>', 'HTL00042', 'new', 0, 0, 'parked', 10, '451 <b>later</b>')",
                    &[],
                )
                .await
            })
        })
        .await
        .unwrap();
    let shown = vic.get("/partners/SUP-DEMO").await;
    assert_eq!(shown.status, 200);
    assert!(shown.body.contains("Booking alerts to") && shown.body.contains(&format!("{A}, {B}")), "{}", shown.body);
    assert!(
        shown.body.contains("&lt;script&gt;x&lt;/script&gt;") && !shown.body.contains("<script>x"),
        "{}",
        shown.body
    );
    assert!(shown.body.contains("parked") && shown.body.contains("451 &lt;b&gt;later&lt;/b&gt;"), "{}", shown.body);
    assert!(!shown.body.contains("name=\"alert_emails\""), "a viewer has no form");
    let all = ota_gateway::audit::list(gw.store(), Default::default()).await.unwrap();
    assert!(all.iter().any(|e| e.actor == "ann" && e.action == "requestor.alert_emails"), "{all:?}");
}

/// Two gateways on one PostgreSQL: every alert is taken by one of them (a lease, `FOR UPDATE
/// SKIP LOCKED`) and arrives once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_gateways_send_each_alert_once() {
    let db = TestDb::new(Backend::Postgres).await;
    let arg = db.arg();
    let store = db.open().await;
    let smtp = SmtpServer::start().await;
    let one = gateway(&arg, &smtp.url(), &[]).await;
    set_alerts(&arg, &[A, B]);
    let two = gateway(&arg, &smtp.url(), &[]).await;
    let urls = Mutex::new(vec![one.url.clone(), two.url.clone()]);
    for i in 0..10 {
        let body = post(
            &urls,
            i,
            "/hotelbook",
            &hotel_commit(&format!("ALR-P{i}"), day(70 + i as i64), "HTL00042", "RMSD000000"),
        )
        .await;
        assert!(body.contains("<Success"), "{body}");
    }
    let mails = smtp.wait_for(20, Duration::from_secs(30)).await;
    no_more_than(&smtp, 20).await;
    assert_eq!(once_each(&mails).len(), 20);
    let alerts = alerts_json(&arg);
    assert!(alerts.iter().all(|a| a["state"] == "sent" && a["attempts"] == 1), "{alerts:?}");
    drop(store);
}

backend_tests!(
    each_change_is_mailed_once_to_each_address,
    a_failing_relay_gets_each_alert_after_retries,
    an_alert_is_parked_after_its_attempts_and_sent_on_retry,
    the_partner_page_shows_and_edits_alert_addresses,
    nothing_is_lost_when_the_relay_is_down_and_the_gateway_killed,
);
