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

use crate::support::{self, Backend, GatewayProcess, TestDb, backend_tests, cli, day};

const XML: &str = "application/xml";
const SUPPLIER: &str = "SUP-DEMO";

/// The gateways' outbox settings in these tests: quick retries, a short receiver time-out.
const FAST: &[&str] = &[
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

/// What the receiver got: each event's identity once, in the order first kept, and how many
/// repeats it dropped.
#[derive(Default)]
struct Received {
    /// Identities in the order first kept.
    order: Vec<String>,
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

/// The event identity of a notification (`EchoToken`).
fn identity_of(body: &str) -> Option<String> {
    let at = body.find("EchoToken=\"")? + "EchoToken=\"".len();
    let end = body[at..].find('"')?;
    Some(body[at..at + end].to_string())
}

fn ack(identity: &str) -> String {
    format!(r#"<OTA_HotelResNotifRS xmlns="http://www.opentravel.org/OTA/2003/05" Version="1.000" EchoToken="{identity}"><Success/></OTA_HotelResNotifRS>"#)
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
                    let Some(id) = identity_of(&body) else {
                        return (axum::http::StatusCode::BAD_REQUEST, format!("no identity in {body}"));
                    };
                    {
                        let mut got = received.lock().unwrap();
                        if got.seen.insert(id.clone()) {
                            got.order.push(id.clone());
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

fn pos(id: &str, ctx: &str, pw: &str) -> String {
    format!(r#"<POS><Source><RequestorID Type="22" ID="{id}" ID_Context="{ctx}"/></Source><Source><RequestorID Type="88" ID="{id}" MessagePassword="{pw}"/></Source></POS>"#)
}

/// A hotel Commit of one guest in a standard double room of HTL00042 for one night.
fn hotel_commit(client_ref: &str, start: NaiveDate, hotel: &str, room: &str) -> String {
    let end = start + chrono::Duration::days(1);
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    format!(
        r#"<OTA_HotelResRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" ResStatus="Commit">{pos}<HotelReservations><HotelReservation><RoomStays><RoomStay><RoomTypes><RoomType RoomTypeCode="{room}"/></RoomTypes><RoomRates><RoomRate><Features><Feature><Description><Text>BB</Text></Description></Feature></Features></RoomRate></RoomRates><TimeSpan Start="{start}" End="{end}"/><BasicPropertyInfo HotelCode="{hotel}"/><ResGuestRPHs><ResGuestRPH RPH="1"/></ResGuestRPHs></RoomStay></RoomStays><ResGuests><ResGuest ResGuestRPH="1" AgeQualifyingCode="10"><Profiles><ProfileInfo><Profile><Customer><PersonName><GivenName>Ana</GivenName><Surname>Nowak</Surname></PersonName></Customer></Profile></ProfileInfo></Profiles></ResGuest></ResGuests><ResGlobalInfo><HotelReservationIDs><HotelReservationID ResID_Type="36" ResID_Value="{client_ref}" ResID_SourceContext="Client"/></HotelReservationIDs></ResGlobalInfo></HotelReservation></HotelReservations></OTA_HotelResRQ>"#
    )
}

/// An activity Commit with a pickup at HTL00042 (the Drach caves with transfer).
fn activity_commit(client_ref: &str, date: NaiveDate) -> String {
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit">{pos}<BookingInfo><BasicInfo TourActivityID="LESPMIBKUI" SupplierProductCode="TE0CC00A" SupplierServiceCode="TRF"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><Surname>P1</Surname></Individual></ParticipantInfo><Schedule Start="{date}T00:00:00" End="{date}T23:59:59"/><PickupDropoff LocationName="HTL00042" PickupInd="true"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#
    )
}

fn cancel(client_ref: &str) -> String {
    let pos = pos("DEMO", "DEMO-DIST", "demo-password");
    format!(r#"<OTA_CancelRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2008.1" CancelType="Commit">{pos}<UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></OTA_CancelRQ>"#)
}

/// Posts `body` to one of `urls` (the next on a transport failure: that gateway was killed):
/// the answer. A repeated Commit or cancel answers the first outcome, so repeating is safe.
async fn post(urls: &Mutex<Vec<String>>, first: usize, path: &str, body: &str) -> String {
    let http = reqwest::Client::new();
    for attempt in 0..200 {
        let url = {
            let urls = urls.lock().unwrap();
            urls[(first + attempt) % urls.len()].clone()
        };
        match http.post(format!("{url}{path}")).header("Content-Type", XML).body(body.to_string()).timeout(Duration::from_secs(10)).send().await {
            Ok(res) if res.status().is_success() => return res.text().await.unwrap(),
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    panic!("no gateway answered {path}");
}

// ---------------------------------------------------------------------------------------------
// What the database says

ota_gateway::row! {
    struct BookingRow { kind: String, internal: String, status: String }
}

ota_gateway::row! {
    struct EventRow { booking_ref: String, hotel_code: String, seq: i64, state: String, created_at: i64, delivered_at: Option<i64> }
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
        .read(|c| Box::pin(async move { c.query("SELECT booking_ref, hotel_code, seq, state, created_at, delivered_at FROM outbox_event ORDER BY id", &[]).await }))
        .await
        .unwrap()
}

/// The identities every stored booking must have been delivered: `new` for each, and
/// `cancelled` after it for a cancelled one.
fn expected(bookings: &[BookingRow]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for b in bookings {
        out.insert(format!("{}/HTL00042/1", b.internal));
        if b.status == "Cancelled" {
            out.insert(format!("{}/HTL00042/2", b.internal));
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

fn set_url(db: &str, url: &str) {
    let (code, out, err) = cli(&["requestor", "set", SUPPLIER, "--notify-url", url, "--db", db], "");
    assert_eq!(code, 0, "{out}{err}");
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

/// The same bookings with a healthy receiver and no kills: the latency of a healthy delivery.
async fn a_healthy_receiver_gets_every_event_quickly(b: Backend) {
    run_scenario(b, Faults::default(), false).await;
}

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
            let client_ref = format!("OBX-H{i}");
            let body = post(&urls, i, "/hotelbook", &hotel_commit(&client_ref, day(40 + i as i64), "HTL00042", "RMSD000000")).await;
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
    assert_eq!(stored.len(), hotels + activities + 2, "the booking and 2 of the junior-suite Commits are stored");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let got = receiver.received.lock().unwrap().seen.len();
        let open = events(&store).await.iter().filter(|e| e.state != "delivered").count();
        if got >= want.len() && open == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "after 60 s: {got} of {} events received, {open} not delivered", want.len());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let all = events(&store).await;
    let received = receiver.received.lock().unwrap();
    let got: BTreeSet<String> = received.order.iter().cloned().collect();
    assert_eq!(got, want, "exactly the events of the stored bookings, each once after repeats are dropped");
    assert_eq!(all.len(), want.len(), "one event per stored change, none for what was refused");
    assert!(all.iter().all(|e| e.state == "delivered"));
    // In order per booking and hotel: seq 1, 2, … as first kept.
    let mut per: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for id in &received.order {
        let (rest, seq) = id.rsplit_once('/').unwrap();
        per.entry(rest.to_string()).or_default().push(seq.parse().unwrap());
    }
    for (key, seqs) in &per {
        assert_eq!(*seqs, (1..=seqs.len() as i64).collect::<Vec<_>>(), "{key}: out of order");
    }
    let (p50, p99, n) = latency(&all);
    eprintln!(
        "{b:?} outbox ({}): {} events of {} bookings on {instances} gateways (booked in {booked_in:?}); receiver: {} calls, {} repeats dropped; delivery latency p50 {p50} ms, p99 {p99} ms (n = {n}); all delivered {:?} after the first booking",
        if trouble { "receiver down 10 s, then 30 % failed and 10 % answers lost; gateways SIGKILLed" } else { "healthy receiver" },
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
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.contains("WARN") && logged.contains("outbox event parked"), "{logged}");

    let (code, out, err) = cli(&["outbox", "list", "--state", "parked", "--db", &arg], "");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[1].contains("parked") && lines[1].contains(SUPPLIER) && lines[1].contains("HTTP 500"), "{out}");
    let id = lines[1].split_whitespace().next().unwrap().to_string();
    let (code, _, err) = cli(&["outbox", "retry", "999999", "--db", &arg], "");
    assert_eq!(code, 1, "{err}");

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
    assert_eq!(order.len(), 2);
    assert!(order[0].ends_with("/HTL00042/1") && order[1].ends_with("/HTL00042/2"), "{order:?}");
    let (code, out, _) = cli(&["outbox", "retry", "--all-parked", "--db", &arg], "");
    assert_eq!(code, 0);
    assert!(out.contains("0 parked event(s)"), "{out}");
}

backend_tests!(every_event_arrives_in_order_through_failures_and_kills, a_healthy_receiver_gets_every_event_quickly, a_parked_event_waits_for_outbox_retry);
