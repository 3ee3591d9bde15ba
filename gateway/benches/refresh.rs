//! What a supply change costs each gateway (issue 32, docs/scaling.md): 5,000 hotels of 10 room
//! types sold with 4 rate plans, one of them with every value set for 400 nights (rooms on sale,
//! a minimum stay and each plan's amount: 16,400 values with their stamps), then a one-night
//! change of that hotel and the gateway's refresh that takes it in
//! (`ota_gateway::content::ContentCache::refresh`: reading the change and making the new
//! snapshot). Only the refresh is timed; the change is written before each one. A refresh that
//! finds nothing is the floor.
//!
//! `cargo bench -p ota-gateway --bench refresh` (SQLite); with
//! `BENCH_DATABASE_URL=postgres://…` (an empty database) on PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ota_gateway::Store;
use ota_gateway::audit::Actor;
use ota_gateway::content::ContentCache;
use ota_gateway::hotels::calendar;

#[path = "support/calendar_hotels.rs"]
mod calendar_hotels;
use calendar_hotels::{PLANS, ask, import_file};

#[path = "support/database.rs"]
mod database;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const HOTELS: usize = 5_000;
const HOTEL: &str = "BENCH00000";

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let _context = rt.enter();
    let dir = tempfile::tempdir().unwrap();
    let location = database::location(dir.path());
    let actor = Actor { name: "bench".into(), address: None };
    let today = chrono::Utc::now().date_naive() + chrono::Days::new(1);
    let (store, cache): (Store, _) = rt.block_on(async {
        let store = Store::open(&location).await.unwrap();
        let file = dir.path().join("hotels.json");
        std::fs::write(&file, import_file((0..HOTELS).map(|n| format!("BENCH{n:05}")))).unwrap();
        ota_gateway::import::import_file(&store, &file, &Actor::cli()).await.unwrap();
        let cache = ContentCache::load(store.clone()).await.unwrap();
        // Every value of one hotel set for 400 nights: rooms, a minimum stay, each plan's amount.
        let now = chrono::Utc::now();
        let catalogue = cache.get().hotels.clone();
        for a in [ask(today, 400, "rooms", "4", &[]), ask(today, 400, "min-stay", "2", &[])] {
            calendar::edit(&store, &catalogue, &actor, &a, HOTEL, now).await.unwrap();
        }
        for p in PLANS {
            calendar::edit(&store, &catalogue, &actor, &ask(today, 400, "amount", "99.50", &[p]), HOTEL, now)
                .await
                .unwrap();
        }
        assert!(cache.refresh().await.unwrap(), "the values are taken in");
        (store, cache)
    });

    let mut g = c.benchmark_group("refresh");
    g.sample_size(20).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(1));
    g.bench_function("nothing changed", |b| b.iter(|| assert!(!rt.block_on(cache.refresh()).unwrap())));
    let mut cents = 0u32;
    g.bench_function("one night of a hotel with 16,400 values set, of 5,000 hotels", |b| {
        b.iter_custom(|iterations| {
            let mut spent = Duration::ZERO;
            for _ in 0..iterations {
                cents = (cents + 1) % 100;
                let a = ask(today + chrono::Days::new(30), 1, "amount", &format!("70.{cents:02}"), &["B1"]);
                let catalogue = cache.get().hotels.clone();
                rt.block_on(calendar::edit(&store, &catalogue, &actor, &a, HOTEL, chrono::Utc::now())).unwrap();
                let started = Instant::now();
                assert!(rt.block_on(cache.refresh()).unwrap(), "the change is taken in");
                spent += started.elapsed();
            }
            black_box(cache.get());
            spent
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
