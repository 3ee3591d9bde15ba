//! The capture of the transaction log ([`crate::txlog`]): a layer on the operation paths that
//! hands each request a [`Recording`] (filled by the operation's handler with the body it read
//! and the requestor that authenticated) and, after the answer, queues the request and answer
//! for the log's writer when the requestor's policy wants them. An error answer to a request
//! that did not authenticate (a schema error, a wrong `Version` or password) counts as the
//! requestor its POS names, when there is one.
//!
//! It costs a request nothing when no requestor is logged (one flag of the requestors in
//! memory), and otherwise a body reference and a lookup: the bodies are shared buffers, never
//! copied, and all the masking and writing happens in the writer, off the request path. The one
//! parse on the request path, of a failed request for the partner it names, is the decoder's,
//! bounded ([`crate::txlog::mask::claimed_requestor`]): an attribute bomb is refused in one pass
//! over its bytes, as the decoder refused it.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use chrono::Utc;
use http_body_util::BodyExt;

use super::{RequestId, operation_at};
use crate::state::AppState;
use crate::txlog::Captured;

/// What the handler of a logged request tells the capture (a request extension).
#[derive(Debug, Clone, Default)]
pub(super) struct Recording(Arc<Mutex<Slot>>);

#[derive(Debug, Default)]
struct Slot {
    /// The request body as read (decompressed).
    request: Option<Bytes>,
    /// The requestor that authenticated.
    requestor: Option<String>,
}

impl Recording {
    /// The body the handler read.
    pub(super) fn request(&self, body: &Bytes) {
        if let Ok(mut slot) = self.0.lock() {
            slot.request = Some(body.clone());
        }
    }

    /// The requestor that authenticated.
    pub(super) fn requestor(&self, id: &str) {
        if let Ok(mut slot) = self.0.lock() {
            slot.requestor = Some(id.to_string());
        }
    }

    fn take(&self) -> (Option<Bytes>, Option<String>) {
        match self.0.lock() {
            Ok(mut slot) => (slot.request.take(), slot.requestor.take()),
            Err(_) => (None, None),
        }
    }
}

/// How far into an answer `<Errors` is looked for: an OTA answer's `Errors` (or `Success`)
/// comes first in its root, within the envelope of a SOAP answer.
const ERRORS_WITHIN: usize = 4096;

/// True when an answer is an error answer: a status other than 200, or OTA `Errors`.
fn failed(status: StatusCode, answer: &[u8]) -> bool {
    status != StatusCode::OK || answer[..answer.len().min(ERRORS_WITHIN)].windows(7).any(|w| w == b"<Errors")
}

/// The layer (see the module docs).
pub(super) async fn record(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let content = state.content.get();
    if !content.requestors.logs_any() {
        return next.run(req).await;
    }
    let Some(op) = state.config.route_path(req.uri().path()).and_then(operation_at) else {
        return next.run(req).await;
    };
    let (at, started) = (Utc::now(), Instant::now());
    let request_id = req.extensions().get::<RequestId>().map(|r| r.0.clone()).unwrap_or_default();
    let recording = Recording::default();
    req.extensions_mut().insert(recording.clone());
    let res = next.run(req).await;
    let (Some(request), requestor) = recording.take() else { return res };
    // A request that did not authenticate (a schema error, a wrong Version or password) is an
    // error of the partner it names: kept when that partner's errors are.
    let authenticated = requestor.is_some();
    let Some(requestor) = requestor.or_else(|| crate::txlog::mask::claimed_requestor(&request)) else {
        return res;
    };
    let Some(policy) =
        state.content.get().requestors.get(&requestor).map(|r| r.log).filter(|p| p.level != crate::txlog::Level::Off)
    else {
        return res;
    };
    let status = res.status();
    // The gateway's answers are whole bodies: collecting one takes its buffer, no copy.
    let (parts, body) = res.into_parts();
    let answer = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => {
            tracing::warn!(error = %e, "an answer could not be read for the transaction log");
            return Response::from_parts(parts, Body::empty());
        }
    };
    let operation = op.path.trim_start_matches('/');
    let failed = failed(status, &answer);
    if (authenticated || failed) && policy.wants(operation, failed) {
        state.txlog.record(Captured {
            at,
            requestor,
            operation,
            request_id,
            status: status.as_u16(),
            failed,
            duration: started.elapsed(),
            content_version: content.version,
            request,
            answer: answer.clone(),
            authenticated,
        });
    }
    Response::from_parts(parts, Body::from(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_answers() {
        assert!(failed(StatusCode::OK, b"<OTA_ReadRS Version=\"1\"><Errors><Error/></Errors></OTA_ReadRS>"));
        assert!(!failed(StatusCode::OK, b"<OTA_ReadRS Version=\"1\"><Success/></OTA_ReadRS>"));
        assert!(failed(StatusCode::TOO_MANY_REQUESTS, b""));
    }
}
