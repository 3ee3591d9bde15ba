//! Crash durability: the real `ota-gateway` binary is SIGKILLed while a client streams activity
//! Commits at it, then restarted on the same database (three times). Every Commit answered with
//! Success must be there exactly once, whole, with the Internal reference the client was given;
//! a repeated Commit must return that reference without taking places again; nothing answered
//! with an error may be stored; and every service/date's places left must equal its capacity
//! minus the places booked.
//!
//! What this proves is process-crash durability (SIGKILL at any point of a request, the WAL
//! recovered at the next start). Power-cut durability rests on `synchronous=FULL` and is not
//! tested here.
//!
//! `cargo test -p ota-gateway --test durability -- --nocapture` (about 4 s in debug); more
//! kill points with `DURABILITY_ROUNDS=20` (default 3).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use ota_gateway::Client;
use ota_messages::common::{ErrorCode, IdContext};
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use rusqlite::Connection;

/// Concurrent client tasks streaming Commits.
const WORKERS: usize = 8;
/// Round n is killed after `KILL_AFTER_SUCCESSES[(n - 1) % 3]` successful Commits (or
/// `ROUND_TIME`).
const KILL_AFTER_SUCCESSES: [usize; 3] = [40, 120, 200];
const ROUND_TIME: Duration = Duration::from_secs(3);

// ---------------------------------------------------------------------------------------------
// The gateway as a child process

struct Gateway {
    child: Child,
    addr: SocketAddr,
}

/// A port nobody listens on now (bound, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Gateway {
    /// Starts `ota-gateway serve` on `db` and waits until `/healthz` answers.
    async fn start(db: &Path, log: &Path) -> Gateway {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let log = std::fs::OpenOptions::new().create(true).append(true).open(log).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_ota-gateway"))
            .args(["serve", "--addr", &addr.to_string(), "--db"])
            .arg(db)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start ota-gateway");
        let mut gw = Gateway { child, addr };
        let http = reqwest::Client::new();
        let started = Instant::now();
        loop {
            if let Ok(res) = http.get(format!("http://{addr}/healthz")).send().await
                && res.status().is_success()
            {
                break;
            }
            if let Some(status) = gw.child.try_wait().unwrap() {
                panic!("ota-gateway exited at start: {status}");
            }
            assert!(started.elapsed() < Duration::from_secs(20), "ota-gateway did not come up");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        gw
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// SIGKILL (no shutdown of any kind), and reap the process.
    fn kill(mut self) {
        self.child.kill().unwrap();
        let status = self.child.wait().unwrap();
        assert!(!status.success(), "killed: {status}");
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------------------------
// The Commits

/// What a Commit books: (activity, product, service, date).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Target {
    activity: String,
    product: String,
    service: String,
    date: NaiveDate,
}

impl Target {
    fn new(activity: &str, product: &str, service: &str, date: NaiveDate) -> Target {
        Target { activity: activity.into(), product: product.into(), service: service.into(), date }
    }
}

fn target(n: u64) -> Target {
    let today = Utc::now().date_naive();
    if n % 6 == 0 {
        // The 2-place sunset cruise, on five dates: most of these find it full.
        Target::new("LESPMICATA", "CATSUNSET", "TIC", today + chrono::Duration::days(1 + (n / 6 % 5) as i64))
    } else if n % 6 == 1 {
        Target::new("LESTFSLORO", "TFLORO01", "TIC", today + chrono::Duration::days(1 + (n % 100) as i64))
    } else {
        // The caves, 20 places a day, spread over 200 days.
        Target::new("LESPMIBKUI", "TE0CC00A", "TIC", today + chrono::Duration::days(1 + (n % 200) as i64))
    }
}

fn commit_xml(client_ref: &str, t: &Target) -> String {
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="http://www.opentravel.org/OTA/2003/05" Version="2011.2" ResStatus="Commit"><POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS><BookingInfo><BasicInfo TourActivityID="{}" SupplierProductCode="{}" SupplierServiceCode="{}"/><ParticipantInfo><Category QualifierInfo="10"/><Individual Age="40" ParticipantID="1"><GivenName>Ana</GivenName><Surname>Durable</Surname></Individual></ParticipantInfo><Schedule Start="{d}T00:00:00" End="{d}T23:59:59"/></BookingInfo><TPA_Extensions><UniqueID Type="36" ID="{client_ref}" ID_Context="Client"/></TPA_Extensions></OTA_TourActivityBookRQ>"#,
        t.activity,
        t.product,
        t.service,
        d = t.date
    )
}

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// Success, with the Internal reference.
    Booked(String),
    /// An error answer (no places left).
    Refused(Option<ErrorCode>),
    /// No answer: the server died with the request in flight.
    InDoubt,
}

#[derive(Debug, Clone)]
struct Sent {
    client_ref: String,
    target: Target,
    outcome: Outcome,
}

/// Sends one Commit and classifies the answer.
async fn commit(client: &Client, client_ref: &str, t: &Target) -> Outcome {
    match client.send_raw("/activitybook", commit_xml(client_ref, t), "application/xml").await {
        Err(_) => Outcome::InDoubt,
        Ok((status, _, body)) => {
            assert_eq!(status, reqwest::StatusCode::OK, "{body}");
            let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
            if rs.is_success() {
                let d = rs.reservation_details.as_ref().unwrap();
                assert_eq!(d.participant_info.len(), 1);
                Outcome::Booked(d.confirmation.iter().find(|c| c.id_context == Some(IdContext::Internal)).unwrap().id.clone())
            } else {
                let e = &rs.errors().unwrap().error[0];
                assert_eq!(e.code, Some(ErrorCode::NoAvailability), "{body}");
                Outcome::Refused(e.code.clone())
            }
        }
    }
}

/// Streams Commits from `WORKERS` tasks until the gateway is killed (after
/// `KILL_AFTER_SUCCESSES` successes or `ROUND_TIME`), and returns what each got.
async fn stream_then_kill(gw: Gateway, round: u32) -> Vec<Sent> {
    let sent = Arc::new(Mutex::new(Vec::new()));
    let next = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let client = Client::new(gw.url());
    let mut tasks = Vec::new();
    for _ in 0..WORKERS {
        let (sent, next, stop, client) = (sent.clone(), next.clone(), stop.clone(), client.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let n = next.fetch_add(1, Ordering::SeqCst);
                let client_ref = format!("DUR-{round}-{n:05}");
                let t = target(n);
                let outcome = commit(&client, &client_ref, &t).await;
                sent.lock().unwrap().push(Sent { client_ref, target: t, outcome });
            }
        }));
    }
    let started = Instant::now();
    loop {
        let ok = sent.lock().unwrap().iter().filter(|s| matches!(s.outcome, Outcome::Booked(_))).count();
        if ok >= KILL_AFTER_SUCCESSES[(round as usize - 1) % 3] || started.elapsed() > ROUND_TIME {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // Mid-stream: requests are in flight on every worker. (The workers are told to stop
    // first, so that the ones sent after the kill, refused at once, do not pile up.)
    stop.store(true, Ordering::SeqCst);
    gw.kill();
    for t in tasks {
        t.await.unwrap();
    }
    let out = sent.lock().unwrap().clone();
    let count = |f: fn(&Outcome) -> bool| out.iter().filter(|s| f(&s.outcome)).count();
    println!(
        "round {round}: killed after {:?}: {} Commits sent, {} booked, {} refused (full), {} in doubt",
        started.elapsed(),
        out.len(),
        count(|o| matches!(o, Outcome::Booked(_))),
        count(|o| matches!(o, Outcome::Refused(_))),
        count(|o| matches!(o, Outcome::InDoubt)),
    );
    out
}

// ---------------------------------------------------------------------------------------------
// Checks on the database

/// (Internal reference, participants, activity, product, service, date) of the DEMO booking
/// with this Client reference, for each row there is.
fn stored(conn: &Connection, client_ref: &str) -> Vec<(String, i64, Target)> {
    let mut stmt = conn
        .prepare(
            "SELECT b.reference, (SELECT count(*) FROM activity_booking_participant p WHERE p.booking_id = b.id),
                    b.activity_id, b.product_code, b.service_code, b.service_date
             FROM activity_booking b WHERE b.requestor_id = 'DEMO' AND b.client_reference = ?1",
        )
        .unwrap();
    stmt.query_map([client_ref], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            Target {
                activity: r.get(2)?,
                product: r.get(3)?,
                service: r.get(4)?,
                date: NaiveDate::parse_from_str(&r.get::<_, String>(5)?, "%Y-%m-%d").unwrap(),
            },
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// Places left per (service id, date).
fn allotment(conn: &Connection) -> BTreeMap<(i64, String), i64> {
    let mut stmt = conn.prepare("SELECT service_id, date, places_left FROM activity_allotment").unwrap();
    stmt.query_map([], |r| Ok(((r.get(0)?, r.get(1)?), r.get(2)?))).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Every service/date: places left = capacity − participants booked; no booking without its
/// allotment row; the database is sound.
fn check_consistency(conn: &Connection) -> usize {
    let integrity: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
    let fk_problems: i64 = conn.query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0)).unwrap();
    assert_eq!(fk_problems, 0);
    let mut stmt = conn
        .prepare(
            "SELECT p.activity_id, p.code, s.code, a.date, s.capacity, a.places_left,
                    (SELECT count(*) FROM activity_booking b JOIN activity_booking_participant bp ON bp.booking_id = b.id
                     WHERE b.activity_id = p.activity_id AND b.product_code = p.code AND b.service_code = s.code
                       AND b.service_date = a.date AND b.status = 'Reserved')
             FROM activity_allotment a JOIN activity_service s ON s.id = a.service_id JOIN activity_product p ON p.id = s.product_id",
        )
        .unwrap();
    let rows: Vec<(String, String, String, String, i64, i64, i64)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    for (activity, product, service, date, capacity, left, booked) in &rows {
        assert!(*left >= 0, "{activity}/{product}/{service} {date}: {left} places left");
        assert_eq!(*left, capacity - booked, "{activity}/{product}/{service} {date}: capacity {capacity}, {booked} booked, {left} left");
    }
    let orphans: i64 = conn
        .query_row(
            "SELECT count(*) FROM activity_booking b WHERE NOT EXISTS (
                 SELECT 1 FROM activity_allotment a JOIN activity_service s ON s.id = a.service_id
                 JOIN activity_product p ON p.id = s.product_id
                 WHERE p.activity_id = b.activity_id AND p.code = b.product_code AND s.code = b.service_code AND a.date = b.service_date)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0, "bookings whose places were never taken");
    let half: i64 = conn
        .query_row("SELECT count(*) FROM activity_booking b WHERE (SELECT count(*) FROM activity_booking_participant p WHERE p.booking_id = b.id) <> 1", [], |r| r.get(0))
        .unwrap();
    assert_eq!(half, 0, "bookings without exactly their one participant");
    rows.len()
}

/// The checks after a restart: what was answered is what is stored; in-doubt Commits are
/// resolved by repeating them (as a client would); repeats take no places.
async fn verify(gw: &Gateway, db: &Path, all: &mut [Sent]) {
    let conn = Connection::open(db).unwrap();
    let mut booked = 0;
    for s in all.iter() {
        let rows = stored(&conn, &s.client_ref);
        match &s.outcome {
            Outcome::Booked(internal) => {
                booked += 1;
                assert_eq!(rows.len(), 1, "{}: answered Success, stored {} times", s.client_ref, rows.len());
                assert_eq!(&rows[0].0, internal, "{}: another Internal reference", s.client_ref);
                assert_eq!(rows[0].1, 1, "{}: half-written", s.client_ref);
                assert_eq!(rows[0].2, s.target, "{}", s.client_ref);
            }
            Outcome::Refused(_) => assert!(rows.is_empty(), "{}: refused, yet stored", s.client_ref),
            Outcome::InDoubt => {
                assert!(rows.len() <= 1, "{}", s.client_ref);
                if let Some(row) = rows.first() {
                    assert_eq!(row.1, 1, "{}: half-written", s.client_ref);
                }
            }
        }
    }
    // Nothing stored that nobody asked for.
    let refs: std::collections::HashSet<&str> = all.iter().map(|s| s.client_ref.as_str()).collect();
    let mut stmt = conn.prepare("SELECT client_reference FROM activity_booking").unwrap();
    let in_db: Vec<String> = stmt.query_map([], |r| r.get(0)).unwrap().collect::<Result<_, _>>().unwrap();
    assert!(in_db.iter().all(|r| refs.contains(r.as_str())), "unknown bookings in the database");
    let services = check_consistency(&conn);

    // Repeat every booked Commit: the same Internal reference, no places taken.
    let before = allotment(&conn);
    let client = Client::new(gw.url());
    let started = Instant::now();
    for s in all.iter().filter(|s| matches!(s.outcome, Outcome::Booked(_))) {
        assert_eq!(commit(&client, &s.client_ref, &s.target).await, s.outcome, "{}: repeated Commit", s.client_ref);
    }
    assert_eq!(allotment(&conn), before, "a repeated Commit took places");
    let repeat_time = started.elapsed();

    // Resolve the in-doubt ones by repeating them.
    let mut resolved: HashMap<&str, usize> = HashMap::new();
    for s in all.iter_mut().filter(|s| s.outcome == Outcome::InDoubt) {
        let was_stored = !stored(&conn, &s.client_ref).is_empty();
        let outcome = commit(&client, &s.client_ref, &s.target).await;
        assert_ne!(outcome, Outcome::InDoubt);
        *resolved.entry(if was_stored { "had been stored" } else { "had not been stored" }).or_default() += 1;
        if was_stored {
            assert!(matches!(outcome, Outcome::Booked(_)), "{}: stored, but the repeat says {outcome:?}", s.client_ref);
        }
        s.outcome = outcome;
    }
    check_consistency(&conn);
    println!(
        "  verified {booked} booked Commits ({services} service/dates consistent); repeated them in {repeat_time:?} with no places taken; in doubt: {resolved:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_mid_stream_loses_and_duplicates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db: PathBuf = dir.path().join("gateway.db");
    let log = dir.path().join("gateway.log");
    let started = Instant::now();
    let mut all = Vec::new();
    let rounds: u32 = std::env::var("DURABILITY_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    for round in 1..=rounds {
        let gw = Gateway::start(&db, &log).await;
        all.extend(stream_then_kill(gw, round).await);
        let gw = Gateway::start(&db, &log).await;
        verify(&gw, &db, &mut all).await;
        // A clean stop between rounds is not wanted: the next round starts from a kill too.
        gw.kill();
    }
    let booked = all.iter().filter(|s| matches!(s.outcome, Outcome::Booked(_))).count();
    assert!(booked >= 100, "too few Commits went through ({booked}) to say anything");
    assert!(all.iter().any(|s| matches!(s.outcome, Outcome::Refused(_))), "the 2-place activity was never full");
    println!(
        "durability: {} Commits, {booked} booked, {} starts, {} SIGKILLs ({rounds} mid-stream), in {:?}",
        all.len(),
        2 * rounds,
        2 * rounds,
        started.elapsed()
    );
    let errors = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!errors.contains("ERROR"), "the gateway logged errors:\n{errors}");
}
