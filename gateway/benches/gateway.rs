//! The gateway's in-process request path, per operation: the full router (request id, logs
//! off, transport checks, decoding, version and POS checks with the verification cache warm,
//! the operation against the content in memory and the seeded demo database, encoding) through
//! `tower::ServiceExt::oneshot`, next to a baseline route that answers a fixed body through the
//! same machinery. The requests are the spec's samples with the demo credentials and dates
//! moved into the coming weeks, so each takes its success path.
//!
//! `cargo bench -p ota-gateway --bench gateway` (SQLite); with `BENCH_DATABASE_URL=postgres://…`
//! (an empty database) on PostgreSQL.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::routing::post;
use criterion::{Criterion, criterion_group, criterion_main};
use ota_gateway::{AppState, Config, Location, Store};
use ota_messages::OPERATIONS;
use tower::ServiceExt;

/// The request sample of each operation (spec/samples/NAME.xml, NAME without dots), with the
/// demo credentials in place of the sample ones.
fn samples() -> Vec<(&'static str, String)> {
    let dir = format!("{}/../spec/samples", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut out = Vec::new();
    for op in OPERATIONS {
        let found = files.iter().filter(|p| p.file_stem().and_then(|s| s.to_str()).is_some_and(|s| !s.contains('.'))).find_map(|p| {
            let xml = std::fs::read_to_string(p).ok()?;
            let root = ota_messages::runtime::parse_document(&xml).ok()?.root_element().tag_name().name().to_string();
            (root == op.request_root).then_some(xml)
        });
        let xml = found.unwrap_or_else(|| panic!("no sample for {}", op.path));
        let xml = future_dates(&xml)
            .replace("ID=\"REQ-000123\"", "ID=\"DEMO\"")
            .replace("ID_Context=\"DISTRIBUTOR-EU\"", "ID_Context=\"DEMO-DIST\"")
            .replace("MessagePassword=\"s3cr3t-P@ssw0rd\"", "MessagePassword=\"demo-password\"");
        out.push((op.path, xml));
    }
    out
}

/// The sample with its 2025 dates moved 400 days on (into the coming weeks).
fn future_dates(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(at) = rest.find("2025-") {
        out.push_str(&rest[..at]);
        let date = rest.get(at..at + 10).and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
        match date {
            Some(d) => {
                let moved = d + chrono::Duration::days(400);
                let today = chrono::Utc::now().date_naive();
                let moved = if moved < today { today + chrono::Duration::days(7) } else { moved };
                out.push_str(&moved.format("%Y-%m-%d").to_string());
                rest = &rest[at + 10..];
            }
            None => {
                out.push_str("2025-");
                rest = &rest[at + 5..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn request(path: &str, body: &str) -> Request<Body> {
    Request::post(path).header(header::CONTENT_TYPE, "application/xml").body(Body::from(body.to_string())).unwrap()
}

async fn call(app: &Router, path: &str, body: &str) -> (StatusCode, axum::body::Bytes) {
    let res = app.clone().oneshot(request(path, body)).await.unwrap();
    let status = res.status();
    (status, axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap())
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    // The database pool is dropped at the end, inside the runtime's context.
    let _context = rt.enter();
    let dir = tempfile::tempdir().unwrap();
    let location = match std::env::var("BENCH_DATABASE_URL") {
        Ok(url) => Location::Postgres(url),
        Err(_) => Location::Sqlite(dir.path().join("bench.db")),
    };
    let app = rt.block_on(async {
        let store = Store::open(&location).await.unwrap();
        ota_gateway::import::seed_demo_if_empty(&store).await.unwrap();
        ota_gateway::router(AppState::new(store, Config { db: location.clone(), ..Config::default() }).await.unwrap())
    });
    let baseline = Router::new().route(
        "/fixed",
        post(|| async { ([(header::CONTENT_TYPE, "application/xml")], "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Fixed/>") }),
    );

    let mut group = c.benchmark_group("request");
    group.sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    group.bench_function("baseline fixed body", |b| b.iter(|| black_box(rt.block_on(call(&baseline, "/fixed", "<x/>")))));
    group.bench_function("healthz (a write at most once a second)", |b| {
        b.iter(|| {
            black_box(rt.block_on(async {
                let res = app.clone().oneshot(Request::get("/healthz").body(Body::empty()).unwrap()).await.unwrap();
                axum::body::to_bytes(res.into_body(), usize::MAX).await.unwrap()
            }))
        })
    });
    for (path, xml) in samples() {
        // Warm the verification cache, and check the request passes authentication.
        let (status, body) = rt.block_on(call(&app, path, &xml));
        let body = String::from_utf8_lossy(&body);
        assert_eq!(status, StatusCode::OK, "{path}: {body}");
        assert!(!body.contains("Type=\"4\""), "{path}: authentication failed: {body}");
        if !body.contains("<Success/>") {
            println!("note: {path} answers with errors (its sample is not a success here): {}", &body[..body.len().min(400)]);
        }
        group.bench_function(path.trim_start_matches('/'), |b| b.iter(|| black_box(rt.block_on(call(&app, path, &xml)))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
