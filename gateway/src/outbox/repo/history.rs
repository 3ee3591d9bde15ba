//! The delivery history: a booking's and a supplier's deliveries with their attempts, what is
//! still unacknowledged, and the purge of what was delivered long ago.

use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

use super::events::shown_outcome;
use super::{instant, opt_instant};

row! {
    /// An event as its delivery history shows it (a booking's, a supplier's), with its last
    /// attempt kept. Times are milliseconds since 1970 UTC (RFC 3339 instants in JSON).
    #[derive(serde::Serialize)]
    pub struct Delivery {
        /// Its id: the `MessageID` of every notification of it.
        id: i64,
        /// `hotel` or `activity`.
        booking_kind: String,
        /// The booking's Internal reference.
        booking_ref: String,
        /// The booking's Client reference (none: the booking is no longer stored).
        client_ref: Option<String>,
        /// The hotel it is about.
        hotel_code: String,
        /// Its place among its booking's events for this hotel.
        seq: i64,
        /// The supplier it is for.
        supplier_id: String,
        /// `new`, `modified` or `cancelled`.
        event_kind: String,
        /// `pending`, `delivered` (acknowledged) or `parked`.
        state: String,
        /// `push` (the supplier has a notification URL and it is a hotel booking's) or `pull`.
        delivery: String,
        /// When it was written.
        #[serde(serialize_with = "instant")]
        created_at: i64,
        /// When it was acknowledged.
        #[serde(serialize_with = "opt_instant")]
        delivered_at: Option<i64>,
        /// Push attempts since it was written, retried or resent (what parks it).
        attempts: i64,
        /// Why its last push failed (until it is delivered).
        last_error: Option<String>,
        /// When it was last resent.
        #[serde(serialize_with = "opt_instant")]
        resent_at: Option<i64>,
        /// Who asked for that resend.
        resent_by: Option<String>,
        /// How many attempts are kept.
        kept: i64,
        /// The last kept attempt: when.
        #[serde(serialize_with = "opt_instant")]
        last_at: Option<i64>,
        /// Its outcome (as [`Attempt::outcome`] shows it).
        last_outcome: Option<String>,
        /// Its HTTP status.
        last_http_status: Option<i64>,
        /// Its latency in milliseconds.
        last_latency_ms: Option<i64>,
    }
}

/// The query of [`Delivery`] rows, the time now in the placeholder `now`.
fn delivery_sql(now: &str) -> String {
    format!(
        "SELECT e.id, e.booking_kind, e.booking_ref, coalesce(hb.client_ref, ab.client_reference), e.hotel_code, e.seq, e.supplier_id,
       e.event_kind, e.state, CASE WHEN e.booking_kind = 'hotel' AND r.notify_url IS NOT NULL THEN 'push' ELSE 'pull' END,
       e.created_at, e.delivered_at, e.attempts, e.last_error, e.resent_at, e.resent_by,
       (SELECT count(*) FROM outbox_attempt k WHERE k.event_id = e.id), l.at,
       CASE WHEN l.id IS NULL THEN NULL ELSE {} END, l.http_status, l.latency_ms
     FROM outbox_event e
     LEFT JOIN requestor r ON r.id = e.supplier_id
     LEFT JOIN hotel_booking hb ON e.booking_kind = 'hotel' AND hb.internal_ref = e.booking_ref
     LEFT JOIN activity_booking ab ON e.booking_kind = 'activity' AND ab.reference = e.booking_ref
     LEFT JOIN outbox_attempt l ON l.id = (SELECT max(m.id) FROM outbox_attempt m WHERE m.event_id = e.id)",
        shown_outcome("l", "e", now)
    )
}

row! {
    /// One kept attempt at delivering an event: a push (`delivered`, `failed`, `parked`), a
    /// pull that gave it (`pulled`) or its acknowledgement (`acknowledged`).
    #[derive(serde::Serialize)]
    pub struct Attempt {
        /// Its id (attempts are numbered in the order kept).
        id: i64,
        /// The event.
        event_id: i64,
        /// `delivered`, `failed`, `parked` (failed, and the event parked), `pulled`,
        /// `acknowledged`; a push begun whose outcome is not stored: `in_flight` (its gateway
        /// still holds the event) or `interrupted` (it never completed: its gateway died or
        /// stopped mid-delivery; whether the receiver had it is unknown).
        outcome: String,
        /// A push: when it was sent; a pull: when read; an acknowledgement: when taken.
        #[serde(serialize_with = "instant")]
        at: i64,
        /// The gateway that made or served it (`HOST/PID/TOKEN`).
        gateway: Option<String>,
        /// A push's receiver URL, without user, password or query values.
        url: Option<String>,
        /// A push's HTTP status (none: no answer).
        http_status: Option<i64>,
        /// Why a push failed.
        error: Option<String>,
        /// A push's time from sending to the answer read (or the failure), in milliseconds.
        latency_ms: Option<i64>,
        /// The receiver's answer: its first 4 KiB as text (as sent: escape it to show it).
        answer: Option<String>,
        /// The answer's length in bytes: as declared when over the 64 KiB the outbox reads (it
        /// read no further), else as read; more than 4 KiB: the answer kept is its start.
        answer_bytes: Option<i64>,
        /// Whether it was a retransmission (the receiver or the supplier may have had it
        /// before).
        retransmission: bool,
        /// Who asked for the resend it answers (an operator, `cli:USER`).
        requested_by: Option<String>,
        /// A push's notification as sent: its first 64 KiB as text, passwords and card numbers
        /// out, personal values masked unless `body_masked` is false (as sent: escape it to
        /// show it). None: kept by a gateway before this was kept, or nothing was sent.
        body: Option<String>,
        /// The notification's length in bytes as sent (more than `body`: its start is kept).
        body_bytes: Option<i64>,
        /// Whether personal values are masked in `body` (the gateway's `--log-unmasked`).
        body_masked: bool,
    }
}

/// The events of the booking whose Internal or Client reference is `reference` (every
/// booking with that Client reference, whichever partner's), oldest first.
///
/// Each kind's events are found through their booking's Internal references (the reference
/// itself, and those of the bookings with it as Client reference): index lookups of
/// `outbox_event`'s `(booking_kind, booking_ref, …)` key, where one `OR` of the three made
/// both backends read every event.
pub async fn deliveries_of_booking(c: &mut Conn<'_>, reference: &str, now: i64) -> Result<Vec<Delivery>, StoreError> {
    c.query(
        &format!(
            "{}
             WHERE e.id IN (
                SELECT o.id FROM outbox_event o WHERE o.booking_kind = 'hotel' AND o.booking_ref IN
                  (SELECT CAST($1 AS TEXT) UNION SELECT internal_ref FROM hotel_booking WHERE client_ref = $1)
                UNION
                SELECT o.id FROM outbox_event o WHERE o.booking_kind = 'activity' AND o.booking_ref IN
                  (SELECT CAST($1 AS TEXT) UNION SELECT reference FROM activity_booking WHERE client_reference = $1))
             ORDER BY e.id",
            delivery_sql("$2")
        ),
        &[&reference, &now],
    )
    .await
}

/// Whether a booking of either kind has `reference` as its Internal or Client reference.
pub async fn booking_exists(c: &mut Conn<'_>, reference: &str) -> Result<bool, StoreError> {
    let found: Option<Scalar<i64>> = c
        .query_opt(
            "SELECT (SELECT count(*) FROM hotel_booking WHERE internal_ref = $1 OR client_ref = $1)
                  + (SELECT count(*) FROM activity_booking WHERE reference = $1 OR client_reference = $1)",
            &[&reference],
        )
        .await?;
    Ok(found.is_some_and(|Scalar(n)| n > 0))
}

/// The kept attempts of event `id`, oldest first, their outcomes as shown at `now`.
pub async fn attempts_of(c: &mut Conn<'_>, id: i64, now: i64) -> Result<Vec<Attempt>, StoreError> {
    c.query(
        &format!(
            "SELECT a.id, a.event_id, {}, a.at, a.gateway, a.url, a.http_status, a.error, a.latency_ms, a.answer, a.answer_bytes,
                    a.retransmission, a.requested_by, a.body, a.body_bytes, a.body_masked
             FROM outbox_attempt a LEFT JOIN outbox_event e ON e.id = a.event_id WHERE a.event_id = $1 ORDER BY a.id",
            shown_outcome("a", "e", "$2")
        ),
        &[&id, &now],
    )
    .await
}

/// What a supplier's deliveries are filtered by (all false / `None`: every event).
#[derive(Debug, Clone, Copy, Default)]
pub struct Filter {
    /// Only events not delivered whose last push failed.
    pub failing: bool,
    /// Only parked events.
    pub parked: bool,
    /// Only events not acknowledged and written at or before this time (milliseconds).
    pub unacked_since: Option<i64>,
}

/// A supplier's events matching `filter`, the newest first, at most `limit` (every supplier's:
/// `None`), their last attempts' outcomes as shown at `now`.
pub async fn deliveries_of_supplier(
    c: &mut Conn<'_>,
    supplier: Option<&str>,
    filter: Filter,
    limit: i64,
    now: i64,
) -> Result<Vec<Delivery>, StoreError> {
    // Two statements, not one with `$1 = '' OR …`: a supplier's is planned on its index.
    let whose = if supplier.is_some() { "e.supplier_id = $1" } else { "CAST($1 AS TEXT) = ''" };
    c.query(
        &format!(
            "{}
             WHERE {whose}
               AND ($2 = false OR (e.state <> 'delivered' AND e.last_error IS NOT NULL))
               AND ($3 = false OR e.state = 'parked')
               AND (CAST($4 AS BIGINT) < 0 OR (e.state IN ('pending', 'parked') AND e.created_at <= $4))
             ORDER BY e.id DESC LIMIT $5",
            delivery_sql("$6")
        ),
        &[&supplier.unwrap_or(""), &filter.failing, &filter.parked, &filter.unacked_since.unwrap_or(-1), &limit, &now],
    )
    .await
}

row! {
    /// The bookings not acknowledged in time: with an event not acknowledged (pending or
    /// parked) written at or before a time ([`unacknowledged_since`]).
    #[derive(serde::Serialize)]
    pub struct Unacked {
        /// How many bookings (of either kind).
        bookings: i64,
        /// How many events.
        events: i64,
        /// When the oldest of those events was written.
        #[serde(serialize_with = "opt_instant")]
        oldest: Option<i64>,
    }
}

/// The bookings with an event not acknowledged (pending or parked) written at or before
/// `since` (milliseconds since 1970), every supplier's: one statement over the events not
/// acknowledged (the index on the state).
pub async fn unacknowledged_since(c: &mut Conn<'_>, since: i64) -> Result<Unacked, StoreError> {
    c.query_one(
        "SELECT count(DISTINCT booking_kind || ':' || booking_ref), count(*), min(created_at) FROM outbox_event
         WHERE state IN ('pending', 'parked') AND created_at <= $1",
        &[&since],
    )
    .await
}

/// Whether `id` is a requestor's id.
pub async fn requestor_exists(c: &mut Conn<'_>, id: &str) -> Result<bool, StoreError> {
    let Scalar(n): Scalar<i64> = c.query_one("SELECT count(*) FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(n > 0)
}

/// Deletes up to `batch` events delivered before `before` (milliseconds since 1970), each but
/// the last of its booking and hotel (the next event's number follows that one's), with their
/// attempts; how many events.
pub(crate) async fn purge_delivered(c: &mut Conn<'_>, before: i64, batch: i64) -> Result<u64, StoreError> {
    let ids: Vec<Scalar<i64>> = c
        .query(
            "SELECT e.id FROM outbox_event e WHERE e.state = 'delivered' AND e.delivered_at < $1
               AND EXISTS (SELECT 1 FROM outbox_event n WHERE n.booking_kind = e.booking_kind AND n.booking_ref = e.booking_ref
                             AND n.hotel_code = e.hotel_code AND n.seq > e.seq) LIMIT $2",
            &[&before, &batch],
        )
        .await?;
    if ids.is_empty() {
        return Ok(0);
    }
    // The ids are the database's own integers: written into the statement, not bound one by one.
    let list = ids.iter().map(|Scalar(id)| id.to_string()).collect::<Vec<_>>().join(",");
    // Checked again: an event resent meanwhile is kept, with its attempts.
    let n = c.execute(&format!("DELETE FROM outbox_event WHERE id IN ({list}) AND state = 'delivered'"), &[]).await?;
    c.execute(
        &format!(
            "DELETE FROM outbox_attempt WHERE event_id IN ({list}) AND NOT EXISTS (SELECT 1 FROM outbox_event e WHERE e.id = outbox_attempt.event_id)"
        ),
        &[],
    )
    .await?;
    Ok(n)
}
