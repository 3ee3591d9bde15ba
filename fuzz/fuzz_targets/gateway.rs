//! The whole gateway, in process: arbitrary bytes as the body of a `POST` to an operation path
//! (the first byte picks the operation), through the real axum router with its layers and a
//! SQLite database seeded with the demo content. Whatever the body:
//!
//! - the call returns, with 200, 400 or 413 — never a 5xx;
//! - the answer is the path's own RS and decodes (it is valid against the spec);
//! - it is never a Type 12 system error (an input that makes the database or the encoder fail
//!   is a bug even when it is answered 200).
//!
//! The router, a tokio runtime and the database (in a temporary directory that is left behind,
//! `ota-fuzz-gateway-*`) are built once per process. Seed the corpus from `spec/samples` with
//! the demo credentials: see `docs/reliability.md`.
#![no_main]

use std::sync::LazyLock;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use ota_gateway::{AppState, Config, Location, Store};
use ota_messages::{AnyMessage, OPERATIONS};
use tower::ServiceExt;

struct Fixture {
    rt: tokio::runtime::Runtime,
    app: Router,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let dir = tempfile::Builder::new().prefix("ota-fuzz-gateway-").tempdir().expect("a temporary directory").keep();
    let location = Location::Sqlite(dir.join("gateway.db"));
    let config = Config { db: location.clone(), ..Config::default() };
    let app = rt.block_on(async {
        let store = Store::open(&location).await.expect("open the database");
        ota_gateway::import::seed_demo_if_empty(&store).await.expect("seed the demo content");
        ota_gateway::router(AppState::new(store, config).await.expect("load the content"))
    });
    Fixture { rt, app }
});

fuzz_target!(|data: &[u8]| {
    let Some((&selector, body)) = data.split_first() else { return };
    let op = &OPERATIONS[selector as usize % OPERATIONS.len()];
    let fx = &*FIXTURE;
    let request = Request::builder()
        .method("POST")
        .uri(op.path)
        .header("content-type", "application/xml")
        .body(Body::from(body.to_vec()))
        .expect("a request");
    let (status, answer) = fx.rt.block_on(async {
        let res = fx.app.clone().oneshot(request).await.expect("the router is infallible");
        let status = res.status();
        let bytes = res.into_body().collect().await.expect("the answer's body").to_bytes();
        (status, bytes)
    });
    let text = std::str::from_utf8(&answer).expect("the answer is UTF-8");
    assert!(!status.is_server_error(), "{} answered {status}:\n{text}", op.path);
    assert!(
        [StatusCode::OK, StatusCode::BAD_REQUEST, StatusCode::PAYLOAD_TOO_LARGE].contains(&status),
        "{} answered {status}:\n{text}",
        op.path
    );
    let message = AnyMessage::from_xml(text).unwrap_or_else(|e| panic!("{} answered an invalid RS ({e}):\n{text}", op.path));
    assert_eq!(Some(message.root_name()), op.response_root, "{}: another operation's answer", op.path);
    assert!(!text.contains(r#"Type="12""#), "{} answered a system error:\n{text}", op.path);
});
