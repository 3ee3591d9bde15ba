//! Bookings out to suppliers (issue 21, "Out"), on real gateway processes: every booking change
//! writes its event in its own transaction; every gateway pushes the events to the supplier's
//! receiver (here an axum server of the test that fails, hangs, loses answers and goes down),
//! at least once, in order per booking and hotel, through gateways SIGKILLed mid-delivery;
//! parked events and `outbox retry`; the pull (`OTA_ReadRQ`, `OTA_NotifReportRQ`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use ota_gateway::Store;
use ota_messages::common::IdContext;
use ota_messages::hotel_res_notif::OtaHotelResNotifRq;
use ota_messages::runtime::Message;

use crate::support::{self, Backend, GatewayProcess, TestDb, backend_tests, cli, day};

const XML: &str = "application/xml";
pub(crate) const SUPPLIER: &str = "SUP-DEMO";

/// The gateways' outbox settings in these tests: quick retries, a short receiver time-out.
pub(crate) const FAST: &[&str] = &[
    "--outbox-retry-base",
    "50ms",
    "--outbox-retry-max",
    "1s",
    "--outbox-timeout",
    "500ms",
    "--outbox-poll-interval",
    "50ms",
];

// ---------------------------------------------------------------------------------------------
// The supplier's receiver

/// How the receiver misbehaves.
#[derive(Debug, Clone, Copy, Default)]
struct Faults {
    /// Per cent of calls answered 500 (nothing kept).
    fail: u64,
    /// Per cent of calls kept, then answered too late (the gateway times out: its repeat must
    /// be dropped).
    lose_answer: u64,
}

/// What the receiver got: each event (by its identity, `MessageID`) once, as (identity,
/// booking's Internal reference, `SequenceNmbr`), in the order first kept; how many repeats it
/// dropped.
#[derive(Default)]
struct Received {
    /// Events in the order first kept.
    order: Vec<(String, String, u64)>,
    /// The notifications first kept, as received.
    bodies: Vec<String>,
    seen: HashSet<String>,
    repeats: u64,
}

struct Receiver {
    addr: SocketAddr,
    received: Arc<Mutex<Received>>,
    calls: Arc<AtomicU64>,
    /// While set, every call hangs (the gateway times out) and new connections are refused.
    down: Arc<AtomicBool>,
    faults: Arc<Mutex<Faults>>,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    app: axum::Router,
}

/// A cheap pseudo-random per cent (0..100) from a counter.
fn roll(n: u64) -> u64 {
    let mut x = n.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    x ^= x >> 31;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 29;
    x % 100
}

/// The event of a notification: (identity, booking's Internal reference, `SequenceNmbr`).
pub(crate) fn event_of(body: &str) -> Option<(String, String, u64)> {
    let rq = OtaHotelResNotifRq::from_xml(body).ok()?;
    let hr = &rq.hotel_reservations.hotel_reservation;
    let internal = hr.unique_id.iter().find(|u| u.id_context == Some(IdContext::Internal))?.id.clone();
    Some((rq.message_id.id, internal, rq.sequence_nmbr?))
}

pub(crate) fn ack(identity: &str) -> String {
    format!(
        r#"<OTA_HotelResNotifRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="2016.1" EchoToken="{identity}"><Success/></OTA_HotelResNotifRS>"#
    )
}

impl Receiver {
    async fn start(faults: Faults) -> Arc<Receiver> {
        let received: Arc<Mutex<Received>> = Arc::default();
        let calls: Arc<AtomicU64> = Arc::default();
        let down: Arc<AtomicBool> = Arc::default();
        let faults = Arc::new(Mutex::new(faults));
        let (r, n, d, f) = (received.clone(), calls.clone(), down.clone(), faults.clone());
        let app = axum::Router::new().route(
            "/notify",
            axum::routing::post(move |body: String| {
                let (received, calls, down, faults) = (r.clone(), n.clone(), d.clone(), f.clone());
                async move {
                    let call = calls.fetch_add(1, Ordering::SeqCst);
                    if down.load(Ordering::SeqCst) {
                        tokio::time::sleep(Duration::from_secs(30)).await;
                        return (axum::http::StatusCode::SERVICE_UNAVAILABLE, String::new());
                    }
                    let Faults { fail, lose_answer } = *faults.lock().unwrap();
                    let dice = roll(call);
                    if dice < fail {
                        return (axum::http::StatusCode::INTERNAL_SERVER_ERROR, "try later".to_string());
                    }
                    let Some(event) = event_of(&body) else {
                        return (axum::http::StatusCode::BAD_REQUEST, format!("not a notification: {body}"));
                    };
                    let id = event.0.clone();
                    {
                        let mut got = received.lock().unwrap();
                        if got.seen.insert(id.clone()) {
                            got.order.push(event);
                            got.bodies.push(body.clone());
                        } else {
                            got.repeats += 1;
                        }
                    }
                    if dice < fail + lose_answer {
                        tokio::time::sleep(Duration::from_secs(2)).await;
                    }
                    (axum::http::StatusCode::OK, ack(&id))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let task = tokio::spawn({
            let app = app.clone();
            async move {
                let _ = axum::serve(listener, app).await;
            }
        });
        Arc::new(Receiver { addr, received, calls, down, faults, task: Mutex::new(Some(task)), app })
    }

    fn url(&self) -> String {
        format!("http://{}/notify", self.addr)
    }

    /// Goes down: no new connection is taken, every call hangs.
    fn go_down(&self) {
        self.down.store(true, Ordering::SeqCst);
        if let Some(t) = self.task.lock().unwrap().take() {
            t.abort();
        }
    }

    /// Comes back on the same address.
    async fn come_up(&self) {
        let listener = loop {
            match tokio::net::TcpListener::bind(self.addr).await {
                Ok(l) => break l,
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        let app = self.app.clone();
        *self.task.lock().unwrap() = Some(tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        }));
        self.down.store(false, Ordering::SeqCst);
    }
}

// ---------------------------------------------------------------------------------------------
// Bookings

pub(crate) fn pos(id: &str, ctx: &str, pw: &str) -> String {
    format!(
        r#"<POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS>"#
    )
}

/// A hotel Commit of one guest in a standard double room of HTL00042 for one night.
pub(crate) fn hotel_commit(client_ref: &str, start: NaiveDate, hotel: &str, room: &str) -> String {
    let end = start + chrono::Duration::days(1);
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    format!(
        r#"<OTA_HotelResRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" ResStatus="Commit">{pos}<HotelReservations><HotelReservation><RoomStays><RoomStay><RoomTypes><RoomType RoomTypeCode="{room}"/></RoomTypes><RoomRates><RoomRate><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{hotel}"/><ResGuestRPHs><ResGuestRPH RPH="1"/></ResGuestRPHs></RoomStay></RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client_ref}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#
    )
}

/// An activity Commit with a pickup at HTL00042 (the Drach caves with transfer).
pub(crate) fn activity_commit(client_ref: &str, date: NaiveDate) -> String {
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit">{pos}<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TRF"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><Surname>P1</Surname></Individual></ParticipantInfo><Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/><PickupDropoff LocationName="HTL00042" PickupInd="true"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#
    )
}

pub(crate) fn cancel(client_ref: &str) -> String {
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    format!(
        r#"<OTA_CancelRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" CancelType="Commit">{pos}<UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></OTA_CancelRQ>"#
    )
}

/// Posts `body` to one of `urls` (the next on a transport failure: that gateway was killed):
/// the answer. A repeated Commit or cancel answers the first outcome, so repeating is safe.
pub(crate) async fn post(urls: &Mutex<Vec<String>>, first: usize, path: &str, body: &str) -> String {
    let http = reqwest::Client::new();
    for attempt in 0..200 {
        let url = {
            let urls = urls.lock().unwrap();
            urls[(first + attempt) % urls.len()].clone()
        };
        match http
            .post(format!("{url}{path}"))
            .header("Content-Type", XML)
            .body(body.to_string())
            .timeout(Duration::from_secs(10))
            .send()
            .await
        {
            Ok(res) if res.status().is_success() => return res.text().await.unwrap(),
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    panic!("no gateway answered {path}");
}

// ---------------------------------------------------------------------------------------------
// What the database says

ota_gateway::store::row! {
    struct BookingRow { kind: String, internal: String, status: String }
}

ota_gateway::store::row! {
    struct EventRow { id: i64, booking_kind: String, booking_ref: String, hotel_code: String, seq: i64, event_kind: String, state: String, created_at: i64, delivered_at: Option<i64> }
}

/// The test's bookings (client references starting `OBX`): (kind, Internal reference, status).
async fn bookings(store: &Store) -> Vec<BookingRow> {
    store
        .read(|c| {
            Box::pin(async move {
                c.query(
                    "SELECT 'hotel', internal_ref, status FROM hotel_booking WHERE client_ref LIKE 'OBX%'
                     UNION ALL SELECT 'activity', reference, status FROM activity_booking WHERE client_reference LIKE 'OBX%'",
                    &[],
                )
                .await
            })
        })
        .await
        .unwrap()
}

async fn events(store: &Store) -> Vec<EventRow> {
    store
        .read(|c| Box::pin(async move { c.query("SELECT id, booking_kind, booking_ref, hotel_code, seq, event_kind, state, created_at, delivered_at FROM outbox_event ORDER BY id", &[]).await }))
        .await
        .unwrap()
}

/// The events each stored booking must have: (kind, Internal reference, seq) — `new` (1) for
/// each, and `cancelled` (2) after it for a cancelled one.
fn expected(bookings: &[BookingRow]) -> BTreeSet<(String, String, i64)> {
    let mut out = BTreeSet::new();
    for b in bookings {
        out.insert((b.kind.clone(), b.internal.clone(), 1));
        if b.status == "Cancelled" {
            out.insert((b.kind.clone(), b.internal.clone(), 2));
        }
    }
    out
}

/// The p50 and p99 of the delivery latency (event written → acknowledged), in ms.
fn latency(events: &[EventRow]) -> (i64, i64, usize) {
    let mut l: Vec<i64> = events.iter().filter_map(|e| Some(e.delivered_at? - e.created_at)).collect();
    l.sort_unstable();
    if l.is_empty() {
        return (0, 0, 0);
    }
    let at = |q: f64| l[((l.len() as f64 * q).ceil() as usize).clamp(1, l.len()) - 1];
    (at(0.50), at(0.99), l.len())
}

/// xmllint's verdict on a notification under the official 2016B schema of `OTA_HotelResNotifRQ`.
fn official_verdict(xml: &str) -> Result<(), String> {
    use std::io::Write;
    let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/opentravel-2016b/OTA_HotelResNotifRQ.xsd");
    let mut child = std::process::Command::new("xmllint")
        .args(["--noout", "--schema", schema, "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("xmllint (apt-get install libxml2-utils)");
    child.stdin.take().unwrap().write_all(xml.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) }
}

pub(crate) fn set_url(db: &str, url: &str) {
    let (code, out, err) = cli(&["requestor", "set", SUPPLIER, "--notify-url", url, "--db", db], "");
    assert_eq!(code, 0, "{out}{err}");
    let (_, out, _) = cli(&["requestor", "list", "--db", db], "");
    assert!(out.lines().any(|l| l.starts_with("SUP-DEMO ") && l.ends_with(&format!("(notified at {url})"))), "{out}");
}

// ---------------------------------------------------------------------------------------------
// The tests

/// Bookings, cancels and refused Commits over several gateways (3 on PostgreSQL) while the
/// receiver is down for 10 s, then fails 30 % of calls and loses 10 % of its answers, and
/// gateways are SIGKILLed mid-delivery and started again: every stored booking's events reach
/// the receiver (exactly once after it drops repeats by identity), in order per booking, and
/// none for anything not stored.
async fn every_event_arrives_in_order_through_failures_and_kills(b: Backend) {
    run_scenario(b, Faults { fail: 30, lose_answer: 10 }, true).await;
}

/// The same bookings, one after another, with a healthy receiver and no kills: the latency of a
/// healthy delivery.
async fn a_healthy_receiver_gets_every_event_quickly(b: Backend) {
    run_scenario(b, Faults::default(), false).await;
}

/// The same bookings, one after another, with a receiver failing 30 % of calls (always up, no
/// kills): the latency that retries add.
async fn a_receiver_failing_30_percent_gets_every_event(b: Backend) {
    run_scenario(b, Faults { fail: 30, lose_answer: 0 }, false).await;
}

/// `trouble`: the receiver is down for the first 10 s and gateways are killed; else the
/// bookings come one after another.
async fn run_scenario(b: Backend, faults: Faults, trouble: bool) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let instances = if b == Backend::Sqlite { 2 } else { 3 };
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--outbox-max-attempts", "1000"]);
    let mut gateways = Vec::new();
    for _ in 0..instances {
        gateways.push(GatewayProcess::start(&arg, &args).await);
    }
    let receiver = Receiver::start(faults).await;
    set_url(&arg, &receiver.url());
    let urls = Arc::new(Mutex::new(gateways.iter().map(|g| g.url.clone()).collect::<Vec<_>>()));
    let started = Instant::now();
    if trouble {
        receiver.go_down();
    }

    // The partner books: hotel Commits (a third cancelled), activity Commits with a pickup at
    // the supplier's hotel (one in three cancelled), and Commits refused (no room left).
    let (hotels, activities) = (36usize, 6usize);
    let mut tasks = Vec::new();
    for i in 0..hotels {
        let urls = urls.clone();
        tasks.push(tokio::spawn(async move {
            if !trouble {
                // A healthy receiver's latency: bookings one after another, not a burst.
                tokio::time::sleep(Duration::from_millis(40 * i as u64)).await;
            }
            let client_ref = format!("OBX-H{i}");
            let body =
                post(&urls, i, "/hotelbook", &hotel_commit(&client_ref, day(40 + i as i64), "HTL00042", "RMSD000000"))
                    .await;
            assert!(body.contains("<Success"), "{body}");
            if i % 3 == 0 {
                let body = post(&urls, i + 1, "/bookcancel", &cancel(&client_ref)).await;
                assert!(body.contains("<Success"), "{body}");
            }
        }));
    }
    for i in 0..activities {
        let urls = urls.clone();
        tasks.push(tokio::spawn(async move {
            let client_ref = format!("OBX-A{i}");
            let body = post(&urls, i, "/activitybook", &activity_commit(&client_ref, day(20 + i as i64))).await;
            assert!(body.contains("<Success"), "{body}");
            if i % 3 == 0 {
                let body = post(&urls, i + 1, "/bookcancel", &cancel(&client_ref)).await;
                assert!(body.contains("<Success"), "{body}");
            }
        }));
    }
    // The junior suite of HTL00042 has 2 rooms: of 4 Commits for one night, 2 are refused.
    for i in 0..4 {
        let urls = urls.clone();
        tasks.push(tokio::spawn(async move {
            post(&urls, i, "/hotelbook", &hotel_commit(&format!("OBX-J{i}"), day(200), "HTL00042", "RMJS000000")).await;
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let booked_in = started.elapsed();

    // Gateways are killed (SIGKILL) mid-delivery and started again, one after another.
    if trouble {
        let mut kills = 0;
        while started.elapsed() < Duration::from_secs(16) {
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let k = kills % gateways.len();
            gateways.remove(k); // dropped: SIGKILL
            gateways.insert(k, GatewayProcess::start(&arg, &args).await);
            urls.lock().unwrap()[k] = gateways[k].url.clone();
            kills += 1;
            if receiver.down.load(Ordering::SeqCst) && started.elapsed() >= Duration::from_secs(10) {
                receiver.come_up().await;
            }
        }
        if receiver.down.load(Ordering::SeqCst) {
            receiver.come_up().await;
        }
        eprintln!("{b:?}: {kills} gateways killed mid-delivery");
    }

    let store = db.open().await;
    let stored = bookings(&store).await;
    let want = expected(&stored);
    let pushed: BTreeSet<(String, i64)> =
        want.iter().filter(|(kind, _, _)| kind == "hotel").map(|(_, r, seq)| (r.clone(), *seq)).collect();
    assert_eq!(stored.len(), hotels + activities + 2, "the bookings and 2 of the junior-suite Commits are stored");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = receiver.received.lock().unwrap().seen.len();
        let open = events(&store).await.iter().filter(|e| e.booking_kind == "hotel" && e.state != "delivered").count();
        if got >= pushed.len() && open == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "after 60 s: {got} of {} events received, {open} not delivered",
            pushed.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let all = events(&store).await;
    // One event per stored change, none for what was refused; an activity booking's wait for
    // the pull.
    let recorded: BTreeSet<(String, String, i64)> =
        all.iter().map(|e| (e.booking_kind.clone(), e.booking_ref.clone(), e.seq)).collect();
    assert_eq!(recorded, want);
    assert_eq!(all.len(), want.len());
    assert!(all.iter().all(|e| e.hotel_code == "HTL00042"));
    assert!(all.iter().all(|e| e.state == if e.booking_kind == "hotel" { "delivered" } else { "pending" }));
    let received = receiver.received.lock().unwrap();
    let got: BTreeSet<(String, i64)> = received.order.iter().map(|(_, r, seq)| (r.clone(), *seq as i64)).collect();
    assert_eq!(got, pushed, "exactly the hotel events of the stored bookings");
    assert_eq!(received.order.len(), pushed.len(), "each event once after repeats are dropped by identity");
    for (id, r, seq) in &received.order {
        let e = all.iter().find(|e| e.id.to_string() == *id).unwrap_or_else(|| panic!("no event {id}"));
        assert_eq!((&e.booking_ref, e.seq), (r, *seq as i64), "the identity names its event");
    }
    // In order per booking: seq 1, 2, … as first kept.
    let mut per: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (_, r, seq) in &received.order {
        per.entry(r.clone()).or_default().push(*seq);
    }
    for (key, seqs) in &per {
        assert_eq!(*seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "{key}: out of order");
    }
    let all: Vec<EventRow> = all.into_iter().filter(|e| e.booking_kind == "hotel").collect();
    // Every notification is valid under OpenTravel 2016B's OTA_HotelResNotifRQ.
    if !trouble {
        for body in received
            .bodies
            .iter()
            .filter(|b| b.contains(r#"ResStatus="Commit""#))
            .take(1)
            .chain(received.bodies.iter().filter(|b| b.contains(r#"ResStatus="Cancel""#)).take(1))
        {
            official_verdict(body).unwrap_or_else(|e| panic!("not valid under OpenTravel 2016B:\n{e}\n{body}"));
        }
    }
    let (p50, p99, n) = latency(&all);
    eprintln!(
        "{b:?} outbox ({}): {} events of {} bookings on {instances} gateways (booked in {booked_in:?}); receiver: {} calls, {} repeats dropped; delivery latency p50 {p50} ms, p99 {p99} ms (n = {n}); all delivered {:?} after the first booking",
        match (trouble, faults.fail) {
            (true, _) => "receiver down 10 s, then 30 % failed and 10 % answers lost; gateways SIGKILLed".to_string(),
            (false, 0) => "healthy receiver".to_string(),
            (false, n) => format!("receiver failing {n} % of calls"),
        },
        all.len(),
        stored.len(),
        receiver.calls.load(Ordering::SeqCst),
        received.repeats,
        started.elapsed(),
    );
}

/// An event that fails `--outbox-max-attempts` times is parked (WARN, metrics, `outbox list
/// --state parked`) and holds back its booking's later events; `outbox retry` sends them,
/// in order.
async fn a_parked_event_waits_for_outbox_retry(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("gateway.log");
    let mut args: Vec<&str> = FAST.to_vec();
    args.extend(["--outbox-max-attempts", "3"]);
    let gw = GatewayProcess::start_with(&arg, &args, &[], Some(&log)).await;
    let receiver = Receiver::start(Faults { fail: 100, lose_answer: 0 }).await;
    set_url(&arg, &receiver.url());
    let urls = Mutex::new(vec![gw.url.clone()]);
    let body = post(&urls, 0, "/hotelbook", &hotel_commit("OBX-P1", day(50), "HTL00042", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    let body = post(&urls, 0, "/bookcancel", &cancel("OBX-P1")).await;
    assert!(body.contains("<Success"), "{body}");

    let store = db.open().await;
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let all = events(&store).await;
        if all.iter().any(|e| e.state == "parked") {
            assert_eq!(all.len(), 2);
            assert_eq!((all[0].seq, all[0].state.as_str()), (1, "parked"));
            assert_eq!((all[1].seq, all[1].state.as_str()), (2, "pending"), "the cancel waits for the parked booking");
            break;
        }
        assert!(Instant::now() < deadline, "nothing parked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(events(&store).await[1].state, "pending", "a parked event holds back its booking's later ones");
    assert_eq!(receiver.calls.load(Ordering::SeqCst), 3, "3 attempts, then parked");
    let metrics = gw.metrics().await;
    assert_eq!(support::metric(&metrics, r#"ota_outbox_events_total{outcome="parked"}"#), 1.0, "{metrics}");
    assert_eq!(support::metric(&metrics, r#"ota_outbox_events_total{outcome="failed"}"#), 2.0, "{metrics}");
    assert!(metrics.contains("ota_outbox_parked ") && metrics.contains("ota_outbox_pending "), "{metrics}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("WARN") && logged.contains("outbox event parked"), "{logged}");
    assert!(!logged.contains("could not"), "{logged}");

    let (code, out, err) = cli(&["outbox", "list", "--state", "parked", "--db", &arg], "");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[1].contains("parked") && lines[1].contains(SUPPLIER) && lines[1].contains("HTTP 500"), "{out}");
    let id = lines[1].split_whitespace().next().unwrap().to_string();
    let (_, out, _) = cli(&["outbox", "list", "--supplier", "NOBODY", "--db", &arg], "");
    assert_eq!(out.lines().count(), 1, "only the header: {out}");
    let (_, out, _) = cli(&["outbox", "list", "--supplier", SUPPLIER, "--db", &arg], "");
    assert_eq!(out.lines().count(), 3, "both events: {out}");
    let (code, _, err) = cli(&["outbox", "retry", "999999", "--db", &arg], "");
    assert_eq!(code, 1, "{err}");
    let (code, _, err) =
        cli(&["requestor", "set", SUPPLIER, "--notify-url", "ftp://pms.example.com/ota", "--db", &arg], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("http:// or https://"), "{err}");

    // The receiver works again; the operator retries.
    *receiver.faults.lock().unwrap() = Faults::default();
    let (code, out, err) = cli(&["outbox", "retry", &id, "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 parked event(s)"), "{out}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while events(&store).await.iter().any(|e| e.state != "delivered") {
        assert!(Instant::now() < deadline, "not delivered after the retry");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let order = receiver.received.lock().unwrap().order.clone();
    assert_eq!(order.iter().map(|(_, _, seq)| *seq).collect::<Vec<_>>(), vec![1, 2], "{order:?}");
    let (code, out, _) = cli(&["outbox", "retry", "--all-parked", "--db", &arg], "");
    assert_eq!(code, 0);
    assert!(out.contains("0 parked event(s)"), "{out}");

    // A receiver's URL may carry a password: never shown, logged or stored with an error.
    let secret_url = "http://gw:s3cret-pw@127.0.0.1:1/notify";
    let (code, out, err) = cli(&["requestor", "set", SUPPLIER, "--notify-url", secret_url, "--db", &arg], "");
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("http://gw:***@127.0.0.1:1/notify") && !out.contains("s3cret"), "{out}");
    let (_, out, _) = cli(&["requestor", "list", "--db", &arg], "");
    assert!(out.contains("(notified at http://gw:***@127.0.0.1:1/notify)") && !out.contains("s3cret"), "{out}");
    let body = post(&urls, 0, "/hotelbook", &hotel_commit("OBX-P2", day(51), "HTL00042", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, out, _) = cli(&["outbox", "list", "--state", "parked", "--db", &arg], "");
        if out.lines().count() > 1 {
            assert!(!out.contains("s3cret") && out.contains("refused"), "{out}");
            break;
        }
        assert!(Instant::now() < deadline, "not parked: {out}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(!logged.contains("s3cret"), "{logged}");
}

/// A supplier's read (`OTA_ReadRQ` with a `HotelReadRequest`): its bookings with
/// unacknowledged events, as they stand, for its hotel only.
pub(crate) fn supplier_read() -> String {
    let pos = pos(SUPPLIER, "SUP-DEMO-DIST", "sup-demo-pass");
    format!(
        r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1">{pos}<ReadRequests><HotelReadRequest/></ReadRequests></OTA_ReadRQ>"#
    )
}

/// The supplier acknowledges bookings: (Internal reference, LastModifyDateTime as read).
pub(crate) fn notif_report(taken: &[(String, String)]) -> String {
    let pos = pos(SUPPLIER, "SUP-DEMO-DIST", "sup-demo-pass");
    let bookings: String = taken
        .iter()
        .map(|(r, v)| format!(r#"<HotelReservation LastModifyDateTime="{v}"><UniqueID Type="14" ID="{r}" ID_Context="Internal"/></HotelReservation>"#))
        .collect();
    format!(
        r#"<OTA_NotifReportRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2016.1"><Success/><TPA_Extensions>{pos}</TPA_Extensions><NotifDetails><HotelNotifReport><HotelReservations>{bookings}</HotelReservations></HotelNotifReport></NotifDetails></OTA_NotifReportRQ>"#
    )
}

/// What a supplier's read gives: (Internal reference, status, LastModifyDateTime, hotels of
/// its room stays).
pub(crate) async fn pull(urls: &Mutex<Vec<String>>) -> Vec<(String, String, String, Vec<String>)> {
    let body = post(urls, 0, "/bookread", &supplier_read()).await;
    let rs = ota_messages::booking_read::OtaResRetrieveRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert!(rs.success.is_some(), "{body}");
    rs.reservations_list
        .map(|l| l.hotel_reservation)
        .unwrap_or_default()
        .into_iter()
        .map(|hr| {
            let internal = hr
                .unique_id
                .iter()
                .find(|u| u.id_context == IdContext::Internal)
                .map(|u| u.id.clone())
                .unwrap_or_default();
            let hotels = hr
                .room_stays
                .iter()
                .flat_map(|r| r.room_stay.iter())
                .filter_map(|r| r.basic_property_info.as_ref()?.hotel_code.clone())
                .collect();
            let version =
                hr.last_modify_date_time.map(|v| v.local.format("%Y-%m-%dT%H:%M:%S").to_string()).unwrap_or_default();
            (internal, hr.res_status.as_str().to_string(), version, hotels)
        })
        .collect()
}

/// Pull: a supplier without a URL reads its bookings with unacknowledged events (hotel and
/// activity bookings, each hotel's rooms to its own supplier), acknowledges them with
/// `OTA_NotifReportRQ`, and reads nothing new until a booking changes again.
async fn a_supplier_pulls_and_acknowledges(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let gw = GatewayProcess::start(&arg, FAST).await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    for (client_ref, hotel) in [("OBX-Q1", "HTL00042"), ("OBX-Q2", "HTL00077")] {
        let body = post(&urls, 0, "/hotelbook", &hotel_commit(client_ref, day(70), hotel, "RMSD000000")).await;
        assert!(body.contains("<Success"), "{body}");
    }
    let body = post(&urls, 0, "/activitybook", &activity_commit("OBX-QA", day(30))).await;
    assert!(body.contains("<Success"), "{body}");
    let body = post(&urls, 0, "/bookcancel", &cancel("OBX-Q1")).await;
    assert!(body.contains("<Success"), "{body}");
    // A Quote stores nothing: no event.
    let body = post(
        &urls,
        0,
        "/hotelbook",
        &hotel_commit("OBX-QQ", day(71), "HTL00042", "RMSD000000")
            .replace(r#"ResStatus="Commit""#, r#"ResStatus="Quote""#),
    )
    .await;
    assert!(body.contains("<Success"), "{body}");
    let store = db.open().await;
    assert_eq!(events(&store).await.len(), 4, "new ×3, cancelled ×1: nothing for the Quote");

    let read = pull(&urls).await;
    assert_eq!(read.len(), 3, "{read:?}");
    assert_eq!(read[0].1, "Cancelled", "{read:?}");
    assert_eq!(read[0].3, vec!["HTL00042".to_string()]);
    assert_eq!(read[1].3, vec!["HTL00077".to_string()]);
    assert!(read[2].3.is_empty(), "an activity booking has no room stays: {read:?}");
    // A distribution partner's read is the booking read, as before.
    let partner = post(&urls, 0, "/bookread", &format!(r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1">{}<UniqueID Type="36" ID="OBX-Q2" ID_Context="Client"/></OTA_ReadRQ>"#, pos("DEMO", "DEMO-DIST", "demo-password"))).await;
    assert!(partner.contains("<Success") && partner.contains(&read[1].0), "{partner}");

    // Acknowledge the two hotel bookings, and one the supplier was never given.
    let mut taken: Vec<(String, String)> = read[..2].iter().map(|(r, _, v, _)| (r.clone(), v.clone())).collect();
    taken.push(("HTL-NOSUCHTHING".into(), read[0].2.clone()));
    let body = post(&urls, 0, "/notifreport", &notif_report(&taken)).await;
    let rs = ota_messages::notif_report::OtaNotifReportRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
    assert!(rs.success.is_some(), "{body}");
    assert!(body.contains("HTL-NOSUCHTHING") && body.contains("Warning"), "{body}");
    let again = pull(&urls).await;
    assert_eq!(
        again.iter().map(|r| r.0.clone()).collect::<Vec<_>>(),
        vec![read[2].0.clone()],
        "only the activity booking is left"
    );
    let body = post(&urls, 0, "/notifreport", &notif_report(&[(read[2].0.clone(), read[2].2.clone())])).await;
    assert!(body.contains("<Success") && !body.contains("Warning"), "{body}");
    assert!(pull(&urls).await.is_empty(), "nothing new");
    // A repeat of an acknowledgement changes nothing.
    let body = post(&urls, 0, "/notifreport", &notif_report(&taken[..2])).await;
    assert!(body.contains("<Success"), "{body}");

    // The partner modifies a booking (a comment added, from its read): the supplier reads it
    // again, as it now stands.
    let read_q2 = ota_messages::booking_read::OtaReadRq::from_xml(&format!(
        r#"<OTA_ReadRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1">{}<UniqueID Type="36" ID="OBX-Q2" ID_Context="Client"/></OTA_ReadRQ>"#,
        pos("DEMO", "DEMO-DIST", "demo-password")
    ))
    .unwrap();
    let client = gw.client();
    let as_read: ota_messages::booking_read::OtaResRetrieveRs = client.send(&read_q2).await.unwrap();
    let payload = crate::support::with_a_remark(&as_read.reservations_list.as_ref().unwrap().hotel_reservation[0]);
    let modify = ota_messages::hotel_res_modify::OtaHotelResModifyRq {
        version: "2008.1".into(),
        res_status: Some(ota_messages::common::ResStatus::Commit),
        pos: read_q2.pos.clone(),
        hotel_res_modifies: ota_messages::hotel_res_modify::HotelResModifies { hotel_res_modify: payload },
        ..Default::default()
    };
    let modified = client.send(&modify).await.unwrap();
    assert!(ota_messages::runtime::Response::is_success(&modified), "{modified:?}");
    let read = pull(&urls).await;
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!((read[0].0.as_str(), read[0].1.as_str()), (taken[1].0.as_str(), "Reserved"));
    let body = post(&urls, 0, "/notifreport", &notif_report(&[(read[0].0.clone(), read[0].2.clone())])).await;
    assert!(body.contains("<Success") && !body.contains("Warning"), "{body}");
    assert!(pull(&urls).await.is_empty());

    // The booking changes again: it is read again, as it now stands.
    let body = post(&urls, 0, "/bookcancel", &cancel("OBX-Q2")).await;
    assert!(body.contains("<Success"), "{body}");
    let read = pull(&urls).await;
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!((read[0].0.as_str(), read[0].1.as_str()), (taken[1].0.as_str(), "Cancelled"));
    // A MessageID past the booking's events acknowledges nothing (the cancellation was never
    // read), and says so.
    let past = notif_report(&taken[1..2]).replace(
        r#"ID_Context="Internal"/></HotelReservation>"#,
        r#"ID_Context="Internal"/><UniqueID Type="16" ID="999999999"/></HotelReservation>"#,
    );
    let body = post(&urls, 0, "/notifreport", &past).await;
    assert!(body.contains("<Success") && body.contains("MessageID 999999999 is not an event"), "{body}");
    assert_eq!(pull(&urls).await.len(), 1, "the cancellation is still to be read");
    // An acknowledgement of the older version leaves the newer event unacknowledged.
    let body = post(&urls, 0, "/notifreport", &notif_report(&taken[1..2])).await;
    assert!(body.contains("<Success"), "{body}");
    assert_eq!(pull(&urls).await.len(), 1);
    let body = post(&urls, 0, "/notifreport", &notif_report(&[(read[0].0.clone(), read[0].2.clone())])).await;
    assert!(body.contains("<Success"), "{body}");
    assert!(pull(&urls).await.is_empty());
    let all = events(&store).await;
    assert!(all.iter().all(|e| e.state == "delivered"));
    let q2: Vec<(i64, String)> =
        all.iter().filter(|e| e.booking_ref == taken[1].0).map(|e| (e.seq, e.event_kind.clone())).collect();
    assert_eq!(q2, vec![(1, "new".to_string()), (2, "modified".to_string()), (3, "cancelled".to_string())]);

    // A distribution partner may not acknowledge (a supply operation).
    let body = post(
        &urls,
        0,
        "/notifreport",
        &notif_report(&taken[..1])
            .replace(&pos(SUPPLIER, "SUP-DEMO-DIST", "sup-demo-pass"), &pos("DEMO", "DEMO-DIST", "demo-password")),
    )
    .await;
    assert!(body.contains(r#"Type="6""#), "{body}");

    // Past the retention the delivered events go, but the last of each booking and hotel: the
    // booking's next event is numbered after it, and read as ever.
    let deleted =
        ota_gateway::outbox::admin::purge(&store, chrono::Utc::now() + chrono::Duration::minutes(1)).await.unwrap();
    assert_eq!(deleted, 3, "Q1's new, Q2's new and modified");
    let left: Vec<(String, i64, String)> =
        events(&store).await.into_iter().map(|e| (e.booking_kind, e.seq, e.event_kind)).collect();
    assert_eq!(left.len(), 3, "{left:?}");
    assert!(left.contains(&("activity".into(), 1, "new".into())), "{left:?}");
    let body = post(&urls, 0, "/bookcancel", &cancel("OBX-QA")).await;
    assert!(body.contains("<Success"), "{body}");
    let activity: Vec<(i64, String)> = events(&store)
        .await
        .into_iter()
        .filter(|e| e.booking_kind == "activity")
        .map(|e| (e.seq, e.event_kind))
        .collect();
    assert_eq!(activity, vec![(1, "new".to_string()), (2, "cancelled".to_string())]);
    let read = pull(&urls).await;
    assert_eq!(read.len(), 1, "{read:?}");
    assert_eq!(read[0].1, "Cancelled", "{read:?}");
    assert_eq!(
        ota_gateway::outbox::admin::purge(&store, chrono::Utc::now() + chrono::Duration::minutes(1)).await.unwrap(),
        1,
        "the activity's new event, now followed by its cancel"
    );
    let left: Vec<(String, i64)> = events(&store).await.into_iter().map(|e| (e.booking_kind, e.seq)).collect();
    assert!(left.contains(&("activity".into(), 2)) && left.len() == 3, "{left:?}");
}

/// A gateway stopped with SIGTERM while delivering gives the events it holds back: another
/// takes them at once, not after their lease (here 11 s).
async fn a_stopped_gateway_gives_its_events_back(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let slow = ["--outbox-timeout", "5s", "--outbox-poll-interval", "50ms", "--outbox-retry-base", "50ms"];
    let mut gw = GatewayProcess::start(&arg, &slow).await;
    let receiver = Receiver::start(Faults::default()).await;
    receiver.down.store(true, Ordering::SeqCst); // every call hangs: the event stays held
    set_url(&arg, &receiver.url());
    let urls = Mutex::new(vec![gw.url.clone()]);
    let body = post(&urls, 0, "/hotelbook", &hotel_commit("OBX-S1", day(52), "HTL00042", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    let store = db.open().await;
    let held = |store: Store| async move {
        let rows: Vec<ota_gateway::store::Scalar<Option<i64>>> = store
            .read(|c| Box::pin(async move { c.query("SELECT taken_until FROM outbox_event", &[]).await }))
            .await
            .unwrap();
        rows.first().and_then(|r| r.0)
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while held(store.clone()).await.is_none() {
        assert!(Instant::now() < deadline, "the event was never taken");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let status = std::process::Command::new("kill").args(["-TERM", &gw.pid().to_string()]).status().unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(30);
    while gw.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the gateway did not stop");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(held(store.clone()).await, None, "the event was given back");
    receiver.down.store(false, Ordering::SeqCst);
    let started = Instant::now();
    let _again = GatewayProcess::start(&arg, &slow).await;
    while events(&store).await.iter().any(|e| e.state != "delivered") {
        assert!(started.elapsed() < Duration::from_secs(8), "not delivered before the lease would have ended");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let order = receiver.received.lock().unwrap().order.clone();
    assert_eq!(order.len(), 1, "{order:?}");
}

/// Serves `app` over TLS (HTTP/1.1) with a certificate (and its key, PEM) on a new port of
/// 127.0.0.1: its address.
async fn serve_tls(app: axum::Router, cert: &str, key: &str) -> SocketAddr {
    use rustls::pki_types::pem::PemObject;
    let certs =
        rustls::pki_types::CertificateDer::pem_slice_iter(cert.as_bytes()).collect::<Result<Vec<_>, _>>().unwrap();
    let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (acceptor, app) = (acceptor.clone(), app.clone());
            tokio::spawn(async move {
                // A client that refuses the certificate ends its handshake: nothing to serve.
                let Ok(tls) = acceptor.accept(stream).await else { return };
                let service = hyper_util::service::TowerToHyperService::new(app);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    addr
}

/// A receiver over https with a certificate of its own: a gateway that does not trust it sends
/// it nothing (each attempt fails on the certificate, and is retried); one started with
/// `--outbox-ca` (the certificate's file) delivers the event.
async fn an_https_receiver_gets_events_from_a_gateway_that_trusts_it(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let receiver = Receiver::start(Faults::default()).await;
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let addr = serve_tls(receiver.app.clone(), &made.cert.pem(), &made.signing_key.serialize_pem()).await;
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("receiver.pem");
    std::fs::write(&ca, "no certificate here").unwrap();
    let (code, _, err) =
        cli(&["serve", "--addr", "127.0.0.1:0", "--db", &arg, "--outbox-ca", ca.to_str().unwrap()], "");
    assert!(code == 1 && err.contains("--outbox-ca: no certificate"), "{err}");
    std::fs::write(&ca, made.cert.pem()).unwrap();
    let untrusting = GatewayProcess::start(&arg, FAST).await;
    set_url(&arg, &format!("https://localhost:{}/notify", addr.port()));
    let store = db.open().await;
    let urls = Mutex::new(vec![untrusting.url.clone()]);
    let body = post(&urls, 0, "/hotelbook", &hotel_commit("OBX-TLS", day(70), "HTL00042", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    let deadline = Instant::now() + Duration::from_secs(20);
    let failed = loop {
        let listed = ota_gateway::outbox::admin::list(&store, None, None, 10).await.unwrap();
        if let Some(e) = listed.iter().find(|e| e.last_error.is_some()) {
            break e.clone();
        }
        assert!(Instant::now() < deadline, "no failed attempt: {listed:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let error = failed.last_error.clone().unwrap_or_default();
    assert!(failed.state == "pending" && error.to_lowercase().contains("certificate"), "{failed:?}");
    assert!(receiver.received.lock().unwrap().order.is_empty(), "nothing reached an untrusted receiver");
    drop(untrusting);

    let mut args = FAST.to_vec();
    let ca = ca.to_str().unwrap().to_string();
    args.extend(["--outbox-ca", ca.as_str()]);
    let _trusting = GatewayProcess::start(&arg, &args).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while events(&store).await.iter().any(|e| e.state != "delivered") {
        assert!(
            Instant::now() < deadline,
            "not delivered over https: {:?}",
            ota_gateway::outbox::admin::list(&store, None, None, 10).await.unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let got = receiver.received.lock().unwrap();
    assert_eq!(got.order.len(), 1, "{:?}", got.order);
    assert!(got.bodies[0].contains("OTA_HotelResNotifRQ"), "{}", got.bodies[0]);
}

/// A hostile receiver (issue 28, H4): it answers every notification `200` with a body that never
/// ends, as fast as the loopback carries it. Eight events are attempted at once, again and again
/// for five seconds: the gateway reads at most 64 KiB of each answer, so its peak resident memory
/// stays within tens of MiB of where it started (it grew 384 MiB before), and each attempt fails
/// naming the bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_answering_without_end_costs_no_memory() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let db = TestDb::new(Backend::Sqlite).await;
    let arg = db.arg();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut head = vec![0u8; 64 * 1024];
                let _ = s.read(&mut head).await;
                let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n<OTA_HotelResNotifRS xmlns=\"http://www.opentravel.org/OTA/2003/05\">").await;
                let chunk = vec![b' '; 256 * 1024];
                while s.write_all(&chunk).await.is_ok() {
                    counter.fetch_add(chunk.len() as u64, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
    });
    let args = [
        "--outbox-retry-base",
        "50ms",
        "--outbox-retry-max",
        "200ms",
        "--outbox-timeout",
        "2s",
        "--outbox-poll-interval",
        "50ms",
    ];
    let gw = GatewayProcess::start(&arg, &args).await;
    set_url(&arg, &format!("http://{addr}/notify"));
    tokio::time::sleep(Duration::from_millis(600)).await;
    let urls = Mutex::new(vec![gw.url.clone()]);
    let before = gw.rss_mib();
    for i in 0..8 {
        let body = post(
            &urls,
            0,
            "/hotelbook",
            &hotel_commit(&format!("OBX-ENDLESS-{i}"), day(80 + i), "HTL00042", "RMSD000000"),
        )
        .await;
        assert!(body.contains("<Success"), "{body}");
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    let peak = gw.status("VmHWM") as f64 / 1024.0;
    let store = db.open().await;
    let listed = ota_gateway::outbox::admin::list(&store, None, None, 10).await.unwrap();
    let sent = sent.load(std::sync::atomic::Ordering::Relaxed) >> 20;
    println!(
        "endless answers: the receiver sent {sent} MiB; resident memory {before:.0} MiB, peak {peak:.0} MiB; {:?}",
        listed.first().and_then(|e| e.last_error.clone())
    );
    assert!(listed.iter().all(|e| e.state == "pending" || e.state == "parked"), "never delivered: {listed:?}");
    assert!(listed.iter().any(|e| e.last_error.as_deref().is_some_and(|t| t.contains("over 64 KiB"))), "{listed:?}");
    assert!(peak - before < 48.0, "peak resident memory {before:.0} → {peak:.0} MiB");
}

/// Issue 28, M2: one supplier's receiver that never answers does not hold back another
/// supplier's events. Supplier A (SUP-DEMO, HTL00042) has 100 events and a receiver that takes
/// every call and never answers (the gateways wait `--outbox-timeout`, 10 s); supplier B (CM2,
/// HTL00077) has one event, written after A's, and a receiver that answers at once. On two
/// gateways (64 delivery slots), B's event is delivered well within the time-out (it waited a
/// whole time-out, 10 s, while A's events held every slot), and A never has more than
/// `--outbox-per-supplier` (8 by default) deliveries in flight over both gateways (the calls
/// its receiver got, less any whose attempt a gateway ended; and its attempts being sent).
async fn a_hanging_receiver_delays_no_other_supplier(b: Backend) {
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let args = ["--outbox-timeout", "10s", "--outbox-poll-interval", "50ms", "--outbox-retry-base", "1s"];
    let gateways = [GatewayProcess::start(&arg, &args).await, GatewayProcess::start(&arg, &args).await];
    // A's receiver: takes every call, never answers.
    let hanging = Arc::new(AtomicU64::new(0));
    let calls = hanging.clone();
    let app = axum::Router::new().route(
        "/notify",
        axum::routing::post(move |_body: String| {
            let calls = calls.clone();
            async move {
                calls.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_secs(3600)).await;
                String::new()
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let a_addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let receiver_b = Receiver::start(Faults::default()).await;
    let run = |args: &[&str], stdin: &str| {
        let mut all = args.to_vec();
        all.extend(["--db", &arg]);
        let (code, out, err) = cli(&all, stdin);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    };
    run(&["requestor", "set", SUPPLIER, "--hotels", "HTL00042,HTL00105,HTL02001"], "");
    run(&["requestor", "add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL00077"], "cm2-secret\n");
    set_url(&arg, &format!("http://{a_addr}/notify"));
    run(&["requestor", "set", "CM2", "--notify-url", &receiver_b.url()], "");

    // A's backlog: 100 bookings, 8 at a time over both gateways.
    let urls = Arc::new(Mutex::new(gateways.iter().map(|g| g.url.clone()).collect::<Vec<_>>()));
    let booked = Instant::now();
    let mut tasks = Vec::new();
    for t in 0..8usize {
        let urls = urls.clone();
        tasks.push(tokio::spawn(async move {
            for i in (t..100).step_by(8) {
                let body = post(
                    &urls,
                    i,
                    "/hotelbook",
                    &hotel_commit(&format!("OBX-A{i}"), day(40 + i as i64), "HTL00042", "RMSD000000"),
                )
                .await;
                assert!(body.contains("<Success"), "{body}");
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let backlog = booked.elapsed();
    let body = post(&urls, 0, "/hotelbook", &hotel_commit("OBX-B1", day(45), "HTL00077", "RMSD000000")).await;
    assert!(body.contains("<Success"), "{body}");
    let store = db.open().await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let waited = loop {
        let all = events(&store).await;
        assert_eq!(all.len(), 101, "one event per booking");
        let b_event = all.iter().find(|e| e.hotel_code == "HTL00077").unwrap();
        if let Some(at) = b_event.delivered_at {
            break at - b_event.created_at;
        }
        assert!(Instant::now() < deadline, "B's event not delivered after 60 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let in_flight = hanging.load(Ordering::SeqCst);
    // A little longer: A's calls in flight stay within its share (none has timed out yet).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let a_calls = hanging.load(Ordering::SeqCst);
    eprintln!(
        "{b:?}: A's 100 events booked in {backlog:?}; B's event delivered {waited} ms after it was written (outbox time-out 10 s); A's calls in flight then {in_flight}, 1 s later {a_calls}"
    );
    assert_eq!(receiver_b.received.lock().unwrap().order.len(), 1);
    assert!(waited < 2_000, "B's event waited {waited} ms behind A's hanging receiver");
    ota_gateway::store::row! {
        /// A's attempts of one outcome and error.
        struct AttemptsRow { outcome: String, error: String, n: i64 }
    }
    let attempts: Vec<AttemptsRow> = store
        .read(|c| {
            Box::pin(c.query(
                "SELECT a.outcome, coalesce(a.error, ''), count(*) FROM outbox_attempt a JOIN outbox_event e ON e.id = a.event_id
                 WHERE e.hotel_code = 'HTL00042' GROUP BY a.outcome, coalesce(a.error, '') ORDER BY 1, 2",
                &[],
            ))
        })
        .await
        .unwrap();
    // A call the gateway gave up on (its attempt failed: the connection broke) still sleeps in
    // the receiver, which never sees it go: it is counted out.
    let ended: i64 = attempts.iter().filter(|a| a.outcome != "sending").map(|a| a.n).sum();
    let sending: i64 = attempts.iter().filter(|a| a.outcome == "sending").map(|a| a.n).sum();
    let attempts: Vec<String> = attempts.iter().map(|a| format!("{} × {} {}", a.n, a.outcome, a.error)).collect();
    eprintln!("A's attempts: {attempts:?}");
    let a_in_flight = a_calls as i64 - ended;
    assert!(
        a_in_flight <= 8 && sending <= 8,
        "A had {a_in_flight} deliveries in flight ({sending} attempts being sent): more than its share of 8; its attempts: {attempts:?}"
    );
}

/// The claim itself (issue 28, M2), on the database: a round takes the suppliers' events in turn
/// (every supplier's first due, then every one's second, …), not the oldest first, so a newer
/// event of supplier B is taken in a round of 3 before A's backlog of 10; a supplier never has
/// more than its share held (the leases of every gateway count, until they run out); a booking's
/// later event waits for its earlier one.
async fn the_claim_takes_suppliers_in_turn_within_their_share(b: Backend) {
    use ota_gateway::outbox::repo;
    let db = TestDb::new(b).await;
    let arg = db.arg();
    let store = db.open().await;
    ota_gateway::import::seed_demo_if_empty(&store).await.unwrap();
    for (args, stdin) in [
        (vec!["requestor", "set", SUPPLIER, "--hotels", "HTL00042", "--notify-url", "http://127.0.0.1:9/a"], ""),
        (vec!["requestor", "add", "CM2", "--context", "CM2-CTX", "--supplier", "--hotels", "HTL00077"], "cm2-secret\n"),
        (vec!["requestor", "set", "CM2", "--notify-url", "http://127.0.0.1:9/b"], ""),
    ] {
        let mut all = args.clone();
        all.extend(["--db", &arg]);
        let (code, out, err) = cli(&all, stdin);
        assert_eq!(code, 0, "{args:?}: {out}{err}");
    }
    // A: bookings A-0 … A-9 (A-0 with a second event), due from 1000 ms on; B: one, due last.
    let mut rows: Vec<(String, String, i64, String, i64)> =
        (0..10).map(|i| (format!("A-{i}"), "HTL00042".to_string(), 1, SUPPLIER.to_string(), 1000 + i)).collect();
    rows.push(("A-0".into(), "HTL00042".into(), 2, SUPPLIER.into(), 1100));
    rows.push(("B-0".into(), "HTL00077".into(), 1, "CM2".into(), 5000));
    store
        .write_now(move |c| {
            Box::pin(async move {
                for (booking, hotel, seq, supplier, at) in &rows {
                    c.execute(
                        "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
                         VALUES ('hotel', $1, $2, $3, $4, 'new', 1, $5, $5, $5)",
                        &[booking, hotel, seq, supplier, at],
                    )
                    .await?;
                }
                Ok::<_, ota_gateway::store::StoreError>(())
            })
        })
        .await
        .unwrap();
    let take = |now: i64, limit: i64, gateway: &'static str| {
        let store = store.clone();
        async move {
            let got = store
                .write_now(move |c| {
                    Box::pin(async move { repo::events::take_due(c, now, now + 60_000, limit, 4, gateway).await })
                })
                .await
                .unwrap();
            got.into_iter().map(|e| format!("{}/{}", e.booking_ref, e.seq)).collect::<Vec<_>>()
        }
    };
    let now = 10_000;
    assert_eq!(take(now, 3, "gw1").await, ["A-0/1", "B-0/1", "A-1/1"], "in turn: A's first, B's first, A's second");
    assert_eq!(take(now, 32, "gw2").await, ["A-2/1", "A-3/1"], "A's share is 4, over both gateways");
    assert!(take(now, 32, "gw1").await.is_empty(), "A holds its share, B has nothing more");
    // The leases run out: B's and A's oldest are taken again, in turn (A-0's second event still
    // waits for its first).
    assert_eq!(take(now + 61_000, 32, "gw2").await, ["A-0/1", "B-0/1", "A-1/1", "A-2/1", "A-3/1"]);
}

/// Two takes at once (PostgreSQL, where gateways take together) never hold more than a
/// supplier's share between them. One gateway's take is in flight, holding A's events A-1 … A-8
/// (its share, 8), when an event written earlier commits late (A-0, due first): a second take
/// then waits for the first to end and, counting its 8, takes none. (Without the take lock it
/// counted none held, numbered A-0 first and took it: 9 in flight.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_two_takes_at_once_never_hold_more_than_a_share() {
    use ota_gateway::outbox::repo;
    let db = TestDb::new(Backend::Postgres).await;
    let arg = db.arg();
    let store = db.open().await;
    ota_gateway::import::seed_demo_if_empty(&store).await.unwrap();
    let (code, out, err) = cli(
        &["requestor", "set", SUPPLIER, "--hotels", "HTL00042", "--notify-url", "http://127.0.0.1:9/a", "--db", &arg],
        "",
    );
    assert_eq!(code, 0, "{out}{err}");
    let connect = || async {
        let (client, conn) = tokio_postgres::connect(&db.postgres_url(), tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        client
    };
    let insert = "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
                  VALUES ('hotel', $1, 'HTL00042', 1, $2, 'new', 1, $3, $3, $3)";
    let setup = connect().await;
    for i in 1..=9i64 {
        setup.execute(insert, &[&format!("A-{i}"), &SUPPLIER, &(1000 + i)]).await.unwrap();
    }
    // A-0, due before all of them, written in a transaction still open.
    let mut late = connect().await;
    let late = late.transaction().await.unwrap();
    late.execute(insert, &[&"A-0", &SUPPLIER, &1000i64]).await.unwrap();
    // A gateway's take in flight: the take lock, then A-1 … A-8 taken (its share).
    let mut first = connect().await;
    let first = first.transaction().await.unwrap();
    first.execute("SELECT pg_advisory_xact_lock($1)", &[&ota_gateway::store::TAKES_LOCK]).await.unwrap();
    let taken = first
        .execute(
            "UPDATE outbox_event SET taken_until = 70000, taken_by = 'gw1', attempts = attempts + 1 WHERE booking_ref IN ('A-1','A-2','A-3','A-4','A-5','A-6','A-7','A-8')",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(taken, 8);
    late.commit().await.unwrap();
    // The second take, on the gateway's own path.
    let second = tokio::spawn({
        let store = store.clone();
        async move {
            store
                .write_now(|c| Box::pin(async move { repo::events::take_due(c, 10_000, 70_000, 32, 8, "gw2").await }))
                .await
                .unwrap()
                .into_iter()
                .map(|e| e.booking_ref)
                .collect::<Vec<_>>()
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let waited = !second.is_finished();
    first.commit().await.unwrap();
    let took = second.await.unwrap();
    assert!(took.is_empty(), "the second take took {took:?} beside the first's 8 (share 8)");
    assert!(waited, "the second take did not wait for the first");
}

backend_tests!(
    the_claim_takes_suppliers_in_turn_within_their_share,
    a_hanging_receiver_delays_no_other_supplier,
    every_event_arrives_in_order_through_failures_and_kills,
    a_healthy_receiver_gets_every_event_quickly,
    a_receiver_failing_30_percent_gets_every_event,
    a_parked_event_waits_for_outbox_retry,
    a_supplier_pulls_and_acknowledges,
    a_stopped_gateway_gives_its_events_back,
    an_https_receiver_gets_events_from_a_gateway_that_trusts_it
);
