//! What counting a request in the traffic rollups costs (`ota_gateway::traffic::Recorder::record`,
//! called once per answered request by the transport): the same partner and operation again
//! (the common case within a minute), 1,500 partners × operations in turn (100 partners × 15
//! operations), and 2 threads recording at once (the lock shared). Compare with a request's
//! own cost (`cargo bench -p ota-gateway --bench gateway -- hotelnbc`).
//!
//! `cargo bench -p ota-gateway --bench traffic` (docs/operators/traffic.md gives the figures).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use ota_gateway::requestors::traffic::Look;
use ota_gateway::traffic::{Answered, Recorder};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const OPERATIONS: [&str; 15] = [
    "activitysearch",
    "activityavailability",
    "activitynbc",
    "activitybook",
    "hotelnbc",
    "hotelavailability",
    "hotelbook",
    "hotelmodify",
    "bookread",
    "bookcancel",
    "hotelinvcountnotif",
    "hotelavailnotif",
    "hotelrateamountnotif",
    "notifreport",
    "hotelresnotif",
];

fn answered<'a>(partner: &'a str, operation: &'static str) -> Answered<'a> {
    Answered {
        at: chrono::Utc::now(),
        partner: Some(partner),
        operation,
        status: 200,
        outcome: Some("Success"),
        look: Some(Look::Availability),
        took: Duration::from_micros(2_300),
    }
}

fn record(c: &mut Criterion) {
    let mut g = c.benchmark_group("traffic_record");
    let recorder = Recorder::default();
    let one = answered("DEMO", "hotelavailability");
    g.bench_function("same_partner_and_operation", |b| b.iter(|| recorder.record(black_box(&one))));

    let partners: Vec<String> = (0..100).map(|i| format!("PARTNER-{i:03}")).collect();
    let many: Vec<Answered<'_>> =
        partners.iter().flat_map(|p| OPERATIONS.iter().map(move |o| answered(p, o))).collect();
    let recorder = Recorder::default();
    let mut i = 0;
    g.bench_function("1500_partners_x_operations_in_turn", |b| {
        b.iter(|| {
            recorder.record(black_box(&many[i % many.len()]));
            i += 1;
        })
    });

    // Two threads recording at once: the time per record of each.
    let recorder = Arc::new(Recorder::default());
    g.bench_function("two_threads_at_once", |b| {
        b.iter_custom(|iters| {
            let started = Instant::now();
            let other = {
                let recorder = recorder.clone();
                std::thread::spawn(move || {
                    let a = answered("PARTNER2", "hotelnbc");
                    for _ in 0..iters {
                        recorder.record(black_box(&a));
                    }
                })
            };
            let a = answered("DEMO", "hotelnbc");
            for _ in 0..iters {
                recorder.record(black_box(&a));
            }
            other.join().unwrap();
            started.elapsed()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = record
}
criterion_main!(benches);
