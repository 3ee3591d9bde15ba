//! A bounded load test, on both backends: concurrent clients for a fixed time against a
//! gateway process of its own, mixing activity search, availability, Quote and Commit —
//! Commits with unique Client references, some repeated (idempotence), some racing for the
//! last places of a 2-place activity. Then: no 5xx, no transport error, every successful
//! Commit stored exactly once with the Internal reference it was answered with, no overbooking
//! (places left never negative, always capacity minus what is booked), and a flat resident
//! memory. The figures (requests, req/s, p50/p90/p99 latency per operation, RSS) are printed.
//!
//! By default a short run (64 clients, 4 s: part of every test run); the real one:
//!
//! ```sh
//! LOAD_TASKS=300 LOAD_SECS=20 cargo test --release -p ota-gateway --test it load:: -- --nocapture
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::support;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{NaiveDate, Utc};
use ota_gateway::Client;
use ota_messages::common::{ErrorCode, IdContext};
use ota_messages::runtime::{Message, Response};
use ota_messages::tour_activity_book::OtaTourActivityBookRs;
use support::{Backend, GatewayProcess, Rng, TestDb, backend_tests};

const XML: &str = "application/xml";
const POS: &str = r#"<POS><Source><RequestorID Type="22" ID="DEMO" ID_Context="DEMO-DIST"/></Source><Source><RequestorID Type="88" ID="DEMO" MessagePassword="demo-password"/></Source></POS>"#;
const NS: &str = "http://www.opentravel.org/OTA/2003/05";

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Resident memory of the gateway process `pid`, in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn day(n: u64) -> NaiveDate {
    Utc::now().date_naive() + chrono::Duration::days(n as i64)
}

// ---------------------------------------------------------------------------------------------
// Requests

const HOTELS: &[&str] = &["HTL00042", "HTL00077", "HTL00110"];

fn search_xml(rng: &mut Rng) -> String {
    let start = day(1 + rng.below(60));
    let end = start + chrono::Duration::days(rng.below(14) as i64);
    format!(
        r#"<OTA_TourActivitySearchRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="en">{POS}<SearchCriteria><DateTimePref Start="{start}" End="{end}"/><LocationPref Context="Source"><Region RegionCode="HotelCode">{}</Region></LocationPref></SearchCriteria></OTA_TourActivitySearchRQ>"#,
        rng.pick(HOTELS)
    )
}

fn avail_xml(rng: &mut Rng) -> String {
    let start = day(1 + rng.below(60));
    let end = start + chrono::Duration::days(rng.below(7) as i64);
    let instance = *rng.pick(&["", r#" Instance="MF001""#, r#" Instance="MF002""#]);
    let pos = POS.replacen(r#"ID_Context="DEMO-DIST""#, &format!(r#"ID_Context="DEMO-DIST"{instance}"#), 1);
    format!(
        r#"<OTA_TourActivityAvailRQ xmlns="{NS}" Version="2011.2" PrimaryLangID="en">{pos}<TourActivity><BasicInfo/><Location Context="Source"><Region RegionCode="HotelCode">{}</Region></Location><Schedule StartPeriod="{start}" EndPeriod="{end}"/><ParticipantCount Quantity="{}"><QualifierInfo>10</QualifierInfo></ParticipantCount><ParticipantCount Quantity="{}"><QualifierInfo>8</QualifierInfo></ParticipantCount></TourActivity></OTA_TourActivityAvailRQ>"#,
        rng.pick(HOTELS),
        1 + rng.below(3),
        rng.below(3)
    )
}

/// What a booking request books.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Target {
    activity: &'static str,
    product: &'static str,
    service: &'static str,
    date: NaiveDate,
}

/// Daily services with 20 places, and the 2-place sunset cruise (the race).
fn spread_target(rng: &mut Rng) -> Target {
    let (activity, product, service) = *rng.pick(&[
        ("LESPMIBKUI", "TE0CC00A", "TIC"),
        ("LESPMIBKUI", "TE0CC00A", "TRF"),
        ("LESTFSLORO", "TFLORO01", "TIC"),
    ]);
    Target { activity, product, service, date: day(1 + rng.below(730)) }
}

fn race_target(rng: &mut Rng) -> Target {
    Target { activity: "LESPMICATA", product: "CATSUNSET", service: "TIC", date: day(1 + rng.below(10)) }
}

fn book_xml(status: &str, t: &Target, participants: u64, client_ref: Option<&str>) -> String {
    let people: String = (1..=participants)
        .map(|i| {
            format!(
                r#"<ParticipantInfo><Category QualifierInfo="10"/><Individual Age="{}" ParticipantID="{i}"><GivenName>Load</GivenName><Surname>Tester {i}</Surname></Individual></ParticipantInfo>"#,
                30 + i
            )
        })
        .collect();
    let pickup = if t.service == "TRF" {
        format!(r#"<PickupDropoff DateTime="{}T08:50:00" LocationName="HTL00042" PickupInd="true"/>"#, t.date)
    } else {
        String::new()
    };
    let ext = client_ref
        .map(|r| format!(r#"<TPA_Extensions><UniqueID Type="36" ID="{r}" ID_Context="Client"/></TPA_Extensions>"#))
        .unwrap_or_default();
    format!(
        r#"<OTA_TourActivityBookRQ xmlns="{NS}" Version="2011.2" ResStatus="{status}">{POS}<BookingInfo><BasicInfo TourActivityID="{}" SupplierProductCode="{}" SupplierServiceCode="{}"/>{people}<Schedule Start="{d}T00:00:00" End="{d}T23:59:59"/>{pickup}</BookingInfo>{ext}</OTA_TourActivityBookRQ>"#,
        t.activity,
        t.product,
        t.service,
        d = t.date
    )
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Op {
    Search,
    Availability,
    Quote,
    Commit,
    CommitRace,
    CommitRepeat,
}

#[derive(Default)]
struct Stats {
    latencies: HashMap<Op, Vec<u32>>,
    server_errors: u64,
    transport_errors: Vec<String>,
    /// Successful Commits: Client reference → (Internal reference, target, participants).
    booked: HashMap<String, (String, Target, u64)>,
    /// Commits refused for lack of places.
    full: u64,
    repeats: u64,
    /// Quotes answered "no places left".
    quotes_full: u64,
    /// Other business answers (unexpected).
    unexpected: Vec<String>,
}

/// Task-local record, merged at the end.
#[derive(Default)]
struct Local {
    stats: Stats,
    mine: Vec<(String, String, Target, u64)>,
}

async fn run_task(id: u64, client: Client, stop: Arc<AtomicBool>, seq: Arc<AtomicU64>) -> Stats {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (id + 1).wrapping_mul(0x1000_0000_01B3));
    let mut local = Local::default();
    while !stop.load(Ordering::Relaxed) {
        let roll = rng.below(100);
        let (op, path, xml, commit) = match roll {
            0..=29 => (Op::Search, "/activitysearch", search_xml(&mut rng), None),
            30..=54 => (Op::Availability, "/activityavailability", avail_xml(&mut rng), None),
            55..=74 => {
                let t = spread_target(&mut rng);
                (Op::Quote, "/activitybook", book_xml("Quote", &t, 1 + rng.below(3), None), None)
            }
            75..=84 if !local.mine.is_empty() => {
                // Repeat one of this task's successful Commits: same answer, nothing taken.
                let (r, internal, t, n) = local.mine[rng.below(local.mine.len() as u64) as usize].clone();
                (
                    Op::CommitRepeat,
                    "/activitybook",
                    book_xml("Commit", &t, n, Some(&r)),
                    Some((r, t, n, Some(internal))),
                )
            }
            75..=89 => {
                let t = race_target(&mut rng);
                let r = format!("LOAD-{}", seq.fetch_add(1, Ordering::Relaxed));
                let n = 1 + rng.below(2);
                (Op::CommitRace, "/activitybook", book_xml("Commit", &t, n, Some(&r)), Some((r, t, n, None)))
            }
            _ => {
                let t = spread_target(&mut rng);
                let r = format!("LOAD-{}", seq.fetch_add(1, Ordering::Relaxed));
                let n = 1 + rng.below(3);
                (Op::Commit, "/activitybook", book_xml("Commit", &t, n, Some(&r)), Some((r, t, n, None)))
            }
        };
        let started = Instant::now();
        let answer = client.send_raw(path, xml, XML).await;
        let took = started.elapsed().as_micros().min(u32::MAX as u128) as u32;
        local.stats.latencies.entry(op).or_default().push(took);
        let (status, body) = match answer {
            Ok((status, _, body)) => (status, body),
            Err(e) => {
                local.stats.transport_errors.push(format!("{op:?}: {e}"));
                continue;
            }
        };
        if status.is_server_error() {
            local.stats.server_errors += 1;
            continue;
        }
        if status != reqwest::StatusCode::OK {
            local.stats.unexpected.push(format!("{op:?}: HTTP {status}: {body}"));
            continue;
        }
        let Some((r, t, n, repeated_of)) = commit else {
            if op == Op::Quote && body.contains(r#"Code="427""#) {
                // The date is sold out (Commits took the places): a valid answer.
                local.stats.quotes_full += 1;
            } else if !body.contains("<Success/>") {
                local.stats.unexpected.push(format!("{op:?}: {body}"));
            }
            continue;
        };
        let rs = OtaTourActivityBookRs::from_xml(&body).unwrap_or_else(|e| panic!("{e}\n{body}"));
        if rs.is_success() {
            let d = rs.reservation_details.as_ref().unwrap();
            let internal =
                d.confirmation.iter().find(|c| c.id_context == Some(IdContext::Internal)).unwrap().id.clone();
            match repeated_of {
                Some(first) => {
                    local.stats.repeats += 1;
                    if internal != first || rs.warnings.is_some() {
                        local.stats.unexpected.push(format!("repeat of {r}: {internal} (first {first}), {body}"));
                    }
                }
                None => {
                    local.mine.push((r.clone(), internal.clone(), t.clone(), n));
                    if local.stats.booked.insert(r.clone(), (internal, t, n)).is_some() {
                        local.stats.unexpected.push(format!("{r} booked twice"));
                    }
                }
            }
        } else {
            let code = rs.errors().and_then(|e| e.error.first()).and_then(|e| e.code.clone());
            if code == Some(ErrorCode::NoAvailability) && repeated_of.is_none() {
                local.stats.full += 1;
            } else {
                local.stats.unexpected.push(format!("{op:?} {r}: {body}"));
            }
        }
    }
    local.stats
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

// ---------------------------------------------------------------------------------------------
// The test

pub(crate) async fn load(b: Backend) {
    let tasks = env_or("LOAD_TASKS", 64);
    let secs = env_or("LOAD_SECS", 4);
    let db = TestDb::new(b).await;
    let gateway = GatewayProcess::start(&db.arg(), &[]).await;
    let pid = gateway.pid();
    let client = gateway.client();
    // Warm up: the first login pays argon2.
    let (status, _, _) = client.send_raw("/activitysearch", search_xml(&mut Rng(7)), XML).await.unwrap();
    assert_eq!(status, reqwest::StatusCode::OK);
    let rss_start = rss_kib(pid);

    let stop = Arc::new(AtomicBool::new(false));
    let seq = Arc::new(AtomicU64::new(0));
    let rss_samples = Arc::new(Mutex::new(vec![(0.0, rss_start)]));
    let started = Instant::now();
    let sampler = {
        let (stop, samples) = (stop.clone(), rss_samples.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(500)).await;
                samples.lock().unwrap().push((started.elapsed().as_secs_f64(), rss_kib(pid)));
            }
        })
    };
    let handles: Vec<_> =
        (0..tasks).map(|i| tokio::spawn(run_task(i, client.clone(), stop.clone(), seq.clone()))).collect();
    tokio::time::sleep(Duration::from_secs(secs) / 2).await;
    let rss_middle = rss_kib(pid);
    tokio::time::sleep(Duration::from_secs(secs) / 2).await;
    stop.store(true, Ordering::Relaxed);
    let mut stats = Stats::default();
    for h in handles {
        let s = h.await.unwrap();
        for (op, mut l) in s.latencies {
            stats.latencies.entry(op).or_default().append(&mut l);
        }
        stats.server_errors += s.server_errors;
        stats.transport_errors.extend(s.transport_errors);
        for (r, v) in s.booked {
            assert!(stats.booked.insert(r.clone(), v).is_none(), "{r} booked by two tasks");
        }
        stats.full += s.full;
        stats.repeats += s.repeats;
        stats.quotes_full += s.quotes_full;
        stats.unexpected.extend(s.unexpected);
    }
    let elapsed = started.elapsed();
    sampler.await.unwrap();
    let rss_end = rss_kib(pid);
    let rss_max = rss_samples.lock().unwrap().iter().map(|(_, r)| *r).max().unwrap_or(0);

    // The figures.
    let total: usize = stats.latencies.values().map(Vec::len).sum();
    println!(
        "load: {tasks} tasks for {elapsed:.1?}: {total} requests, {:.0} req/s",
        total as f64 / elapsed.as_secs_f64()
    );
    println!(
        "  {:<14} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "operation", "count", "p50 ms", "p90 ms", "p99 ms", "max ms", "req/s"
    );
    let mut ops: Vec<_> = stats.latencies.iter_mut().collect();
    ops.sort_by_key(|(op, _)| **op);
    for (op, l) in ops {
        l.sort_unstable();
        println!(
            "  {:<14} {:>8} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.0}",
            format!("{op:?}"),
            l.len(),
            percentile(l, 0.50),
            percentile(l, 0.90),
            percentile(l, 0.99),
            percentile(l, 1.0),
            l.len() as f64 / elapsed.as_secs_f64()
        );
    }
    println!(
        "  bookings: {} made, {} refused (no places left), {} repeats answered with the first booking; {} quotes found the date sold out",
        stats.booked.len(),
        stats.full,
        stats.repeats,
        stats.quotes_full
    );
    println!(
        "  RSS: start {} MiB, middle {} MiB, end {} MiB, max {} MiB (the gateway process)",
        rss_start / 1024,
        rss_middle / 1024,
        rss_end / 1024,
        rss_max / 1024
    );
    let series: Vec<String> =
        rss_samples.lock().unwrap().iter().step_by(4).map(|(t, r)| format!("{t:.0}s {}", r / 1024)).collect();
    println!("  RSS every 2 s (MiB): {}", series.join(", "));

    assert_eq!(stats.server_errors, 0, "5xx answers");
    assert!(
        stats.transport_errors.is_empty(),
        "{} transport errors, e.g. {:?}",
        stats.transport_errors.len(),
        stats.transport_errors.first()
    );
    assert!(
        stats.unexpected.is_empty(),
        "{} unexpected answers, e.g. {:?}",
        stats.unexpected.len(),
        stats.unexpected.first()
    );
    assert!(
        !stats.booked.is_empty() && stats.full > 0 && stats.repeats > 0,
        "the mix did not exercise bookings, races and repeats"
    );

    // Every successful Commit is in the database exactly once, as answered; nothing else is.
    ota_gateway::store::row! {
        /// A DEMO booking as stored.
        struct StoredRow { client_ref: String, internal: String, activity: String, product: String, service: String, date: NaiveDate, participants: i64 }
    }
    ota_gateway::store::row! {
        /// Places booked of a service on a date, and the participants of its live bookings.
        struct PlacesRow { what: String, places: i64, participants: i64, capacity: i64 }
    }
    let store = db.open().await;
    let rows: Vec<StoredRow> = store
        .read(|c| {
            Box::pin(c.query(
                "SELECT b.client_reference, b.reference, b.activity_id, b.product_code, b.service_code, b.service_date,
                        (SELECT count(*) FROM activity_booking_participant p WHERE p.booking_id = b.id)
                 FROM activity_booking b WHERE b.requestor_id = 'DEMO'",
                &[],
            ))
        })
        .await
        .unwrap();
    let mut problems = Vec::new();
    if rows.len() != stats.booked.len() {
        problems.push(format!("{} bookings stored, {} answered with Success", rows.len(), stats.booked.len()));
    }
    for r in rows {
        match stats.booked.get(&r.client_ref) {
            None => problems.push(format!("{}: stored, never answered with Success", r.client_ref)),
            Some((i, t, p)) => {
                let same = *i == r.internal
                    && t.activity == r.activity
                    && t.product == r.product
                    && t.service == r.service
                    && t.date == r.date
                    && *p as i64 == r.participants;
                if !same {
                    problems.push(format!(
                        "{}: stored {} ×{}, answered {i} {t:?} ×{p}",
                        r.client_ref, r.internal, r.participants
                    ));
                }
            }
        }
    }
    // No overbooking: places booked = what the bookings hold, within the places offered.
    let places: Vec<PlacesRow> = store
        .read(|c| {
            Box::pin(c.query(
                "SELECT pb.activity_id || '/' || pb.product_code || '/' || pb.service_code, pb.places,
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
        .unwrap();
    let mut full = 0;
    for r in &places {
        if r.places != r.participants || r.places > r.capacity {
            problems.push(format!(
                "{}: {} places booked of {}, {} participants",
                r.what, r.places, r.capacity, r.participants
            ));
        }
        if r.places == r.capacity {
            full += 1;
        }
    }
    println!("  places: {} service/dates, {full} sold out, all consistent with the bookings", places.len());
    assert!(
        problems.is_empty(),
        "{} problems, e.g.:\n{}",
        problems.len(),
        problems.iter().take(10).cloned().collect::<Vec<_>>().join("\n")
    );
    let per_race_date: BTreeMap<NaiveDate, u64> = stats
        .booked
        .values()
        .filter(|(_, t, _)| t.activity == "LESPMICATA")
        .fold(BTreeMap::new(), |mut m, (_, t, n)| {
            *m.entry(t.date).or_default() += n;
            m
        });
    assert!(per_race_date.values().all(|n| *n <= 2), "the 2-place activity overbooked: {per_race_date:?}");

    // Memory stays flat under the steady load: from the middle of the run (every task's
    // connection and the pools warmed up) to its end, the gateway's own resident size (the
    // suites running beside this one are other processes): 1 MiB or less here, 32 allowed; and
    // the warm-up (connections, pools, caches: about 10 MiB) within 64 MiB of the start.
    assert!(
        rss_end < rss_middle + 32 * 1024,
        "RSS grew under steady load from {} MiB to {} MiB",
        rss_middle / 1024,
        rss_end / 1024
    );
    assert!(rss_max < rss_start + 64 * 1024, "RSS grew from {} MiB to {} MiB", rss_start / 1024, rss_max / 1024);
}

backend_tests!(load);
