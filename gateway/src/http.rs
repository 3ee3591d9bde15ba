//! The HTTP server: one `POST` route per operation of [`ota_messages::OPERATIONS`], the
//! transport rules, the allow-list, time-outs, request ids, logs and graceful shutdown.
//!
//! What a request to an operation path gets:
//!
//! | case | status | body |
//! |---|---|---|
//! | client address not in the allow-list (when one is set) | 403 | the operation's RS with `Errors` |
//! | a method other than `POST` | 405 (`Allow: POST`) | the operation's RS with `Errors` |
//! | a body over the limit | 413 | the operation's RS with `Errors` |
//! | `Content-Type` other than `application/xml` or `text/xml` (a `charset=utf-8` parameter is fine) | 415 | the operation's RS with `Errors` |
//! | not UTF-8, not well-formed XML, a DOCTYPE, or a root that is not this path's request | 400 | the operation's RS with `Errors` |
//! | the path's request root, but not a valid message (unknown element, bad value, …) | 200 | the operation's RS with one `Error` per problem, up to 20 (Type 10/Code 321 or Type 7/Code 320, `Tag` = the element path) |
//! | a valid message | 200 | whatever [`operation::dispatch`] answers (success or business errors) |
//! | the request takes longer than the time-out, and no write of it started | 408 | the operation's RS with `Errors` (nothing was stored) |
//!
//! A request whose write has started when its time is up is not cut off: it gets its real
//! outcome (a write takes milliseconds), so an answer never says "not processed" about
//! something that was stored (see [`crate::store::Ticket`]).
//!
//! Other paths: `GET /healthz` (200 when the database takes a write, else 503), `GET /metrics`
//! (the [`crate::metrics`] text, unless served on its own address) and 404 for the rest. With a
//! base path (`--base-path /sandbox`), every route is under it (`/sandbox/hotelnbc`,
//! `/sandbox/healthz`) and anything outside it is 404.
//!
//! The client's address (the peer, or with trusted proxies the address they forward, see
//! [`Config::client_address`]) is what the allow-list, the logs and authentication see.
//! Every answer carries `x-request-id` (the client's, when it sent a sane one, else a new
//! UUID); every request is logged once with its id, method, path, status and latency. Bodies
//! and headers are never logged, so passwords never reach the logs.

use std::any::Any;
use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chrono::Utc;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use ota_messages::common::{ErrorCode, ErrorWarningType};
use ota_messages::runtime::{DecodeError, DecodeErrorKind, Operation};
use ota_messages::{AnyMessage, AnyRequest, OPERATIONS};
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::timeout::TimeoutLayer;
use tracing::Instrument;

use crate::metrics;
use crate::errors::{Problem, errors};
use crate::operation;
use crate::state::AppState;
use crate::store::Ticket;

/// The header carrying the request id, both ways.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The media type of requests and answers.
pub const XML: &str = "application/xml";

/// The client's address (a request extension, set before any handler runs): the peer, or the
/// address a trusted proxy forwarded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

/// The id of the request being served (a request extension, set before any handler runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(pub String);

/// The router: the operations, `/healthz`, `/metrics` (unless on its own address), a 404
/// fallback, and the layers (client address, request id, logs and metrics, the base path, OTA
/// bodies on transport errors, the time-out, the allow-list, panic safety).
///
/// Usable without a socket (`tower::ServiceExt::oneshot`); the allow-list then refuses every
/// request unless empty, as the client address is unknown.
pub fn router(state: AppState) -> Router {
    let mut app = Router::new();
    let base = state.config.base_path.clone();
    for op in OPERATIONS {
        app = app.route(
            &format!("{base}{}", op.path),
            post(move |State(state): State<AppState>, req: Request| handle(state, op, req))
                .fallback(move |method: Method| async move { method_not_allowed(op, &method) }),
        );
    }
    // Operations keep their own time (see `handle`); the other routes are cut off by the layer.
    let timeout = state.config.request_timeout;
    let mut others = Router::new().route(&format!("{base}/healthz"), get(healthz));
    if state.config.metrics_addr.is_none() {
        others = others.route(&format!("{base}/metrics"), get(metrics_text));
    }
    let others = others.fallback(not_found).layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, timeout));
    app.merge(others)
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(middleware::from_fn_with_state(state.clone(), allow_list))
        .layer(middleware::from_fn_with_state(state.clone(), ota_bodies))
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .layer(middleware::from_fn_with_state(state.clone(), client_address))
        .with_state(state)
}

/// The router of `--metrics-addr`: `GET /metrics` only.
pub fn metrics_router(state: AppState) -> Router {
    Router::new().route("/metrics", get(metrics_text)).fallback(not_found).with_state(state)
}

/// `GET /metrics`: every series of [`crate::metrics`], the content snapshot's age set now.
async fn metrics_text(State(state): State<AppState>) -> Response {
    let content = state.content.get();
    metrics::content_snapshot(content.version, state.content.confirmed_age());
    (StatusCode::OK, [(header::CONTENT_TYPE, metrics::CONTENT_TYPE), (header::CACHE_CONTROL, "no-store")], metrics::render()).into_response()
}

/// Serves `state` on `listener` until `shutdown` completes, then stops accepting, lets the
/// requests in flight finish (at most [`Config::shutdown_grace`]) and returns.
///
/// Each connection is HTTP/1.1 with a header read time-out ([`Config::header_read_timeout`]),
/// so a client that trickles its headers is dropped.
pub async fn serve(listener: TcpListener, state: AppState, shutdown: impl Future<Output = ()>) -> io::Result<()> {
    let config = state.config.clone();
    let app = router(state);
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(config.header_read_timeout);
    let local = listener.local_addr()?;
    tracing::info!(addr = %local, "listening");
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors and the like: wait a little rather than spin.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "set_nodelay failed");
        }
        let svc = app.clone().map_request(move |mut req: hyper::Request<hyper::body::Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            req
        });
        let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(svc)));
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(client = %peer, error = %e, "connection closed with an error");
            }
        });
    }
    drop(listener);
    tracing::info!(connections = graceful.count(), "shutting down: finishing the requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("stopped"),
        () = tokio::time::sleep(config.shutdown_grace) => {
            tracing::warn!(grace = ?config.shutdown_grace, "shutdown grace period over; stopping with connections still open");
        }
    }
    Ok(())
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("SIGINT received"),
        () = term => tracing::info!("SIGTERM received"),
    }
}

// ---------------------------------------------------------------------------------------------
// Middleware

/// A request id the client sent is kept when it is 1–128 visible ASCII characters.
fn sane_request_id(v: &HeaderValue) -> Option<String> {
    let b = v.as_bytes();
    (!b.is_empty() && b.len() <= 128 && b.iter().all(|c| (0x21..=0x7e).contains(c)))
        .then(|| String::from_utf8_lossy(b).into_owned())
}

/// Sets [`ClientIp`]: the peer, or the address a trusted proxy forwarded.
async fn client_address(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    if let Some(peer) = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()) {
        let forwarded = req.headers().get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
        let ip = state.config.client_address(peer, forwarded);
        req.extensions_mut().insert(ClientIp(ip));
    }
    next.run(req).await
}

/// Request id, span, the one log line and the metrics of each request.
async fn observe(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(sane_request_id)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    req.extensions_mut().insert(RequestId(id.clone()));
    let client = req.extensions().get::<ClientIp>().map(|c| c.0.to_string()).unwrap_or_else(|| "-".into());
    let operation = state.config.route_path(req.uri().path()).map_or("other", metrics::operation_label);
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %req.method(),
        path = %req.uri().path(),
        client = %client,
    );
    let started = Instant::now();
    let mut res = next.run(req).instrument(span.clone()).await;
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    let status = res.status().as_u16();
    let took = started.elapsed();
    metrics::request(operation, status, took);
    let latency_ms = took.as_micros() as f64 / 1000.0;
    span.in_scope(|| {
        if status >= 500 {
            tracing::error!(status, latency_ms, "request");
        } else {
            tracing::info!(status, latency_ms, "request");
        }
    });
    res
}

/// Gives an OTA body to the bare error answers of the layers (408 from the time-out, 500 from a
/// caught panic) on operation paths.
async fn ota_bodies(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = state.config.route_path(req.uri().path()).unwrap_or("").to_string();
    let res = next.run(req).await;
    let status = res.status();
    let is_xml = res.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(XML.as_bytes()));
    if status.is_success() || is_xml {
        return res;
    }
    let Some(op) = operation(&path) else {
        return res;
    };
    let problem = match status {
        StatusCode::REQUEST_TIMEOUT => Problem::not_processed_in_time(),
        s if s.is_server_error() => Problem::system(),
        _ => Problem::protocol(ErrorCode::UnableToProcess, format!("The request could not be processed (HTTP {status}).")),
    };
    let mut out = ota_error(op, status, problem);
    out.headers_mut().extend(res.headers().iter().filter(|(k, _)| *k != header::CONTENT_TYPE && *k != header::CONTENT_LENGTH).map(|(k, v)| (k.clone(), v.clone())));
    out
}

/// Refuses clients outside the allow-list (when one is set), before the body is read.
async fn allow_list(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if state.config.allow.is_empty() {
        return next.run(req).await;
    }
    let client = req.extensions().get::<ClientIp>().map(|c| c.0);
    if client.is_some_and(|ip| state.config.allows(ip)) {
        return next.run(req).await;
    }
    tracing::warn!(client = ?client, "client address not in the allow-list");
    let problem = Problem::new(
        ErrorWarningType::Authorization,
        ErrorCode::AuthorizationError,
        "The client address is not allowed to use this service.",
    );
    match state.config.route_path(req.uri().path()).and_then(operation) {
        Some(op) => ota_error(op, StatusCode::FORBIDDEN, problem),
        None => (StatusCode::FORBIDDEN, "forbidden\n").into_response(),
    }
}

fn panic_response(err: Box<dyn Any + Send + 'static>) -> Response {
    let what = err
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| err.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(panic = %what, "a handler panicked");
    StatusCode::INTERNAL_SERVER_ERROR.into_response()
}

// ---------------------------------------------------------------------------------------------
// Handlers

/// The operation served at `path`.
fn operation(path: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|op| op.path == path)
}

/// 200 `ok` when the database takes a write (checked at most once a second), else 503.
async fn healthz(State(state): State<AppState>) -> Response {
    match state.store.check_health().await {
        Ok(()) => (StatusCode::OK, [(header::CACHE_CONTROL, "no-store")], "ok\n").into_response(),
        Err(e) => {
            metrics::db_error();
            tracing::error!(error = %e, "health check failed");
            (StatusCode::SERVICE_UNAVAILABLE, [(header::CACHE_CONTROL, "no-store")], "database unavailable: it does not take writes\n").into_response()
        }
    }
}

async fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "not found\n").into_response()
}

fn method_not_allowed(op: &'static Operation, method: &Method) -> Response {
    let path = op.path;
    let mut res = ota_error(
        op,
        StatusCode::METHOD_NOT_ALLOWED,
        Problem::protocol(ErrorCode::UnableToProcess, format!("Method {method} is not allowed on {path}; use POST.")),
    );
    res.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
    res
}

fn not_found_now() -> Response {
    (StatusCode::NOT_FOUND, "not found\n").into_response()
}

/// The request media types taken: `application/xml` and, as many OTA clients send it, `text/xml`.
const REQUEST_XML: [&str; 2] = [XML, "text/xml"];

/// Checks `Content-Type: application/xml` or `text/xml`, with an optional `charset=utf-8`.
fn check_content_type(headers: &HeaderMap) -> Result<(), String> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Err("The request has no Content-Type; send application/xml.".into());
    };
    let shown = || String::from_utf8_lossy(value.as_bytes()).chars().take(64).collect::<String>();
    let Ok(value) = value.to_str() else {
        return Err("The Content-Type is not readable; send application/xml.".into());
    };
    let mut parts = value.split(';');
    let essence = parts.next().unwrap_or("").trim();
    if !REQUEST_XML.iter().any(|t| essence.eq_ignore_ascii_case(t)) {
        return Err(format!("Content-Type {:?} is not supported; send application/xml.", shown()));
    }
    for param in parts {
        let Some((name, val)) = param.split_once('=') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("charset") {
            let charset = val.trim().trim_matches('"');
            if !charset.eq_ignore_ascii_case("utf-8") && !charset.eq_ignore_ascii_case("utf8") {
                return Err(format!("Content-Type {:?}: only the UTF-8 charset is supported.", shown()));
            }
        }
    }
    Ok(())
}

fn too_large(op: &Operation, limit: usize) -> Response {
    ota_error(
        op,
        StatusCode::PAYLOAD_TOO_LARGE,
        Problem::protocol(ErrorCode::UnableToProcess, format!("The request body is larger than the limit of {limit} bytes.")),
    )
}

fn bad_request(op: &Operation, text: String) -> Response {
    ota_error(op, StatusCode::BAD_REQUEST, Problem::protocol(ErrorCode::UnableToProcess, text.replace(|c: char| (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}'), "\u{fffd}")))
}

/// One operation request: the transport checks, decoding, then [`operation::dispatch`], all
/// within the request time-out — except that a write that started is waited for (see the
/// module docs).
async fn handle(state: AppState, op: &'static Operation, req: Request) -> Response {
    let started = Instant::now();
    let deadline = started + state.config.request_timeout;
    let ticket = Ticket::new();
    let meta = operation::Request {
        id: req.extensions().get::<RequestId>().map(|r| r.0.clone()).unwrap_or_default(),
        ticket: ticket.clone(),
        deadline: Some(deadline),
        client: req.extensions().get::<ClientIp>().map(|c| c.0),
    };
    let mut work = std::pin::pin!(serve_operation(state, op, req, meta));
    let timed_out = || {
        tracing::info!(timeout = ?deadline.saturating_duration_since(started), "request timed out; nothing was stored");
        ota_error(op, StatusCode::REQUEST_TIMEOUT, Problem::not_processed_in_time())
    };
    tokio::select! {
        // A write that gave up on its own at the deadline answers as the time-out does.
        answer = &mut work => if ticket.is_abandoned() { timed_out() } else { answer },
        () = tokio::time::sleep_until(deadline.into()) => {
            if ticket.abandon() {
                timed_out()
            } else {
                // Its write started: the client gets the real outcome.
                work.await
            }
        }
    }
}

/// The body of [`handle`], without its time limit.
async fn serve_operation(state: AppState, op: &'static Operation, req: Request, meta: operation::Request) -> Response {
    let limit = state.config.body_limit;

    // A declared length over the limit is refused before anything is read.
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_large(op, limit);
    }
    if let Err(text) = check_content_type(req.headers()) {
        return ota_error(op, StatusCode::UNSUPPORTED_MEDIA_TYPE, Problem::protocol(ErrorCode::UnableToProcess, text));
    }
    let body = match Limited::new(req.into_body(), limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => return too_large(op, limit),
        Err(e) => {
            tracing::info!(error = %e, "request body could not be read");
            return bad_request(op, "The request body could not be read.".into());
        }
    };
    respond(&state, op, &body, &meta).await
}

/// Decodes a body read in full and answers it.
async fn respond(state: &AppState, op: &'static Operation, body: &Bytes, meta: &operation::Request) -> Response {
    let Ok(text) = std::str::from_utf8(body) else {
        return bad_request(op, "The request body is not UTF-8 text.".into());
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let request = match AnyRequest::from_xml(text) {
        Ok(rq) if rq.operation().path == op.path => rq,
        Ok(rq) => {
            tracing::info!(root = rq.root_name(), "request root does not match the path");
            return bad_request(op, wrong_root_text(op, rq.root_name()));
        }
        Err(e) => return decode_failure(op, text, &e),
    };
    let answer = operation::dispatch(state, request, meta).await;
    xml_answer(op, StatusCode::OK, &answer)
}

fn wrong_root_text(op: &Operation, found: &str) -> String {
    format!("{} takes <{}>; the request's root element is <{found}>.", op.path, op.request_root)
}

/// The root element name an error path starts with (`/OTA_ReadRQ/POS` → `OTA_ReadRQ`).
fn root_of(path: &str) -> &str {
    path.split('/').nth(1).map(|s| s.split(['[', '@']).next().unwrap_or(s)).unwrap_or("")
}

/// A document that did not decode: 400 when it is not XML or not this path's message, else
/// 200 with the operation's RS carrying one `Error` per problem (an OTA business answer).
fn decode_failure(op: &'static Operation, text: &str, e: &DecodeError) -> Response {
    let root = root_of(&e.path);
    let at_root = e.path == format!("/{root}");
    match &e.kind {
        DecodeErrorKind::Malformed(_) | DecodeErrorKind::Doctype => {
            tracing::info!(line = e.line, column = e.column, "request is not well-formed XML");
            return bad_request(op, format!("The request is not well-formed XML: {e}"));
        }
        DecodeErrorKind::WrongRoot { found, .. } => {
            tracing::info!(root = %found, "request root does not match the path");
            return bad_request(op, wrong_root_text(op, found));
        }
        DecodeErrorKind::WrongNamespace { .. } if at_root => {
            tracing::info!("request root is not in the OTA namespace");
            return bad_request(op, format!("The request is not an OTA message: {e}"));
        }
        _ if root != op.request_root || e.path.is_empty() => {
            tracing::info!(root = %root, "request root does not match the path");
            return bad_request(op, wrong_root_text(op, root));
        }
        _ => {}
    }
    let problems = if e.problems().any(in_pos) {
        // A POS of the wrong shape (one Source, three, a missing attribute, …) is an
        // authentication failure like any other: the answer does not say what was wrong, nor
        // anything else about the message.
        tracing::info!(reason = "pos", "authentication failed");
        vec![Problem::authentication()]
    } else {
        // Where, not what: the values of a failing message are not logged (one could be a password).
        tracing::info!(at = %e.path, line = e.line, column = e.column, problems = e.count(), "request is not a valid message");
        // One OTA Error per problem.
        e.problems().map(decode_problem).collect()
    };
    let Some(mut answer) = ota_messages::error_response(op.path, errors(problems)) else {
        return not_found_now();
    };
    stamp(&mut answer, root_attributes(text));
    xml_answer(op, StatusCode::OK, &answer)
}

/// True when a decoding error is about the POS (missing, or anything inside it).
fn in_pos(e: &DecodeError) -> bool {
    let inside = e.path.split('/').nth(2).is_some_and(|s| s == "POS" || s.starts_with("POS["));
    let about = match &e.kind {
        DecodeErrorKind::MissingElement { name } | DecodeErrorKind::TooMany { name, .. } => *name == "POS",
        DecodeErrorKind::UnexpectedElement { name, .. } => name == "POS",
        _ => false,
    };
    inside || about
}

/// The OTA problem of a decoding error: Type 10 / Code 321 for something missing, else
/// Type 7 / Code 320; the element path as `Tag`. A `Version` of the wrong form gets the answer of
/// any unsupported version.
fn decode_problem(e: &DecodeError) -> Problem {
    match &e.kind {
        DecodeErrorKind::InvalidVersion { value, supported, .. } => {
            return operation::unsupported_version(value, supported, root_of(&e.path));
        }
        DecodeErrorKind::MissingElement { .. } | DecodeErrorKind::MissingAttribute { .. } | DecodeErrorKind::MissingChoice { .. } => {
            Problem::required(describe(e))
        }
        _ => Problem::protocol(ErrorCode::InvalidValue, describe(e)),
    }
    .at(e.path.clone())
}

/// The description of a decoding error; a bad `MessagePassword` value is not repeated.
fn describe(e: &DecodeError) -> String {
    match &e.kind {
        DecodeErrorKind::InvalidValue { target, expected, .. } if target.contains("MessagePassword") => {
            format!("{}:{}: {}: invalid value in {target}: expected {expected}", e.line, e.column, e.path)
        }
        _ => e.problem_text(),
    }
}

/// `EchoToken` and `TransactionIdentifier` of a well-formed request that did not decode, when
/// they are of a length the answer can carry.
fn root_attributes(text: &str) -> Echo {
    let Ok(doc) = ota_messages::runtime::parse_document(text) else {
        return Echo::default();
    };
    let root = doc.root_element();
    let pick = |name: &str, max: usize| {
        root.attribute(name).filter(|v| !v.is_empty() && v.chars().count() <= max).map(str::to_string)
    };
    Echo { echo_token: pick("EchoToken", 128), transaction_identifier: pick("TransactionIdentifier", 32) }
}

/// What an answer echoes from its request.
#[derive(Debug, Default)]
struct Echo {
    echo_token: Option<String>,
    transaction_identifier: Option<String>,
}

/// Sets `TimeStamp` (now) and the echoed attributes on an answer.
fn stamp(answer: &mut AnyMessage, echo: Echo) {
    if let Some(rs) = answer.response_std_attributes_mut() {
        rs.set_time_stamp(Some(operation::time_stamp(Utc::now())));
        rs.set_echo_token(echo.echo_token);
        rs.set_transaction_identifier(echo.transaction_identifier);
    }
}

/// The operation's RS carrying one problem, with an HTTP status.
fn ota_error(op: &Operation, status: StatusCode, problem: Problem) -> Response {
    match ota_messages::error_response(op.path, errors([problem])) {
        Some(mut answer) => {
            stamp(&mut answer, Echo::default());
            xml_answer(op, status, &answer)
        }
        None => (status, "error\n").into_response(),
    }
}

/// Encodes an answer. An answer that cannot be encoded (a bug) is logged and replaced by a
/// Type 12 system error.
fn xml_answer(op: &Operation, status: StatusCode, answer: &AnyMessage) -> Response {
    match answer.to_xml() {
        Ok(xml) => (status, [(header::CONTENT_TYPE, XML)], xml).into_response(),
        Err(e) => {
            tracing::error!(error = %e, root = answer.root_name(), "an answer could not be encoded");
            let fallback = ota_messages::error_response(op.path, errors([Problem::system()])).map(|mut a| {
                stamp(&mut a, Echo::default());
                a.to_xml()
            });
            match fallback {
                Some(Ok(xml)) => (status, [(header::CONTENT_TYPE, XML)], xml).into_response(),
                _ => (StatusCode::INTERNAL_SERVER_ERROR, Body::from("internal error\n")).into_response(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn content_types() {
        let mut h = HeaderMap::new();
        assert!(check_content_type(&h).is_err());
        for ok in [
            "application/xml",
            "Application/XML",
            "application/xml; charset=utf-8",
            "application/xml;charset=\"UTF-8\"",
            "text/xml",
            "Text/XML; charset=utf-8",
        ] {
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ok));
            assert!(check_content_type(&h).is_ok(), "{ok}");
        }
        for bad in ["text/plain", "application/json", "application/xml; charset=latin1", "text/xml; charset=iso-8859-1", "application/xmlx", "text/xmlx"] {
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(bad));
            assert!(check_content_type(&h).is_err(), "{bad}");
        }
    }

    #[test]
    fn roots_of_paths() {
        assert_eq!(root_of("/OTA_ReadRQ/POS/Source[2]"), "OTA_ReadRQ");
        assert_eq!(root_of("/OTA_ReadRQ"), "OTA_ReadRQ");
        assert_eq!(root_of(""), "");
    }

    #[test]
    fn request_ids() {
        assert_eq!(sane_request_id(&HeaderValue::from_static("abc-123")).as_deref(), Some("abc-123"));
        assert!(sane_request_id(&HeaderValue::from_static("has space")).is_none());
        assert!(sane_request_id(&HeaderValue::from_static("")).is_none());
    }
}
