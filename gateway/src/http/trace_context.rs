//! W3C Trace Context on the way in and out: a request's `traceparent` is taken (a malformed one
//! is ignored and a new trace begun), the request is a span of that trace with an id of its own,
//! every log line of the request carries the `trace_id` (beside the `request_id`), and the
//! answer says which trace and span it was (`traceresponse`, Trace Context Level 2), so a
//! partner's tracing system links its call to the gateway's logs.

use axum::http::{HeaderMap, HeaderValue};

/// The request header of a caller's trace.
pub const TRACEPARENT: &str = "traceparent";
/// The answer header naming the gateway's span.
pub const TRACERESPONSE: &str = "traceresponse";

/// The trace a request belongs to and its own span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// 32 lowercase hex digits, not all zero: the caller's, or new.
    pub trace_id: String,
    /// The caller's span (16 hex digits), when it sent one.
    pub parent_id: Option<String>,
    /// This request's span: 16 lowercase hex digits, new.
    pub span_id: String,
    /// The trace flags (bit 0: sampled), the caller's or 01.
    pub flags: u8,
}

impl TraceContext {
    /// The context of a request: its valid `traceparent` continued, else a new trace.
    pub fn of(headers: &HeaderMap) -> TraceContext {
        let span_id = random_hex(8);
        match headers.get(TRACEPARENT).and_then(parse) {
            Some((trace_id, parent_id, flags)) => TraceContext { trace_id, parent_id: Some(parent_id), span_id, flags },
            None => TraceContext { trace_id: random_hex(16), parent_id: None, span_id, flags: 1 },
        }
    }

    /// The caller's trace, span and flags, when it sent a valid `traceparent`.
    pub fn caller(&self) -> Option<(&str, &str, u8)> {
        self.parent_id.as_deref().map(|parent| (self.trace_id.as_str(), parent, self.flags))
    }

    /// The `traceresponse` value: version 00, the trace, this request's span, the flags.
    pub fn traceresponse(&self) -> String {
        format!("00-{}-{}-{:02x}", self.trace_id, self.span_id, self.flags)
    }
}

/// `version-traceid-parentid-flags`: version 00 exactly four fields; a later version at least
/// those four (what follows is that version's); ids of the right length in lowercase hex, not
/// all zero; version ff is invalid.
fn parse(value: &HeaderValue) -> Option<(String, String, u8)> {
    let text = value.to_str().ok()?.trim();
    let fields: Vec<&str> = text.split('-').collect();
    let [version, trace_id, parent_id, flags, rest @ ..] = fields.as_slice() else { return None };
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let zero = |s: &str| s.bytes().all(|b| b == b'0');
    if !hex(version, 2) || *version == "ff" || (*version == "00" && !rest.is_empty()) {
        return None;
    }
    if !hex(trace_id, 32) || zero(trace_id) || !hex(parent_id, 16) || zero(parent_id) || !hex(flags, 2) {
        return None;
    }
    Some((trace_id.to_string(), parent_id.to_string(), u8::from_str_radix(flags, 16).ok()?))
}

/// `bytes` random bytes as lowercase hex.
fn random_hex(bytes: usize) -> String {
    let random = uuid::Uuid::new_v4();
    let more = uuid::Uuid::new_v4();
    random.as_bytes().iter().chain(more.as_bytes()).take(bytes).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn with(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(TRACEPARENT, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn a_valid_traceparent_is_continued() {
        let t = TraceContext::of(&with("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
        assert_eq!(t.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(t.parent_id.as_deref(), Some("00f067aa0ba902b7"));
        assert_eq!((t.span_id.len(), t.flags), (16, 1));
        assert_ne!(t.span_id, "00f067aa0ba902b7");
        assert!(t.traceresponse().starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-"));
        // A later version may carry more.
        assert!(
            TraceContext::of(&with("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra"))
                .parent_id
                .is_some()
        );
    }

    #[test]
    fn a_malformed_one_begins_a_new_trace() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
        ] {
            let t = TraceContext::of(&with(bad));
            assert_eq!((t.parent_id, t.trace_id.len()), (None, 32), "{bad:?}");
            assert_ne!(t.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        }
    }
}
