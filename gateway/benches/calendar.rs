//! The hotel calendar's two figures (issue 31, docs/hotels/calendar.md): a page of one hotel with
//! 10 room types × 4 rate plans × 400 nights (`ota_gateway::hotels::calendar::show`, what the
//! console's page and `calendar show` ask, and the grid's HTML), every cell set by an edit (so
//! each has a source); and an edit of 365 nights × 10 room types (3,650 values, through the
//! notifications' path: one transaction, stamped, audited), closing and opening in turn.
//!
//! `cargo bench -p ota-gateway --bench calendar` (SQLite); with
//! `BENCH_DATABASE_URL=postgres://…` (an empty database) on PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ota_gateway::Store;
use ota_gateway::audit::Actor;
use ota_gateway::content::Content;
use ota_gateway::hotels::calendar;

#[path = "support/calendar_hotels.rs"]
mod calendar_hotels;
use calendar_hotels::{PLANS, ask, import_file};

#[path = "support/database.rs"]
mod database;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const HOTEL: &str = "BENCH0001";

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let _context = rt.enter();
    let dir = tempfile::tempdir().unwrap();
    let location = database::location(dir.path());
    let actor = Actor { name: "bench".into(), address: None };
    let (store, content) = rt.block_on(async {
        let store = Store::open(&location).await.unwrap();
        let file = dir.path().join("hotel.json");
        std::fs::write(&file, import_file(std::iter::once(HOTEL.to_string()))).unwrap();
        ota_gateway::import::import_file(&store, &file, &ota_gateway::audit::Actor::cli()).await.unwrap();
        let content = Content::load(&store).await.unwrap();
        (store, content)
    });
    let catalogue = content.hotels.clone();
    let today = chrono::Utc::now().date_naive() + chrono::Days::new(1);
    // Every cell set by an edit: rooms, a minimum stay, each plan's amount.
    rt.block_on(async {
        let now = chrono::Utc::now();
        for a in [ask(today, 400, "rooms", "4", &[]), ask(today, 400, "min-stay", "2", &[])] {
            calendar::edit(&store, &catalogue, &actor, &a, HOTEL, now).await.unwrap();
        }
        for p in PLANS {
            calendar::edit(&store, &catalogue, &actor, &ask(today, 400, "amount", "99.50", &[p]), HOTEL, now)
                .await
                .unwrap();
        }
    });
    let from = today.to_string();

    let mut g = c.benchmark_group("calendar");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(1));
    g.bench_function("page 10 room types x 4 plans x 400 nights", |b| {
        b.iter(|| {
            let cal = rt
                .block_on(calendar::show(&store, &catalogue, HOTEL, (Some(&from), None), None, chrono::Utc::now()))
                .unwrap();
            let nights = cal.nights.len();
            let html = ota_gateway::console::pages::calendar::grid(&cal).into_string();
            assert!(nights >= 393 && html.len() > 100_000);
            black_box(html)
        })
    });
    let mut close = true;
    g.bench_function("edit 365 nights x 10 room types", |b| {
        b.iter(|| {
            let a = ask(today, 365, if close { "close" } else { "open" }, "", &[]);
            close = !close;
            let done = rt.block_on(calendar::edit(&store, &catalogue, &actor, &a, HOTEL, chrono::Utc::now())).unwrap();
            assert_eq!(done.applied, 3650);
            black_box(done)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
