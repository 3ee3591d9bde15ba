//! All SQL of the outbox. Times are milliseconds since 1970 UTC.
//!
//! | module | what |
//! |---|---|
//! | [`events`] | the events to deliver: taking those due (a lease), settling them (delivered, to be retried, parked) with each attempt kept; the operator's list, retry and resend |
//! | [`pull`] | a supplier's pull and acknowledgement, the bookings an event names, where a supplier's notifications go |
//! | [`history`] | a booking's and a supplier's deliveries with their attempts; the purge of what was delivered |
//! | [`alerts`] | the booking alerts (e-mails): taking, settling, listing, retrying, purging |
//! | [`supplied`] | a supplier's reads of its bookings, by reference and by dates |

pub mod alerts;
pub mod events;
pub mod history;
pub mod pull;
pub mod supplied;

/// Serializes a time of milliseconds since 1970 as an RFC 3339 instant in UTC
/// (`2026-11-28T13:50:00.123Z`), for the rows of the history.
pub(super) fn instant<S: serde::Serializer>(ms: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&crate::store::values::millis_text(*ms))
}

/// [`instant`] of a time that may be missing (`null`).
pub(super) fn opt_instant<S: serde::Serializer>(ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match ms {
        Some(ms) => instant(ms, s),
        None => s.serialize_none(),
    }
}
