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
//! | a valid message of a requestor over its rate or daily quota ([`crate::limits`]) | 429 + `Retry-After` (seconds) | the operation's RS with one `Error`: Type 3, Code 172, the limit named |
//! | the request takes longer than the time-out, and no write of it started | 408 | the operation's RS with `Errors` (nothing was stored) |
//!
//! A request whose write has started when its time is up is not cut off: it gets its real
//! outcome (a write takes milliseconds), so an answer never says "not processed" about
//! something that was stored (see [`crate::store::Ticket`]).
//!
//! An answer given before the request body was read to its end (a 403, 413 or 415, a time-out)
//! carries `Connection: close`, and the connection closes after it: a client is never left to
//! send its next request on a connection the gateway is about to drop.
//!
//! Other paths: `GET /healthz` (200 when the database takes a write, else 503), `GET /metrics`
//! (the [`crate::metrics`] text, unless served on its own address) and 404 for the rest. With a
//! base path (`--base-path /sandbox`), every route is under it (`/sandbox/hotelnbc`,
//! `/sandbox/healthz`) and anything outside it is 404.
//!
//! The client's address (the peer, or with trusted proxies the address they forward, see
//! [`Config::client_address`](crate::config::Config::client_address)) is what the allow-list, the logs and authentication see.
//! Every answer carries `x-request-id` (the client's, when it sent a sane one, else a new
//! UUID); every request is logged once with its id, method, path, status and latency. Bodies
//! and headers are never logged, so passwords never reach the logs. The transaction log
//! ([`crate::txlog`], for the partners chosen) keeps bodies in the database, passwords removed
//! (its capture is a layer of its own, `record`).
//!
//! | file | what |
//! |---|---|
//! | `mod.rs` | the router, the operation route (read, decode, dispatch, answer), [`serve`] and the accept loop every listener shares ([`serve_router`]: the connection cap, header time-out, graceful stop) |
//! | `layers` | what every request passes before a route: address, request id, log line, metrics, allow-list, panics |
//! | `answers` | the transport's own OTA answers: undecodable requests, error answers, XML bodies |
//! | `record` | the transaction log's capture of a request and its answer |
//! | [`soap`] | SOAP 1.1: the OTA message in a `soap:Envelope`, WS-Security, the WSDL |
//! | [`trace_context`] | W3C Trace Context in and out, the request's span |
//! | `tests` | unit tests of `mod.rs` |

use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use http_body_util::BodyExt;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use ota_messages::common::ErrorCode;
use ota_messages::runtime::{Decoded, Operation};
use ota_messages::{AnyRequest, OPERATIONS};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::predicate::SizeAbove;
use tower_http::compression::{CompressionLayer, CompressionLevel};
use tower_http::decompression::RequestDecompressionLayer;
use tower_http::timeout::TimeoutLayer;

use answers::{bad_request, decode_failure, ota_error, too_large, wrong_root_text, xml_answer};
use layers::{allow_list, client_address, close_if_unread, observe, ota_bodies, panic_response};

use crate::errors::Problem;
use crate::metrics;
use crate::operation;
use crate::shared::log_text::LogText;
use crate::state::AppState;
use crate::store::Ticket;

mod answers;
mod layers;
mod record;
pub mod soap;
pub mod trace_context;

/// The smallest answer compressed for a client that accepts gzip: below it, the bytes saved do
/// not pay for the work.
pub const COMPRESS_FROM: u16 = 2048;

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
    let mut others = Router::new()
        .route(&format!("{base}/healthz"), get(healthz))
        .route(&format!("{base}/wsdl"), get(wsdl))
        .route(&format!("{base}/wsdl/{{file}}"), get(wsdl_schema));
    if state.config.metrics_addr.is_none() {
        others = others.route(&format!("{base}/metrics"), get(local_metrics));
    }
    let others = others.fallback(not_found).layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, timeout));
    app.merge(others)
        .layer(CatchPanicLayer::custom(panic_response))
        // A gzip body is read decompressed: the body limit counts what it expands to (a bomb
        // is a 413 after at most the limit's bytes), and reserves the whole limit.
        .layer(RequestDecompressionLayer::new().gzip(true))
        .layer(middleware::from_fn_with_state(state.clone(), allow_list))
        .layer(middleware::from_fn_with_state(state.clone(), ota_bodies))
        // The transaction log's capture: inside `observe` (the request id is set), outside
        // compression (the answer as written).
        .layer(middleware::from_fn_with_state(state.clone(), record::record))
        .layer(middleware::from_fn_with_state(state.clone(), observe))
        .layer(middleware::from_fn(close_if_unread))
        .layer(middleware::from_fn_with_state(state.clone(), client_address))
        // Answers of at least COMPRESS_FROM bytes to a client that accepts gzip are compressed
        // (at the fastest level: a 36 KB answer shrinks to a tenth for well under a millisecond).
        .layer(
            CompressionLayer::new()
                .gzip(true)
                .quality(CompressionLevel::Fastest)
                .compress_when(SizeAbove::new(COMPRESS_FROM)),
        )
        .with_state(state)
}

/// `GET /wsdl`: the WSDL 1.1 description of the operations for SOAP toolkits ([`soap`]), its
/// addresses those of this gateway as the client reached it (`Host`; `https` when the gateway
/// has trusted proxies and one says `X-Forwarded-Proto: https`).
async fn wsdl(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| h.chars().all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c)))
        .unwrap_or("localhost");
    let https = !state.config.trusted_proxies.is_empty()
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"));
    let location = format!("{}://{host}{}", if https { "https" } else { "http" }, state.config.base_path);
    ([(header::CONTENT_TYPE, soap::SOAP_XML)], soap::wsdl(&location)).into_response()
}

/// `GET /wsdl/<file>.xsd`: a schema of the spec, which the WSDL imports.
async fn wsdl_schema(axum::extract::Path(file): axum::extract::Path<String>) -> Response {
    match soap::served_schema(&file) {
        Some(xsd) => ([(header::CONTENT_TYPE, soap::SOAP_XML)], xsd).into_response(),
        None => not_found().await.into_response(),
    }
}

/// The router of `--metrics-addr`: `GET /metrics` only.
pub fn metrics_router(state: AppState) -> Router {
    Router::new().route("/metrics", get(metrics_text)).fallback(not_found).with_state(state)
}

/// `GET /metrics` on the gateway's own address: for a client on this machine (loopback) only;
/// 404 to any other, as for an unknown path (the counts of bookings are not for partners).
async fn local_metrics(state: State<AppState>, client: Option<Extension<ClientIp>>) -> Response {
    match client {
        Some(Extension(ClientIp(ip))) if ip.to_canonical().is_loopback() => metrics_text(state).await,
        _ => not_found_now(),
    }
}

/// `GET /metrics`: every series of [`crate::metrics`], the content snapshot's age set now.
async fn metrics_text(State(state): State<AppState>) -> Response {
    let content = state.content.get();
    metrics::content_snapshot(content.version, state.content.confirmed_age());
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, metrics::CONTENT_TYPE), (header::CACHE_CONTROL, "no-store")],
        metrics::render(),
    )
        .into_response()
}

/// How a listener serves its connections: the partners' ([`serve`]) and the console's
/// ([`crate::server::run`]) both go through [`serve_router`] with their own.
#[derive(Debug, Clone, Copy)]
pub struct Connections {
    /// What the listener is, for its log lines ("partners", "console").
    pub name: &'static str,
    /// The most connections open at once; the next waits in the listen backlog until one
    /// closes (`--max-connections`, `--console-max-connections`).
    pub max: usize,
    /// The longest a client may take to send its request headers (`--header-read-timeout`).
    pub header_read_timeout: Duration,
    /// At shutdown, how long the requests in flight get to finish (`--shutdown-grace`).
    pub shutdown_grace: Duration,
}

/// Serves `state` on `listener` until `shutdown` completes, then stops accepting, lets the
/// requests in flight finish (at most [`Config::shutdown_grace`](crate::config::Config::shutdown_grace)) and returns.
/// The connections only: [`crate::server::run`] owns the background tasks around it.
///
/// Each connection is HTTP/1.1 with a header read time-out ([`Config::header_read_timeout`](crate::config::Config::header_read_timeout)),
/// so a client that trickles its headers is dropped; at most
/// [`Config::max_connections`](crate::config::Config::max_connections) are open at once.
pub async fn serve(listener: TcpListener, state: AppState, shutdown: impl Future<Output = ()>) -> io::Result<()> {
    let config = state.config.clone();
    let connections = Connections {
        name: "partners",
        max: config.max_connections,
        header_read_timeout: config.header_read_timeout,
        shutdown_grace: config.shutdown_grace,
    };
    serve_router(listener, router(state), connections, shutdown).await
}

/// Serves `app` on `listener` until `shutdown` completes, with at most `connections.max`
/// connections open at once (one more waits in the listen backlog, not accepted, until one
/// closes), then stops accepting and lets the requests in flight finish (at most
/// `connections.shutdown_grace`). Each request carries its peer as
/// `ConnectInfo<SocketAddr>`.
pub async fn serve_router(
    listener: TcpListener,
    app: Router,
    connections: Connections,
    shutdown: impl Future<Output = ()>,
) -> io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    // A connection buffers at most 64 KiB of what it has not handed on yet (hyper's default
    // is about 400 KiB): many held uploads cost little besides what --body-memory allows.
    http.timer(TokioTimer::new()).header_read_timeout(connections.header_read_timeout).max_buf_size(64 * 1024);
    let local = listener.local_addr()?;
    let name = connections.name;
    tracing::info!(addr = %local, listener = name, max_connections = connections.max, "listening");
    let mut shutdown = std::pin::pin!(shutdown);
    let open = Arc::new(Semaphore::new(connections.max.clamp(1, Semaphore::MAX_PERMITS)));
    loop {
        // A connection over the cap waits in the listen backlog until one closes.
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = async {
                let permit = open.clone().acquire_owned().await;
                (listener.accept().await, permit)
            } => accepted,
        };
        let (accepted, Ok(permit)) = accepted else { break };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors and the like: wait a little rather than spin.
                tracing::warn!(error = %e, listener = name, "accept failed");
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
            let _permit = permit;
            if let Err(e) = conn.await {
                tracing::debug!(client = %peer, listener = name, error = %e, "connection closed with an error");
            }
        });
    }
    drop(listener);
    tracing::info!(connections = graceful.count(), listener = name, "shutting down: finishing the requests in flight");
    tokio::select! {
        () = graceful.shutdown() => tracing::info!(listener = name, "stopped"),
        () = tokio::time::sleep(connections.shutdown_grace) => {
            tracing::warn!(grace = ?connections.shutdown_grace, listener = name, "shutdown grace period over; stopping with connections still open");
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
// Handlers

/// The operation served at `path`.
pub(super) fn operation_at(path: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|op| op.path == path)
}

/// 200 `ok` when the database takes a write (checked at most once a second), else 503.
async fn healthz(State(state): State<AppState>) -> Response {
    match state.store.check_health().await {
        Ok(()) => (StatusCode::OK, [(header::CACHE_CONTROL, "no-store")], "ok\n").into_response(),
        Err(e) => {
            metrics::db_error();
            tracing::error!(error = %e, "health check failed");
            (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::CACHE_CONTROL, "no-store")],
                "database unavailable: it does not take writes\n",
            )
                .into_response()
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

pub(super) fn not_found_now() -> Response {
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
    let recording = req.extensions().get::<record::Recording>().cloned();
    let mut work = std::pin::pin!(serve_operation(state, op, req, meta, recording));
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
async fn serve_operation(
    state: AppState,
    op: &'static Operation,
    req: Request,
    meta: operation::Request,
    recording: Option<record::Recording>,
) -> Response {
    let limit = state.config.body_limit;

    // A declared length over the limit is refused before anything is read.
    let declared = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return too_large(op, limit);
    }
    if let Err(text) = check_content_type(req.headers()) {
        return ota_error(op, StatusCode::UNSUPPORTED_MEDIA_TYPE, Problem::protocol(ErrorCode::UnableToProcess, text));
    }
    // The body, its bytes counted against the room for bodies being read as they arrive (issue
    // 28, H2): a held upload that sends nothing holds nothing, a small request never waits
    // behind the declared sizes of large ones, and no body takes longer than
    // `body_read_timeout` to arrive.
    let read = read_body(&state, req.into_body(), limit);
    let (body, _room) = match tokio::time::timeout(state.config.body_read_timeout, read).await {
        Ok(Ok(read)) => read,
        Ok(Err(Unread::TooLarge)) => return too_large(op, limit),
        Ok(Err(Unread::NoRoom)) => return ota_error(op, StatusCode::SERVICE_UNAVAILABLE, Problem::system()),
        Ok(Err(Unread::Failed(e))) => {
            tracing::info!(error = %e, "request body could not be read");
            return bad_request(op, "The request body could not be read.".into());
        }
        Err(_) => {
            tracing::info!(timeout = ?state.config.body_read_timeout, "request body not received in time; nothing was stored");
            return ota_error(op, StatusCode::REQUEST_TIMEOUT, Problem::not_processed_in_time());
        }
    };
    if let Some(r) = &recording {
        r.request(&body);
    }
    respond(&state, op, &body, &meta, recording.as_ref()).await
}

/// Why a request body was not read.
enum Unread {
    /// Over the body limit.
    TooLarge,
    /// The room for bodies is closed (never, while the gateway runs).
    NoRoom,
    /// The connection failed.
    Failed(axum::Error),
}

/// Reads a body of at most `limit` bytes, taking room in [`AppState::bodies`] (KiB) for the
/// bytes received so far before keeping each chunk; the room is given back when the body is
/// (the permits drop with it, after the request is answered).
async fn read_body(
    state: &AppState,
    mut body: axum::body::Body,
    limit: usize,
) -> Result<(Bytes, Option<tokio::sync::OwnedSemaphorePermit>), Unread> {
    // The chunks as they came (no copy, no doubling buffer), joined once at the end.
    let mut chunks: Vec<Bytes> = Vec::new();
    let mut len = 0usize;
    let mut room: Option<tokio::sync::OwnedSemaphorePermit> = None;
    let mut counted = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame.map_err(Unread::Failed)?.into_data() else { continue };
        if len + data.len() > limit {
            return Err(Unread::TooLarge);
        }
        let need = (len + data.len()).div_ceil(1024).saturating_sub(counted);
        if need > 0 {
            let more = state
                .bodies
                .clone()
                .acquire_many_owned(u32::try_from(need).unwrap_or(u32::MAX))
                .await
                .map_err(|_| Unread::NoRoom)?;
            counted += need;
            match &mut room {
                Some(r) => r.merge(more),
                None => room = Some(more),
            }
        }
        len += data.len();
        chunks.push(data);
    }
    let body = match chunks.len() {
        0 => Bytes::new(),
        1 => chunks.swap_remove(0),
        _ => {
            let mut joined = bytes::BytesMut::with_capacity(len);
            for c in &chunks {
                joined.extend_from_slice(c);
            }
            joined.freeze()
        }
    };
    Ok((body, room))
}

/// Decodes a body read in full and answers it: a plain OTA request, or one in a SOAP 1.1
/// envelope ([`soap`]), whose answer goes in an envelope too.
async fn respond(
    state: &AppState,
    op: &'static Operation,
    body: &Bytes,
    meta: &operation::Request,
    recording: Option<&record::Recording>,
) -> Response {
    let Ok(text) = std::str::from_utf8(body) else {
        return bad_request(op, "The request body is not UTF-8 text.".into());
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match soap::unwrap(text, op) {
        None => respond_plain(state, op, text, meta, recording).await,
        Some(Err(fault)) => {
            tracing::info!(fault = fault.code, "SOAP envelope refused");
            soap::fault_response(&fault)
        }
        Some(Ok(unwrapped)) => {
            let message = match &unwrapped.username_token {
                Some((user, password)) if !soap::has_pos(&unwrapped.message) => {
                    // An id that names no requestor gets a context too, so that it goes through
                    // the whole check (the throttle, argon2 against the dummy hash) and costs
                    // what a known one with a wrong password does: ids cannot be told by timing.
                    let context = state
                        .content
                        .get()
                        .requestors
                        .get(user)
                        .map_or_else(|| soap::UNKNOWN_CONTEXT.to_string(), |r| r.id_context.clone());
                    soap::with_pos(&unwrapped.message, op.request_root, (user, password), &context)
                }
                _ => unwrapped.message,
            };
            soap::wrap_response(respond_plain(state, op, &message, meta, recording).await).await
        }
    }
}

/// Decodes a plain OTA request and answers it.
async fn respond_plain(
    state: &AppState,
    op: &'static Operation,
    text: &str,
    meta: &operation::Request,
    recording: Option<&record::Recording>,
) -> Response {
    let (request, unread) = match AnyRequest::from_xml_with(text, ota_messages::official::OFFICIAL) {
        Ok(rq) if rq.message.operation().path == op.path => (rq.message, rq.unread),
        Ok(Decoded { message: rq, .. }) => {
            tracing::info!(root = %LogText(rq.root_name()), "request root does not match the path");
            return bad_request(op, wrong_root_text(op, rq.root_name()));
        }
        Err(e) => return decode_failure(op, text, &e),
    };
    let answer = operation::dispatch(state, request, &unread, meta).await;
    if let (Some(r), Some(requestor)) = (recording, &answer.said.requestor) {
        r.requestor(requestor);
    }
    let mut response = match answer.retry_after {
        None => xml_answer(op, StatusCode::OK, &answer.message, answer.dialect),
        Some(secs) => {
            let mut response = xml_answer(op, StatusCode::TOO_MANY_REQUESTS, &answer.message, answer.dialect);
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
            response
        }
    };
    response.extensions_mut().insert(answer.said);
    response
}

#[cfg(test)]
mod tests;
