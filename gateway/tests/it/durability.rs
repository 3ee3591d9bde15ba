//! Crash durability: the real `ota-gateway` binary is SIGKILLed while a client streams activity
//! Commits at it, then restarted on the same database (three times). Every Commit answered with
//! Success must be there exactly once, whole, with the Internal reference the client was given;
//! a repeated Commit must return that reference without taking places again; nothing answered
//! with an error may be stored; and every service/date's places left must equal its capacity
//! minus the places booked. On both backends: SQLite (the WAL recovered at the next start) and
//! PostgreSQL (the gateway killed, the server untouched).
//!
//! What this proves is process-crash durability (SIGKILL at any point of a request). Power-cut
//! durability rests on `synchronous=FULL` (SQLite) and PostgreSQL's own fsync, and is not
//! tested here.
//!
//! `cargo test -p ota-gateway --test it durability:: -- --nocapture` (about 4 s in debug); more
//! kill points with `DURABILITY_ROUNDS=20` (default 3).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use ota_gateway::store::{Scalar, SqlDialect};
use ota_gateway::{Client, Store};
use ota_messages::common::{ErrorCode, IdContext};
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use support::{Backend, GatewayProcess, TestDb, backend_tests};

/// Concurrent client tasks streaming Commits.
const WORKERS: usize = 8;
/// Round n is killed after `KILL_AFTER_SUCCESSES[(n - 1) % 3]` successful Commits (or
/// `ROUND_TIME`).
const KILL_AFTER_SUCCESSES: [usize; 3] = [40, 120, 200];
const ROUND_TIME: Duration = Duration::from_secs(3);

// ---------------------------------------------------------------------------------------------
// The gateway as a child process

/// A gateway process of the test (the shared [`GatewayProcess`], its log appended to across
/// restarts).
struct Gateway(GatewayProcess);

impl Gateway {
    /// Starts `ota-gateway serve --demo` on `db` and waits until `/healthz` answers.
    async fn start(db: &str, log: &Path) -> Gateway {
        Gateway(GatewayProcess::start_with(db, &["--demo"], &[], Some(log)).await)
    }

    fn url(&self) -> String {
        self.0.url.clone()
    }

    /// SIGKILL (no shutdown of any kind), and reap the process.
    fn kill(mut self) {
        self.0.child.kill().unwrap();
        let status = self.0.child.wait().unwrap();
        assert!(!status.success(), "killed: {status}");
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
                Outcome::Booked(
                    d.confirmation.iter().find(|c| c.id_context == Some(IdContext::Internal)).unwrap().id.clone(),
                )
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

ota_gateway::store::row! {
    /// A DEMO booking: Internal reference, participants, activity, product, service, date.
    struct StoredRow { reference: String, participants: i64, activity: String, product: String, service: String, date: NaiveDate }
}

/// (Internal reference, participants, what) of the DEMO booking with this Client reference,
/// for each row there is.
async fn stored(store: &Store, client_ref: &str) -> Vec<(String, i64, Target)> {
    let client_ref = client_ref.to_string();
    let rows: Vec<StoredRow> = store
        .read(move |c| {
            Box::pin(async move {
                c.query(
                    "SELECT b.reference, (SELECT count(*) FROM activity_booking_participant p WHERE p.booking_id = b.id),
                            b.activity_id, b.product_code, b.service_code, b.service_date
                     FROM activity_booking b WHERE b.requestor_id = 'DEMO' AND b.client_reference = $1",
                    &[&client_ref],
                )
                .await
            })
        })
        .await
        .unwrap();
    rows.into_iter()
        .map(|r| {
            (
                r.reference,
                r.participants,
                Target { activity: r.activity, product: r.product, service: r.service, date: r.date },
            )
        })
        .collect()
}

ota_gateway::store::row! {
    /// Places booked of a service on a date, the participants of its live bookings and the
    /// places offered then.
    struct PlacesRow { activity: String, product: String, service: String, date: NaiveDate, places: i64, participants: i64, capacity: i64 }
}

async fn places(store: &Store) -> Vec<PlacesRow> {
    store
        .read(|c| {
            Box::pin(c.query(
                "SELECT pb.activity_id, pb.product_code, pb.service_code, pb.date, pb.places,
                        (SELECT count(*) FROM activity_booking b JOIN activity_booking_participant bp ON bp.booking_id = b.id
                         WHERE b.activity_id = pb.activity_id AND b.product_code = pb.product_code AND b.service_code = pb.service_code
                           AND b.service_date = pb.date AND b.status = 'Reserved'),
                        coalesce((SELECT c.places FROM activity_capacity c JOIN activity_service s ON s.id = c.service_id
                                  JOIN activity_product p ON p.id = s.product_id
                                  WHERE p.activity_id = pb.activity_id AND p.code = pb.product_code AND s.code = pb.service_code AND c.date = pb.date),
                                 (SELECT s.capacity FROM activity_service s JOIN activity_product p ON p.id = s.product_id
                                  WHERE p.activity_id = pb.activity_id AND p.code = pb.product_code AND s.code = pb.service_code))
                 FROM activity_places_booked pb",
                &[],
            ))
        })
        .await
        .unwrap()
}

/// Places booked per (activity, product, service, date).
async fn booked(store: &Store) -> BTreeMap<(String, String, String, NaiveDate), i64> {
    places(store).await.into_iter().map(|r| ((r.activity, r.product, r.service, r.date), r.places)).collect()
}

/// Every service/date: places booked = participants of its live bookings, within the places
/// offered; no booking without its places; the database is sound.
async fn check_consistency(store: &Store) -> usize {
    if store.dialect() == SqlDialect::Sqlite {
        let Scalar(integrity): Scalar<String> =
            store.read(|c| Box::pin(c.query_one("PRAGMA integrity_check", &[]))).await.unwrap();
        assert_eq!(integrity, "ok");
        let Scalar(fk): Scalar<i64> =
            store.read(|c| Box::pin(c.query_one("SELECT count(*) FROM pragma_foreign_key_check", &[]))).await.unwrap();
        assert_eq!(fk, 0);
    }
    let rows = places(store).await;
    for r in &rows {
        let what = format!("{}/{}/{} {}", r.activity, r.product, r.service, r.date);
        assert_eq!(r.places, r.participants, "{what}: {} places booked, {} participants", r.places, r.participants);
        assert!(r.places <= r.capacity, "{what}: {} booked of {}", r.places, r.capacity);
    }
    let Scalar(orphans): Scalar<i64> = store
        .read(|c| {
            Box::pin(c.query_one(
                "SELECT count(*) FROM activity_booking b WHERE NOT EXISTS (
                     SELECT 1 FROM activity_places_booked pb WHERE pb.activity_id = b.activity_id AND pb.product_code = b.product_code
                       AND pb.service_code = b.service_code AND pb.date = b.service_date)",
                &[],
            ))
        })
        .await
        .unwrap();
    assert_eq!(orphans, 0, "bookings whose places were never taken");
    let Scalar(half): Scalar<i64> = store
        .read(|c| {
            Box::pin(c.query_one(
                "SELECT count(*) FROM activity_booking b WHERE (SELECT count(*) FROM activity_booking_participant p WHERE p.booking_id = b.id) <> 1",
                &[],
            ))
        })
        .await
        .unwrap();
    assert_eq!(half, 0, "bookings without exactly their one participant");
    rows.len()
}

/// The checks after a restart: what was answered is what is stored; in-doubt Commits are
/// resolved by repeating them (as a client would); repeats take no places.
async fn verify(gw: &Gateway, store: &Store, all: &mut [Sent]) {
    let mut booked_count = 0;
    for s in all.iter() {
        let rows = stored(store, &s.client_ref).await;
        match &s.outcome {
            Outcome::Booked(internal) => {
                booked_count += 1;
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
    let in_db: Vec<Scalar<String>> =
        store.read(|c| Box::pin(c.query("SELECT client_reference FROM activity_booking", &[]))).await.unwrap();
    assert!(in_db.iter().all(|Scalar(r)| refs.contains(r.as_str())), "unknown bookings in the database");
    let services = check_consistency(store).await;

    // Repeat every booked Commit: the same Internal reference, no places taken.
    let before = booked(store).await;
    let client = Client::new(gw.url());
    let started = Instant::now();
    for s in all.iter().filter(|s| matches!(s.outcome, Outcome::Booked(_))) {
        assert_eq!(commit(&client, &s.client_ref, &s.target).await, s.outcome, "{}: repeated Commit", s.client_ref);
    }
    assert_eq!(booked(store).await, before, "a repeated Commit took places");
    let repeat_time = started.elapsed();

    // Resolve the in-doubt ones by repeating them.
    let mut resolved: HashMap<&str, usize> = HashMap::new();
    for s in all.iter_mut().filter(|s| s.outcome == Outcome::InDoubt) {
        let was_stored = !stored(store, &s.client_ref).await.is_empty();
        let outcome = commit(&client, &s.client_ref, &s.target).await;
        assert_ne!(outcome, Outcome::InDoubt);
        *resolved.entry(if was_stored { "had been stored" } else { "had not been stored" }).or_default() += 1;
        if was_stored {
            assert!(matches!(outcome, Outcome::Booked(_)), "{}: stored, but the repeat says {outcome:?}", s.client_ref);
        }
        s.outcome = outcome;
    }
    check_consistency(store).await;
    println!(
        "  verified {booked_count} booked Commits ({services} service/dates consistent); repeated them in {repeat_time:?} with no places taken; in doubt: {resolved:?}"
    );
}

pub(crate) async fn sigkill_mid_stream_loses_and_duplicates_nothing(b: Backend) {
    let dir = tempfile::tempdir().unwrap();
    let db = TestDb::new(b).await;
    let log = dir.path().join("gateway.log");
    let started = Instant::now();
    let mut all = Vec::new();
    let rounds: u32 = std::env::var("DURABILITY_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    for round in 1..=rounds {
        let gw = Gateway::start(&db.arg(), &log).await;
        all.extend(stream_then_kill(gw, round).await);
        let gw = Gateway::start(&db.arg(), &log).await;
        let store = db.open().await;
        verify(&gw, &store, &mut all).await;
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

backend_tests!(sigkill_mid_stream_loses_and_duplicates_nothing);
