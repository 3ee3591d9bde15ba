//! The layers every request passes before a route: the client's address, the request id,
//! one log line, the metrics and the traffic rollups ([`crate::traffic`]), OTA bodies for the layers' own error answers, the allow-list,
//! the answer to a panic, and closing a connection whose request body was left unread.

use std::any::Any;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use ota_messages::common::{ErrorCode, ErrorWarningType};
use tracing::Instrument;

use super::answers::ota_error;
use super::trace_context::{TRACERESPONSE, TraceContext};
use super::{ClientIp, REQUEST_ID_HEADER, RequestId, XML, operation_at};
use crate::errors::Problem;
use crate::metrics;
use crate::operation;
use crate::shared::log_text::LogText;
use crate::state::AppState;

/// A request id the client sent is kept when it is 1–128 visible ASCII characters.
fn sane_request_id(v: &HeaderValue) -> Option<String> {
    let b = v.as_bytes();
    (!b.is_empty() && b.len() <= 128 && b.iter().all(|c| (0x21..=0x7e).contains(c)))
        .then(|| String::from_utf8_lossy(b).into_owned())
}

/// Sets [`ClientIp`]: the peer, or the address a trusted proxy forwarded.
pub(super) async fn client_address(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    if let Some(peer) = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()) {
        let forwarded = req.headers().get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
        let ip = state.config.client_address(peer, forwarded);
        req.extensions_mut().insert(ClientIp(ip));
    }
    next.run(req).await
}

/// Request id, span, the one log line and the metrics of each request.
pub(super) async fn observe(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(sane_request_id)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    req.extensions_mut().insert(RequestId(id.clone()));
    let mut trace = TraceContext::of(req.headers());
    let client = req.extensions().get::<ClientIp>().map(|c| c.0.to_string()).unwrap_or_else(|| "-".into());
    let operation = state.config.route_path(req.uri().path()).map_or("other", metrics::operation_label);
    // An OTA operation's traffic is counted in the rollups (not /healthz, /metrics, unknown paths).
    let counted = !matches!(operation, "healthz" | "metrics" | "other");
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        trace_id = tracing::field::Empty,
        method = %req.method(),
        path = %LogText(req.uri().path()),
        client = %client,
    );
    // With the exporter on, the ids are those of the exported span.
    if let Some((trace_id, span_id)) = crate::telemetry::continue_trace(&span, trace.caller()) {
        (trace.trace_id, trace.span_id) = (trace_id, span_id);
    }
    span.record("trace_id", tracing::field::display(&trace.trace_id));
    let started = Instant::now();
    let mut res = next.run(req).instrument(span.clone()).await;
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID_HEADER, v);
    }
    if let Ok(v) = HeaderValue::from_str(&trace.traceresponse()) {
        res.headers_mut().insert(TRACERESPONSE, v);
    }
    let status = res.status().as_u16();
    let took = started.elapsed();
    metrics::request(operation, status, took);
    let latency_ms = took.as_micros() as f64 / 1000.0;
    // Who asked and what the answer said, when an operation answered (the requestor's id is
    // one the gateway knows: it authenticated).
    let said = res.extensions().get::<operation::Said>();
    let requestor = said.and_then(|s| s.requestor.as_deref()).unwrap_or("-");
    let outcome = said.map_or("-", |s| s.outcome.0.as_str());
    if let Some(s) = said {
        metrics::answer(operation, &s.outcome.0);
    }
    if counted {
        state.rollups.record(&crate::traffic::Answered {
            at: chrono::Utc::now(),
            partner: said.and_then(|s| s.requestor.as_deref()),
            operation,
            status,
            outcome: said.map(|s| s.outcome.0.as_str()),
            look: said.and_then(|s| s.look),
            took,
        });
    }
    span.in_scope(|| {
        // A SOAP Fault is HTTP 500 by the SOAP binding, but the client's error.
        if status >= 500 && res.extensions().get::<super::soap::ClientFault>().is_none() {
            tracing::error!(status, requestor = %LogText(requestor), outcome = ?outcome, latency_ms, "request");
        } else {
            tracing::info!(status, requestor = %LogText(requestor), outcome = ?outcome, latency_ms, "request");
        }
    });
    res
}

/// Gives an OTA body to the bare error answers of the layers (408 from the time-out, 500 from a
/// caught panic) on operation paths.
pub(super) async fn ota_bodies(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let path = state.config.route_path(req.uri().path()).unwrap_or("").to_string();
    let res = next.run(req).await;
    let status = res.status();
    // An answer with a body of its own: OTA XML, or a SOAP envelope (a Fault is a 500).
    let is_xml = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(XML.as_bytes()) || v.as_bytes().starts_with(b"text/xml"));
    if status.is_success() || is_xml {
        return res;
    }
    let Some(op) = operation_at(&path) else {
        return res;
    };
    let problem = match status {
        StatusCode::REQUEST_TIMEOUT => Problem::not_processed_in_time(),
        s if s.is_server_error() => Problem::system(),
        _ => Problem::protocol(
            ErrorCode::UnableToProcess,
            format!("The request could not be processed (HTTP {status})."),
        ),
    };
    let mut out = ota_error(op, status, problem);
    out.headers_mut().extend(
        res.headers()
            .iter()
            .filter(|(k, _)| *k != header::CONTENT_TYPE && *k != header::CONTENT_LENGTH)
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    out
}

/// Answers given before the request body was read to its end (a 413, a 415, a 403, a time-out)
/// carry `Connection: close`: the rest of the body is never read, so the connection cannot serve
/// another request, and a client that is told so does not send its next request on it (and
/// lose that request when the gateway closes it).
pub(super) async fn close_if_unread(req: Request, next: Next) -> Response {
    let has_body = req.headers().contains_key(header::TRANSFER_ENCODING)
        || req.headers().get(header::CONTENT_LENGTH).is_some_and(|v| v.as_bytes() != b"0");
    if !has_body {
        return next.run(req).await;
    }
    let ended = Arc::new(AtomicBool::new(false));
    let req = req.map(|body| Body::new(WatchedBody { inner: body, ended: ended.clone() }));
    let mut res = next.run(req).await;
    if !ended.load(Ordering::Acquire) {
        res.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    res
}

/// A request body that records reaching its end.
struct WatchedBody {
    inner: Body,
    ended: Arc<AtomicBool>,
}

impl http_body::Body for WatchedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.ended.store(true, Ordering::Release);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        let end = self.inner.is_end_stream();
        if end {
            self.ended.store(true, Ordering::Release);
        }
        end
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// Refuses clients outside the allow-list (when one is set), before the body is read.
pub(super) async fn allow_list(State(state): State<AppState>, req: Request, next: Next) -> Response {
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
    match state.config.route_path(req.uri().path()).and_then(operation_at) {
        Some(op) => ota_error(op, StatusCode::FORBIDDEN, problem),
        None => (StatusCode::FORBIDDEN, "forbidden\n").into_response(),
    }
}

pub(super) fn panic_response(err: Box<dyn Any + Send + 'static>) -> Response {
    let what = err
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| err.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(panic = %LogText(&what), "a handler panicked");
    StatusCode::INTERNAL_SERVER_ERROR.into_response()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn request_ids() {
        assert_eq!(sane_request_id(&HeaderValue::from_static("abc-123")).as_deref(), Some("abc-123"));
        assert!(sane_request_id(&HeaderValue::from_static("has space")).is_none());
        assert!(sane_request_id(&HeaderValue::from_static("")).is_none());
    }
}
