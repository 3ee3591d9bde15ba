//! The gateway's in-process request path, per operation: the full router (request id, logs
//! off, transport checks, decoding, version and POS checks with the verification cache warm,
//! the operation against the seeded demo database, encoding) through
//! `tower::ServiceExt::oneshot`, next to a baseline route that answers a fixed body through the
//! same machinery.
//!
//! `cargo bench -p ota-gateway --bench gateway`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use axum::routing::post;
use criterion::{Criterion, criterion_group, criterion_main};
use ota_gateway::{AppState, Config, Db};
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
        let xml = xml
            .replace("ID=\"REQ-000123\"", "ID=\"DEMO\"")
            .replace("ID_Context=\"DISTRIBUTOR-EU\"", "ID_Context=\"DEMO-DIST\"")
            .replace("MessagePassword=\"s3cr3t-P@ssw0rd\"", "MessagePassword=\"demo-password\"");
        out.push((op.path, xml));
    }
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
    let app = rt.block_on(async {
        let db = Db::open(&dir.path().join("bench.db")).await.unwrap();
        ota_gateway::seed::seed_demo_if_empty(&db).await.unwrap();
        ota_gateway::router(AppState::new(db, Config::default()))
    });
    let baseline = Router::new().route(
        "/fixed",
        post(|| async { ([(header::CONTENT_TYPE, "application/xml")], "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Fixed/>") }),
    );

    let mut group = c.benchmark_group("request");
    group.sample_size(20).measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    group.bench_function("baseline fixed body", |b| b.iter(|| black_box(rt.block_on(call(&baseline, "/fixed", "<x/>")))));
    group.bench_function("healthz (one database call)", |b| {
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
        group.bench_function(path.trim_start_matches('/'), |b| b.iter(|| black_box(rt.block_on(call(&app, path, &xml)))));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
