//! The console's speed targets (issue 30, docs/console/speed.md): with 100,000 bookings, 5,000
//! hotels and 60 days of traffic rollups, every console page answers p95 ≤ 200 ms and a booking
//! search by reference ≤ 20 ms.
//!
//! Each page is asked as a browser asks it: a `GET` through the console's whole router
//! (`ota_gateway::console::router`: the session and security layers, the handler, the library's
//! query, the HTML), in-process, logged in as an admin; the answer must be 200 and is read whole.
//!
//! The data, seeded once per run:
//! - 5,000 hotels: an import file made in memory, imported with `ota_gateway::import::import_file`
//!   (the CLI's `import`); 20 partners and 10 suppliers (250 hotels each) with
//!   `requestors::admin::add` (the CLI's `requestors add`); 5,000 audit entries with
//!   `audit::record`.
//! - 100,000 hotel bookings over the 20 partners, the 5,000 hotels, 2,000 surnames, a year of
//!   creation times and arrivals: written row by row with bound parameters (the store's own
//!   `Conn`, so every value has the type and text the gateway gives it) into exactly the tables
//!   and columns a booking's commit writes for the pages (`hotels/repo/save.rs`:
//!   `hotel_booking`, its lead guest in `hotel_booking_guest` with `surname_key`, its room in
//!   `hotel_booking_room`; `shared/history.rs`: `booking_history`, created and, for one in ten,
//!   cancelled; `shared/events.rs`: an `outbox_event` for a booking at a supplier's hotel;
//!   `outbox/repo.rs`: its `outbox_attempt`s — delivered, failing (pending, with failed pushes)
//!   or parked).
//! - 60 days of traffic rollups (`traffic/`: the rows the recorder's flush writes) for the 20
//!   partners × 8 operations: per minute for 3 hours, per hour for 9 days, per day for 60 days
//!   (what is kept), with error codes.
//!
//! Each page is run 3 times to warm up, then [`RUNS`] times; the table printed at the end gives
//! the median and p95 of those runs against the target. Criterion also reports each page.
//!
//! `cargo bench -p ota-gateway --bench console` (SQLite, a new file in a temporary directory;
//! with `BENCH_SQLITE=FILE` in FILE, kept, and a FILE seeded by an earlier run is used as it is:
//! opening it migrates it, so one seeding measures the pages before and after a migration);
//! with `BENCH_DATABASE_URL=postgres://…` (an empty database, e.g. from
//! `scripts/throwaway-postgres.sh start DIR --durable`) on PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use chrono::{DateTime, Days, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use http_body_util::BodyExt as _;
use ota_gateway::audit::Actor;
use ota_gateway::console::{ConsoleState, router};
use ota_gateway::requestors::admin::{NewRequestor, add as add_requestor};
use ota_gateway::shared::context::Role as RequestorRole;
use ota_gateway::store::StoreError;
use ota_gateway::store::{Conn, Scalar};
use ota_gateway::{AppState, Config, Location, Store};
use rust_decimal::Decimal;
use tower::ServiceExt as _;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const HOTELS: usize = 5_000;
const BOOKINGS: usize = 100_000;
const PARTNERS: usize = 20;
const SUPPLIERS: usize = 10;
const HOTELS_PER_SUPPLIER: usize = 250;
const AUDIT_ENTRIES: usize = 5_000;
const RUNS: usize = 40;
const OPERATIONS: [&str; 8] = [
    "hotelavailability",
    "hotelnbc",
    "hotelbook",
    "hotelmodify",
    "bookread",
    "bookcancel",
    "hotelinvcountnotif",
    "hotelavailnotif",
];
const SURNAMES: [&str; 50] = [
    "Smith",
    "Jones",
    "Miller",
    "Garcia",
    "Martin",
    "Bernard",
    "Dubois",
    "Rossi",
    "Russo",
    "Ferrari",
    "Esposito",
    "Bianchi",
    "Müller",
    "Schmidt",
    "Schneider",
    "Fischer",
    "Weber",
    "Meyer",
    "Wagner",
    "Becker",
    "Schulz",
    "Hoffmann",
    "Novak",
    "Horvat",
    "Kowalski",
    "Nowak",
    "Wiśniewski",
    "Johansson",
    "Andersson",
    "Nielsen",
    "Hansen",
    "Jensen",
    "Larsen",
    "Olsen",
    "Silva",
    "Santos",
    "Ferreira",
    "Pereira",
    "Oliveira",
    "Costa",
    "Lopez",
    "Gonzalez",
    "Rodriguez",
    "Fernandez",
    "Sanchez",
    "Perez",
    "Murphy",
    "Kelly",
    "O'Brien",
    "Walsh",
];

fn hotel_code(n: usize) -> String {
    format!("H{:05}", n + 1)
}
fn partner(n: usize) -> String {
    format!("PARTNER{:02}", n + 10)
}
fn supplier(n: usize) -> String {
    format!("SUP{:02}", n + 1)
}
fn reference(i: usize) -> String {
    format!("BK{:07}", i + 1)
}
fn surname(i: usize) -> String {
    format!("{}{}", SURNAMES[i % SURNAMES.len()], ["", "-Lee", "ova", "son", "er", "i", "ez", "berg"][(i / 50) % 8])
}
/// The hotel of booking `i`: spread over every hotel.
fn hotel_of(i: usize) -> usize {
    (i * 7_919) % HOTELS
}
/// When booking `i` was made: every ~5 minutes over the year before the seeding.
fn created_of(i: usize, start: DateTime<Utc>) -> DateTime<Utc> {
    start + chrono::Duration::seconds(i as i64 * 311)
}

/// The import file of the 5,000 hotels: one room type, one board, a year of rates each.
fn import_file() -> String {
    let hotels: Vec<String> = (0..HOTELS)
        .map(|n| {
            format!(
                r#"{{"code": "{}", "name": "Hotel {n}", "last_modified": "2026-01-01", "texts": {{"en": {{"description": "Bench hotel {n}"}}}}, "rooms": [{{"code": "STD", "units": 20, "texts": {{"en": {{"name": "Standard"}}}}}}], "rates": [{{"room": "STD", "currency": "EUR", "from": "2026-01-01", "to": "2027-12-31", "nightly": {{"BB": "90.00"}}}}]}}"#,
                hotel_code(n)
            )
        })
        .collect();
    format!(
        r#"{{"hotels": {{"boards": [{{"code": "BB", "name": "Bed and breakfast"}}], "hotels": [{}]}}}}"#,
        hotels.join(", ")
    )
}

/// Writes bookings `from..to` (see the module's doc): one transaction.
async fn write_bookings(c: &mut Conn<'_>, from: usize, to: usize, start: DateTime<Utc>) -> Result<(), StoreError> {
    for i in from..to {
        let created = created_of(i, start);
        let cancelled = i % 10 == 0;
        let updated = if cancelled { created + chrono::Duration::hours(20) } else { created };
        let arrival = created.date_naive() + Days::new((i % 90) as u64 + 1);
        let departure = arrival + Days::new((i % 7) as u64 + 1);
        let total = Decimal::new(9_000 * ((i % 7) as i64 + 1), 2);
        let (internal, client, owner) = (reference(i), format!("CL{:07}", i + 1), partner(i % PARTNERS));
        let status = if cancelled { "Cancelled" } else { "Reserved" };
        let hotel = hotel_code(hotel_of(i));
        let id = c
            .query_one::<Scalar<i64>>(
                "INSERT INTO hotel_booking (internal_ref, client_ref, requestor_id, company_name, company_code, company_short_name, status,
                                            created_at, updated_at, currency, total, arrival, departure, revision)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
                &[
                    &internal,
                    &client,
                    &owner,
                    &None::<String>,
                    &None::<String>,
                    &None::<String>,
                    &status,
                    &created.naive_utc(),
                    &updated.naive_utc(),
                    &"EUR",
                    &total,
                    &arrival,
                    &departure,
                    &(i as i64 + 1),
                ],
            )
            .await?
            .0;
        let name = surname(i);
        c.execute(
            "INSERT INTO hotel_booking_guest (booking_id, rph, position, age_qualifying_code, birth_date, name_prefix, given_name, surname, age, surname_key)
             VALUES ($1, 1, 0, '10', NULL, NULL, $2, $3, NULL, $4)",
            &[&id, &"Alex", &name, &name.to_lowercase()],
        )
        .await?;
        c.execute(
            "INSERT INTO hotel_booking_room (booking_id, position, index_number, status, hotel_code, room_type_code, board_code, start_date, end_date, total)
             VALUES ($1, 0, 1, 'Book', $2, 'STD', 'BB', $3, $4, $5)",
            &[&id, &hotel, &arrival, &departure, &total],
        )
        .await?;
        let history = "INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency)
                       VALUES ('hotel', $1, $2, 'partner', $3, $4, $5, $6, 'EUR')";
        c.execute(history, &[&internal, &"created", &owner, &created, &"Reserved", &total]).await?;
        if cancelled {
            c.execute(history, &[&internal, &"cancelled", &owner, &updated, &"Cancelled", &total]).await?;
        }
        // A booking at a supplier's hotel has its events to the hotel, and their pushes.
        let h = hotel_of(i);
        if h < SUPPLIERS * HOTELS_PER_SUPPLIER {
            let supplier = supplier(h / HOTELS_PER_SUPPLIER);
            let events: &[(&str, DateTime<Utc>)] =
                if cancelled { &[("new", created), ("cancelled", updated)] } else { &[("new", created)] };
            for (seq, (kind, at)) in events.iter().enumerate() {
                let ms = at.timestamp_millis();
                let (state, attempts) = match i % 100 {
                    1 => ("pending", 3),
                    3 => ("parked", 8),
                    _ => ("delivered", 1),
                };
                let event = c
                    .query_one::<Scalar<i64>>(
                        "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
                         VALUES ('hotel', $1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
                        &[&internal, &hotel, &(seq as i64 + 1), &supplier, kind, &(i as i64 + 1), &ms, &ms],
                    )
                    .await?
                    .0;
                for n in 0..attempts {
                    let at = ms + n * 60_000;
                    let ok = state == "delivered";
                    let (outcome, status, error) = if ok {
                        ("delivered", Some(200), None)
                    } else if state == "parked" && n == attempts - 1 {
                        ("parked", Some(500), Some("HTTP 500 from the receiver".to_string()))
                    } else {
                        ("failed", Some(503), Some("HTTP 503 from the receiver".to_string()))
                    };
                    c.execute(
                        "INSERT INTO outbox_attempt (event_id, outcome, at, gateway, url, http_status, error, latency_ms, answer, answer_bytes, retransmission, requested_by)
                         VALUES ($1, $2, $3, 'bench/1/x', 'https://pms.example/ota', $4, $5, 42, $6, 120, $7, NULL)",
                        &[&event, &outcome, &at, &status.map(i64::from), &error, &"<OTA_HotelResNotifRS/>", &(n > 0)],
                    )
                    .await?;
                }
                let last = ms + (attempts - 1) * 60_000;
                match state {
                    "delivered" => {
                        c.execute(
                            "UPDATE outbox_event SET state = 'delivered', attempts = 1, delivered_at = $2 WHERE id = $1",
                            &[&event, &last],
                        )
                        .await?
                    }
                    _ => {
                        c.execute(
                            "UPDATE outbox_event SET state = $2, attempts = $3, next_attempt_at = $4, last_error = 'HTTP 503 from the receiver' WHERE id = $1",
                            &[&event, &state, &attempts, &(last + 600_000)],
                        )
                        .await?
                    }
                };
            }
        }
    }
    Ok(())
}

/// 60 days of rollups for the partners × [`OPERATIONS`]: the steps and spans the gateway keeps.
async fn write_traffic(
    c: &mut Conn<'_>,
    now: DateTime<Utc>,
    partners: std::ops::Range<usize>,
) -> Result<(), StoreError> {
    let t = now.timestamp();
    for p in partners {
        let who = partner(p);
        for (o, op) in OPERATIONS.iter().enumerate() {
            for (step, count) in [(60_i64, 180_i64), (3_600, 216), (86_400, 60)] {
                let last = t.div_euclid(step) * step;
                for k in 0..count {
                    let at = last - k * step;
                    let requests = step / 60 * (3 + ((p + o) % 5) as i64);
                    let errors = requests / 50;
                    c.execute(
                        "INSERT INTO traffic (step, at, partner, operation, requests, success, warning, ota_errors, http_4xx, http_5xx, http_429,
                                              looks, quotes, bookings, l02, l05, l08, l12)
                         VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, 0, $8, $9, 0, $10, $11, $11, $11, $12)",
                        &[
                            &step,
                            &at,
                            &who,
                            op,
                            &requests,
                            &(requests - errors),
                            &errors,
                            &(errors / 4),
                            &(if o < 2 { requests } else { 0 }),
                            &(if o == 2 { requests - errors } else { 0 }),
                            &(requests / 4),
                            &(requests - 3 * (requests / 4)),
                        ],
                    )
                    .await?;
                    if errors > 0 {
                        c.execute(
                            "INSERT INTO traffic_errors (step, at, partner, operation, error_type, error_code, n) VALUES ($1, $2, $3, $4, '3', '392', $5)",
                            &[&step, &at, &who, op, &errors],
                        )
                        .await?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The store, seeded (see the module's doc); the time of the seeding.
async fn seed(store: &Store, dir: &std::path::Path) {
    let started = Instant::now();
    let actor = Actor { name: "bench".into(), address: None };
    let file = dir.join("hotels.json");
    std::fs::write(&file, import_file()).unwrap();
    ota_gateway::import::import_file(store, &file, &ota_gateway::audit::Actor::cli()).await.unwrap();
    eprintln!("seed: {HOTELS} hotels imported in {:.1?}", started.elapsed());
    for p in 0..PARTNERS {
        add_requestor(store, &actor, requestor(&partner(p), RequestorRole::Distributor)).await.unwrap();
    }
    for s in 0..SUPPLIERS {
        let hotels: BTreeSet<String> =
            (s * HOTELS_PER_SUPPLIER..(s + 1) * HOTELS_PER_SUPPLIER).map(hotel_code).collect();
        let role = RequestorRole::Supplier { hotels: Arc::new(hotels) };
        add_requestor(store, &actor, requestor(&supplier(s), role)).await.unwrap();
    }
    store
        .write_now(move |c| {
            Box::pin(async move {
                for n in 0..AUDIT_ENTRIES {
                    let who = Actor { name: format!("operator{}", n % 7), address: None };
                    let target = partner(n % PARTNERS);
                    ota_gateway::audit::record(
                        c,
                        &who,
                        "requestor.set_limits",
                        &target,
                        Some("rate 5/s"),
                        Some("rate 10/s"),
                    )
                    .await?;
                }
                Ok::<_, StoreError>(())
            })
        })
        .await
        .unwrap();
    eprintln!("seed: partners, suppliers and audit in {:.1?}", started.elapsed());
    let start = Utc::now() - chrono::Duration::days(365);
    const BATCH: usize = 5_000;
    for from in (0..BOOKINGS).step_by(BATCH) {
        store.write_now(move |c| Box::pin(write_bookings(c, from, (from + BATCH).min(BOOKINGS), start))).await.unwrap();
    }
    eprintln!("seed: {BOOKINGS} bookings in {:.1?}", started.elapsed());
    let now = Utc::now();
    for p in 0..PARTNERS {
        store.write_now(move |c| Box::pin(write_traffic(c, now, p..p + 1))).await.unwrap();
    }
    eprintln!("seed: traffic in {:.1?}", started.elapsed());
}

fn requestor(id: &str, role: RequestorRole) -> NewRequestor {
    NewRequestor {
        id: id.into(),
        id_context: "BENCH".into(),
        name: format!("Bench {id}"),
        password: "bench-password-0123456789".into(),
        active: true,
        allow: Vec::new(),
        dialect: ota_messages::Dialect::Service,
        role,
    }
}

/// A page: its name, its address, its target.
struct Page {
    name: &'static str,
    path: String,
    target_ms: u64,
}

fn pages(start: DateTime<Utc>) -> Vec<Page> {
    let late = 1_000;
    let late_cursor =
        format!("created-desc~{}~hotel~{}", created_of(late, start).format("%Y-%m-%dT%H:%M:%S%.6fZ"), late + 1);
    let arrival = (created_of(BOOKINGS / 2, start).date_naive() + Days::new(10)).to_string();
    let arrival_to = (created_of(BOOKINGS / 2, start).date_naive() + Days::new(12)).to_string();
    let p = |name, path: String, target_ms| Page { name, path, target_ms };
    vec![
        p("home", "/".into(), 200),
        p("traffic hour", "/traffic?window=hour".into(), 200),
        p("traffic 7 days", "/traffic?window=week".into(), 200),
        p("traffic 60 days", "/traffic?window=days".into(), 200),
        p("bookings by reference", format!("/bookings?ref={}", reference(42_424)), 20),
        p("bookings by client reference", "/bookings?ref=CL0042425".into(), 20),
        p("bookings by surname", "/bookings?surname=mill".into(), 200),
        p("bookings by hotel", format!("/bookings?hotel={}", hotel_code(1_234)), 200),
        p("bookings by arrival dates", format!("/bookings?arrival-from={arrival}&arrival-to={arrival_to}"), 200),
        p("bookings first page", "/bookings".into(), 200),
        p("bookings late page", format!("/bookings?after={late_cursor}"), 200),
        p("booking page", format!("/bookings/{}", reference(40_001)), 200),
        p("deliveries", "/deliveries".into(), 200),
        p("deliveries by booking", format!("/deliveries?ref={}", reference(hotel_first_supplied(40_000))), 200),
        p("deliveries by supplier", "/deliveries?supplier=SUP03".into(), 200),
        p("deliveries failing", "/deliveries?supplier=SUP03&failing=on".into(), 200),
        p("deliveries parked", "/deliveries?supplier=SUP03&parked=on".into(), 200),
        p("partners", "/partners".into(), 200),
        p("partner", format!("/partners/{}", partner(3)), 200),
        p("audit", "/audit".into(), 200),
        p("extranet home", "/extranet?supplier=SUP02".into(), 200),
        p("extranet bookings", "/extranet/bookings?supplier=SUP02".into(), 200),
        p("hotel calendar", format!("/extranet/hotels/{}/calendar", hotel_code(260)), 200),
    ]
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let _context = rt.enter();
    let dir = tempfile::tempdir().unwrap();
    // BENCH_SQLITE=FILE: the SQLite database in FILE, kept; a FILE already seeded by an
    // earlier run is used as it is (migrated by the store's opening), not seeded again.
    let location = match (std::env::var("BENCH_DATABASE_URL"), std::env::var("BENCH_SQLITE")) {
        (Ok(url), _) => Location::Postgres(url),
        (Err(_), Ok(file)) => Location::Sqlite(file.into()),
        (Err(_), Err(_)) => Location::Sqlite(dir.path().join("console.db")),
    };
    let backend = if matches!(location, Location::Postgres(_)) { "postgres" } else { "sqlite" };
    let (app, start) = rt.block_on(async {
        let store = Store::open(&location).await.unwrap();
        // The time of the first booking: every booking's time follows from it (`created_of`).
        let first_booking = |store: Store| async move {
            let first = reference(0);
            let found: Option<Scalar<chrono::NaiveDateTime>> = store
                .read(move |c| {
                    Box::pin(async move {
                        c.query_opt("SELECT created_at FROM hotel_booking WHERE internal_ref = $1", &[&first]).await
                    })
                })
                .await
                .unwrap();
            found.map(|Scalar(t)| t.and_utc())
        };
        let start = match first_booking(store.clone()).await {
            Some(start) => {
                eprintln!("seed: the database is seeded already (its first booking made at {start})");
                start
            }
            None => {
                seed(&store, dir.path()).await;
                ota_gateway::operators::admin::add(
                    &store,
                    &Actor::cli(),
                    "bench",
                    ota_gateway::operators::Role::Admin,
                    "bench-password-0123456789".into(),
                )
                .await
                .unwrap();
                first_booking(store.clone()).await.unwrap()
            }
        };
        (AppState::new(store, Config::default()).await.unwrap(), start)
    });
    let state = ConsoleState::new(app);
    let (session, _) = rt
        .block_on(ota_gateway::operators::session::login(
            &state.app.store,
            &state.throttle,
            "bench",
            "bench-password-0123456789",
            None,
            state.timeouts(),
        ))
        .unwrap();
    let cookie = format!("{}={session}", ota_gateway::console::security::COOKIE);
    let console = router(state);
    let get = |path: &str| {
        let request = axum::http::Request::get(path).header("cookie", &cookie).body(Body::empty()).unwrap();
        let console = console.clone();
        rt.block_on(async move {
            let answer = console.oneshot(request).await.unwrap();
            let status = answer.status();
            let body = answer.into_body().collect().await.unwrap().to_bytes();
            (status, body)
        })
    };

    let mut table = Vec::new();
    let mut g = c.benchmark_group(format!("console_{backend}"));
    g.sample_size(10).measurement_time(Duration::from_secs(1)).warm_up_time(Duration::from_millis(200));
    // BENCH_PAGES: a comma-separated list of page names to measure (all when unset).
    let only: Option<Vec<String>> =
        std::env::var("BENCH_PAGES").ok().map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    for page in pages(start).into_iter().filter(|p| only.as_ref().is_none_or(|o| o.iter().any(|n| n == p.name))) {
        let (status, body) = get(&page.path);
        assert_eq!(status, 200, "{} ({}): {}", page.name, page.path, String::from_utf8_lossy(&body));
        for _ in 0..2 {
            get(&page.path);
        }
        // RUNS runs, or as many as fit in 10 s (at least 5) for a slow page.
        let began = Instant::now();
        let mut runs: Vec<Duration> = Vec::new();
        while runs.len() < RUNS && (runs.len() < 5 || began.elapsed() < Duration::from_secs(10)) {
            let t = Instant::now();
            let (status, body) = get(&page.path);
            runs.push(t.elapsed());
            assert!(status == 200 && !body.is_empty());
        }
        if began.elapsed() < Duration::from_secs(10) {
            let criterion_runs = Mutex::new(Vec::new());
            g.bench_function(page.name, |b| {
                b.iter_custom(|iters| {
                    let t = Instant::now();
                    for _ in 0..iters {
                        let t = Instant::now();
                        get(&page.path);
                        criterion_runs.lock().unwrap().push(t.elapsed());
                    }
                    t.elapsed()
                })
            });
            runs.extend(criterion_runs.into_inner().unwrap());
        }
        runs.sort();
        let row = (
            page.name,
            page.path.clone(),
            percentile(&runs, 50.0),
            percentile(&runs, 95.0),
            page.target_ms,
            runs.len(),
            body.len(),
        );
        eprintln!("measured: {row:?}");
        table.push(row);
    }
    g.finish();
    println!("\n{backend}: {BOOKINGS} bookings, {HOTELS} hotels, 60 days of traffic");
    println!("| page | median ms | p95 ms | target ms | met | runs | HTML bytes |");
    println!("|---|---:|---:|---:|---|---:|---:|");
    for (name, path, median, p95, target, runs, bytes) in table {
        let met = if p95 <= Duration::from_millis(target) { "yes" } else { "NO" };
        println!(
            "| {name} (`{path}`) | {:.2} | {:.2} | {target} | {met} | {runs} | {bytes} |",
            median.as_secs_f64() * 1e3,
            p95.as_secs_f64() * 1e3,
        );
    }
}

/// The first booking from `i` at a supplier's hotel (it has deliveries).
fn hotel_first_supplied(i: usize) -> usize {
    (i..).find(|&j| hotel_of(j) < SUPPLIERS * HOTELS_PER_SUPPLIER).unwrap()
}

criterion_group!(benches, bench);
criterion_main!(benches);
