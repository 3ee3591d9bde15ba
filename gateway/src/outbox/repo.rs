//! All SQL of the outbox: taking the events due (a lease), settling them (delivered, to be
//! retried, parked) with the attempt kept, listing, retrying and resending them for the
//! operator, the history of a booking's or a supplier's deliveries, the supplier's pull and
//! acknowledgement, the bookings an event names, and a supplier's reads of its bookings by
//! reference and by dates. Times are milliseconds since 1970 UTC.

use chrono::{Days, NaiveDate, NaiveTime};

use crate::shared::booking::{Kind, ListDate};
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

row! {
    /// An event as delivery and the operator see it.
    pub struct EventRow {
        /// Its row id.
        id: i64,
        /// `hotel` or `activity`.
        booking_kind: String,
        /// The booking's Internal reference.
        booking_ref: String,
        /// The hotel it is about.
        hotel_code: String,
        /// Its place among its booking's events for this hotel (1, 2, …).
        seq: i64,
        /// The supplier it is for.
        supplier_id: String,
        /// `new`, `modified` or `cancelled`.
        event_kind: String,
        /// The booking's revision.
        revision: i64,
        /// When it was written.
        created_at: i64,
        /// `pending`, `delivered` or `parked`.
        state: String,
        /// Delivery attempts so far (each taking counts one).
        attempts: i64,
        /// Not before then.
        next_attempt_at: i64,
        /// When it was acknowledged.
        delivered_at: Option<i64>,
        /// Why the last attempt failed.
        last_error: Option<String>,
        /// Where it is pushed (none: the supplier pulls).
        notify_url: Option<String>,
        /// When it was last resent (`outbox resend`).
        resent_at: Option<i64>,
        /// Who asked for that resend.
        resent_by: Option<String>,
        /// Whether its receiver may have seen it before: an attempt after its first, after a
        /// retry or a resend (the notification's `RetransmissionIndicator`).
        retransmission: bool,
    }
}

/// A push attempt's outcomes as kept in `outbox_attempt.outcome` (`sending`: begun, its outcome
/// not stored yet — in flight, or interrupted).
pub const PUSH_OUTCOMES: &str = "('sending', 'delivered', 'failed', 'parked')";

/// What a push attempt's row says while the notification is sent: the row is written before it
/// is sent and completed after ([`start_attempt`], [`complete_attempt`]).
pub const SENDING: &str = "sending";

/// An attempt begun and not completed whose event its gateway still holds (shown so).
pub const IN_FLIGHT: &str = "in_flight";

/// An attempt begun and never completed (its gateway died or stopped mid-delivery): its
/// outcome is unknown — the receiver may or may not have had the notification. Shown so, never
/// as failed or delivered; the event is sent again.
pub const INTERRUPTED: &str = "interrupted";

/// The outcome of attempt `a` (of event `e`) as shown, at the time in the placeholder `now`: a
/// `sending` row is [`IN_FLIGHT`] while its gateway holds its event (the lease not run out) and
/// it is the event's last attempt, else [`INTERRUPTED`].
fn shown_outcome(a: &str, e: &str, now: &str) -> String {
    format!(
        "CASE WHEN {a}.outcome <> 'sending' THEN {a}.outcome
              WHEN {e}.state = 'pending' AND {e}.taken_by = {a}.gateway AND {e}.taken_until >= {now}
                   AND {a}.id = (SELECT max(z.id) FROM outbox_attempt z WHERE z.event_id = {a}.event_id) THEN '{IN_FLIGHT}'
              ELSE '{INTERRUPTED}' END"
    )
}

const COLUMNS: &str = "e.id, e.booking_kind, e.booking_ref, e.hotel_code, e.seq, e.supplier_id, e.event_kind, e.revision, e.created_at, e.state, \
                       e.attempts, e.next_attempt_at, e.delivered_at, e.last_error, r.notify_url, e.resent_at, e.resent_by, \
                       (e.attempts > 1 OR e.resent_at IS NOT NULL OR EXISTS (SELECT 1 FROM outbox_attempt a WHERE a.event_id = e.id \
                          AND a.outcome IN ('sending', 'delivered', 'failed', 'parked')))";

/// An event none of whose booking's earlier events (for the same hotel and supplier) is
/// undelivered. (A hotel given to another supplier: the new supplier's events do not wait for
/// the old one's.)
const FIRST_UNDELIVERED: &str = "NOT EXISTS (SELECT 1 FROM outbox_event p WHERE p.booking_kind = e.booking_kind AND p.booking_ref = e.booking_ref \
                                 AND p.hotel_code = e.hotel_code AND p.seq < e.seq AND p.supplier_id = e.supplier_id AND p.state <> 'delivered')";

/// Whether any event is due at `now` for [`take_due`] (one statement, no lock: an idle gateway
/// looks with this, and takes a write transaction only when there is something to take).
pub async fn any_due(c: &mut Conn<'_>, now: i64) -> Result<bool, StoreError> {
    let found: Option<Scalar<i64>> = c
        .query_opt(
            &format!(
                "SELECT e.id FROM outbox_event e JOIN requestor r ON r.id = e.supplier_id
                 WHERE e.booking_kind = 'hotel' AND e.state = 'pending' AND e.next_attempt_at <= $1 AND (e.taken_until IS NULL OR e.taken_until < $1)
                   AND r.notify_url IS NOT NULL AND {FIRST_UNDELIVERED} LIMIT 1"
            ),
            &[&now],
        )
        .await?;
    Ok(found.is_some())
}

/// Takes up to `limit` hotel bookings' events due at `now` for suppliers with a notification URL
/// (an activity booking's are pulled only), each the first undelivered of its booking and hotel
/// and held by no other gateway: each is held by `gateway` until `until` and counts one more
/// attempt. In the caller's write transaction.
///
/// Fair shares: a supplier never has more than `per_supplier` events held at once (by any
/// gateway: the leases not run out count), and the events are taken in turn across suppliers —
/// every supplier's first due event (oldest due first), then every supplier's second, … — so
/// one supplier's backlog or hanging receiver never fills a round. Every gateway numbers the
/// candidates alike (by due time and id), so two gateways taking at once go for the same rows
/// (PostgreSQL: the one that locked them first takes them; the other skips them) and never
/// together take more than a supplier's share.
pub async fn take_due(
    c: &mut Conn<'_>,
    now: i64,
    until: i64,
    limit: i64,
    per_supplier: i64,
    gateway: &str,
) -> Result<Vec<EventRow>, StoreError> {
    let lock = c.skip_locked("e");
    // The window function is in a subquery: PostgreSQL locks no row of a query level that has
    // one, so the outer level locks the events (and sees again, for a row another gateway
    // changed meanwhile, that it is pending and free).
    let ids: Vec<Scalar<i64>> = c
        .query(
            &format!(
                "SELECT e.id FROM outbox_event e JOIN (
                   SELECT d.id, d.turn FROM (
                     SELECT e.id, e.supplier_id, row_number() OVER (PARTITION BY e.supplier_id ORDER BY e.next_attempt_at, e.id) AS turn
                     FROM outbox_event e JOIN requestor r ON r.id = e.supplier_id
                     WHERE e.booking_kind = 'hotel' AND e.state = 'pending' AND e.next_attempt_at <= $1 AND (e.taken_until IS NULL OR e.taken_until < $1)
                       AND r.notify_url IS NOT NULL AND {FIRST_UNDELIVERED}) d
                   LEFT JOIN (SELECT supplier_id, count(*) AS held FROM outbox_event
                              WHERE state = 'pending' AND taken_until IS NOT NULL AND taken_until >= $1 GROUP BY supplier_id) h
                     ON h.supplier_id = d.supplier_id
                   WHERE d.turn + coalesce(h.held, 0) <= $3) t ON t.id = e.id
                 WHERE e.state = 'pending' AND (e.taken_until IS NULL OR e.taken_until < $1)
                 ORDER BY t.turn, e.next_attempt_at, e.id LIMIT $2 {lock}"
            ),
            &[&now, &limit, &per_supplier],
        )
        .await?;
    let mut out = Vec::with_capacity(ids.len());
    for Scalar(id) in ids {
        let taken = c
            .execute(
                "UPDATE outbox_event SET taken_until = $2, taken_by = $4, attempts = attempts + 1 WHERE id = $1 AND state = 'pending' AND (taken_until IS NULL OR taken_until < $3)",
                &[&id, &until, &now, &gateway],
            )
            .await?;
        if taken == 1 {
            out.extend(
                c.query_opt::<EventRow>(
                    &format!(
                        "SELECT {COLUMNS} FROM outbox_event e JOIN requestor r ON r.id = e.supplier_id WHERE e.id = $1"
                    ),
                    &[&id],
                )
                .await?,
            );
        }
    }
    Ok(out)
}

/// How many events are pending and parked now (every supplier's).
pub async fn counts(c: &mut Conn<'_>) -> Result<(i64, i64), StoreError> {
    row! { struct Counts { pending: i64, parked: i64 } }
    let n: Counts = c
        .query_one(
            "SELECT coalesce(sum(CASE WHEN state = 'pending' THEN 1 ELSE 0 END), 0), coalesce(sum(CASE WHEN state = 'parked' THEN 1 ELSE 0 END), 0)
             FROM outbox_event WHERE state <> 'delivered'",
            &[],
        )
        .await?;
    Ok((n.pending, n.parked))
}

/// Gives back the events `gateway` holds (it stops; their deliveries in flight are not waited
/// for): any gateway takes them again at once. How many.
pub async fn release(c: &mut Conn<'_>, gateway: &str) -> Result<u64, StoreError> {
    c.execute("UPDATE outbox_event SET taken_until = NULL, taken_by = NULL WHERE taken_by = $1 AND taken_until IS NOT NULL AND state = 'pending'", &[&gateway]).await
}

/// The event was acknowledged at `now`: true when settled, false when a resend since it was
/// taken (its `resent_at` then was `as_taken`) asks for another attempt (the lease is then given
/// back, the event due at once). Compared by value, not by time: the clocks of the gateway and
/// of whoever resent it need not agree.
pub async fn delivered(c: &mut Conn<'_>, id: i64, now: i64, as_taken: Option<i64>) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "UPDATE outbox_event SET state = 'delivered', delivered_at = $2, taken_until = NULL, last_error = NULL
             WHERE id = $1 AND state <> 'delivered' AND coalesce(resent_at, -1) = $3",
            &[&id, &now, &as_taken.unwrap_or(-1)],
        )
        .await?;
    settled_or_given_back(c, id, n).await
}

/// The attempt failed: try again at `next` (see [`delivered`] for `as_taken` and the answer).
pub async fn failed(
    c: &mut Conn<'_>,
    id: i64,
    next: i64,
    error: &str,
    as_taken: Option<i64>,
) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "UPDATE outbox_event SET next_attempt_at = $2, taken_until = NULL, last_error = $3
             WHERE id = $1 AND state = 'pending' AND coalesce(resent_at, -1) = $4",
            &[&id, &next, &error, &as_taken.unwrap_or(-1)],
        )
        .await?;
    settled_or_given_back(c, id, n).await
}

/// The attempt failed and was the last allowed: parked until the operator retries or resends
/// it (see [`delivered`] for `as_taken` and the answer).
pub async fn parked(c: &mut Conn<'_>, id: i64, error: &str, as_taken: Option<i64>) -> Result<bool, StoreError> {
    let n = c
        .execute(
            "UPDATE outbox_event SET state = 'parked', taken_until = NULL, last_error = $2
             WHERE id = $1 AND state = 'pending' AND coalesce(resent_at, -1) = $3",
            &[&id, &error, &as_taken.unwrap_or(-1)],
        )
        .await?;
    settled_or_given_back(c, id, n).await
}

/// After a settling update that changed `n` rows: when none (a resend came since the event was
/// taken), its lease is given back so that any gateway takes it at once.
async fn settled_or_given_back(c: &mut Conn<'_>, id: i64, n: u64) -> Result<bool, StoreError> {
    if n == 0 {
        c.execute("UPDATE outbox_event SET taken_until = NULL WHERE id = $1 AND state = 'pending'", &[&id]).await?;
    }
    Ok(n > 0)
}

/// One push attempt, as kept in `outbox_attempt` (see the migrations for each column).
#[derive(Debug, Clone, Default)]
pub struct NewAttempt {
    /// The event.
    pub event_id: i64,
    /// `delivered`, `failed` or `parked` (`sending` while it is sent: [`start_attempt`]).
    pub outcome: &'static str,
    /// When it was sent.
    pub at: i64,
    /// The gateway that made it.
    pub gateway: String,
    /// The receiver URL, redacted ([`super::rules::redacted_url`]).
    pub url: Option<String>,
    /// The HTTP status of the answer.
    pub http_status: Option<i64>,
    /// Why it failed.
    pub error: Option<String>,
    /// From sending to the answer read (or the failure), in milliseconds.
    pub latency_ms: Option<i64>,
    /// The answer, bounded ([`super::rules::kept_answer`]).
    pub answer: Option<String>,
    /// The answer's length (as declared when over the bound, else as read).
    pub answer_bytes: Option<i64>,
    /// Whether the notification was marked a retransmission.
    pub retransmission: bool,
    /// Who asked for the resend it answers.
    pub requested_by: Option<String>,
    /// The notification sent, as kept ([`super::deliver::kept_body`]).
    pub body: Option<String>,
    /// The notification's length as sent.
    pub body_bytes: Option<i64>,
    /// Whether personal values are masked in `body`.
    pub body_masked: bool,
}

/// Keeps a push attempt (in the transaction that stores its outcome).
pub async fn record_attempt(c: &mut Conn<'_>, a: &NewAttempt) -> Result<(), StoreError> {
    c.execute(
        "INSERT INTO outbox_attempt (event_id, outcome, at, gateway, url, http_status, error, latency_ms, answer, answer_bytes, retransmission, requested_by, body, body_bytes, body_masked)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        &[
            &a.event_id,
            &a.outcome,
            &a.at,
            &a.gateway,
            &a.url,
            &a.http_status,
            &a.error,
            &a.latency_ms,
            &a.answer,
            &a.answer_bytes,
            &a.retransmission,
            &a.requested_by,
            &a.body,
            &a.body_bytes,
            &a.body_masked,
        ],
    )
    .await?;
    Ok(())
}

/// Keeps that a push attempt begins, before its notification is sent (its own transaction,
/// committed first): a row `sending` with its time, gateway, receiver URL and the notification,
/// completed by [`complete_attempt`]. A gateway killed while the receiver holds the request
/// leaves it so: shown as [`INTERRUPTED`]. Its id.
pub async fn start_attempt(c: &mut Conn<'_>, a: &NewAttempt) -> Result<i64, StoreError> {
    let Scalar(id): Scalar<i64> = c
        .query_one(
            "INSERT INTO outbox_attempt (event_id, outcome, at, gateway, url, retransmission, requested_by, body, body_bytes, body_masked)
             VALUES ($1, 'sending', $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
            &[
                &a.event_id,
                &a.at,
                &a.gateway,
                &a.url,
                &a.retransmission,
                &a.requested_by,
                &a.body,
                &a.body_bytes,
                &a.body_masked,
            ],
        )
        .await?;
    Ok(id)
}

/// Completes attempt `id` begun by [`start_attempt`] with its outcome (in the transaction that
/// stores the event's): its outcome, HTTP status, error, latency and answer.
pub async fn complete_attempt(c: &mut Conn<'_>, id: i64, a: &NewAttempt) -> Result<(), StoreError> {
    c.execute(
        "UPDATE outbox_attempt SET outcome = $2, http_status = $3, error = $4, latency_ms = $5, answer = $6, answer_bytes = $7
         WHERE id = $1 AND outcome = 'sending'",
        &[&id, &a.outcome, &a.http_status, &a.error, &a.latency_ms, &a.answer, &a.answer_bytes],
    )
    .await?;
    Ok(())
}

/// Keeps that `supplier`'s pull was given, at `now` by `gateway`, the unacknowledged events of
/// a booking and hotel up to event `upto` (the last one its read saw): one `pulled` attempt
/// each, a retransmission when pulled before or resent (`requested_by` the resend's).
pub async fn record_pulled(
    c: &mut Conn<'_>,
    supplier: &str,
    u: &Unacknowledged,
    now: i64,
    gateway: &str,
) -> Result<u64, StoreError> {
    c.execute(
        "INSERT INTO outbox_attempt (event_id, outcome, at, gateway, retransmission, requested_by)
         SELECT e.id, 'pulled', CAST($6 AS BIGINT), CAST($7 AS TEXT),
                (e.resent_at IS NOT NULL OR EXISTS (SELECT 1 FROM outbox_attempt a WHERE a.event_id = e.id AND a.outcome = 'pulled')), e.resent_by
         FROM outbox_event e
         WHERE e.supplier_id = $1 AND e.booking_kind = $2 AND e.booking_ref = $3 AND e.hotel_code = $4 AND e.id <= $5 AND e.state <> 'delivered'",
        &[&supplier, &u.booking_kind, &u.booking_ref, &u.hotel_code, &u.id, &now, &gateway],
    )
    .await
}

/// The events in `state` (all: `None`) for `supplier` (all: `None`), oldest first, at most
/// `limit`.
pub async fn list(
    c: &mut Conn<'_>,
    state: Option<&str>,
    supplier: Option<&str>,
    limit: i64,
) -> Result<Vec<EventRow>, StoreError> {
    c.query(
        &format!(
            "SELECT {COLUMNS} FROM outbox_event e LEFT JOIN requestor r ON r.id = e.supplier_id
             WHERE ($1 = '' OR e.state = $1) AND ($3 = '' OR e.supplier_id = $3) ORDER BY e.id LIMIT $2"
        ),
        &[&state.unwrap_or(""), &limit, &supplier.unwrap_or("")],
    )
    .await
}

/// Sends a parked event again (all parked events: `None`) from now on, with its attempts
/// counted afresh: the number of events.
pub async fn retry(c: &mut Conn<'_>, id: Option<i64>, now: i64) -> Result<u64, StoreError> {
    c.execute(
        "UPDATE outbox_event SET state = 'pending', attempts = 0, next_attempt_at = $2, taken_until = NULL WHERE state = 'parked' AND ($3 OR id = $1)",
        &[&id.unwrap_or(0), &now, &id.is_none()],
    )
    .await
}

/// Asks for a new attempt at any event (delivered, acknowledged, pending or parked), from
/// `now`, asked by `requested_by`: it is pending again with its attempts counted afresh, and
/// each attempt from then on is a retransmission asked for by them. Its state before and its
/// row after (`None`: no such event).
pub async fn resend(
    c: &mut Conn<'_>,
    id: i64,
    now: i64,
    requested_by: &str,
) -> Result<Option<(String, EventRow)>, StoreError> {
    let lock = c.for_update();
    let before: Option<Scalar<String>> =
        c.query_opt(&format!("SELECT state FROM outbox_event WHERE id = $1 {lock}"), &[&id]).await?;
    let Some(Scalar(state)) = before else { return Ok(None) };
    c.execute(
        "UPDATE outbox_event SET state = 'pending', attempts = 0, next_attempt_at = $2, delivered_at = NULL, resent_at = $2, resent_by = $3 WHERE id = $1",
        &[&id, &now, &requested_by],
    )
    .await?;
    let after = c
        .query_one::<EventRow>(
            &format!(
                "SELECT {COLUMNS} FROM outbox_event e LEFT JOIN requestor r ON r.id = e.supplier_id WHERE e.id = $1"
            ),
            &[&id],
        )
        .await?;
    Ok(Some((state, after)))
}

/// The earliest event of the same booking, hotel and supplier before event `id` that is not
/// delivered (event `id` is only sent after it), if any.
pub async fn waits_for(c: &mut Conn<'_>, id: i64) -> Result<Option<i64>, StoreError> {
    let found: Option<Scalar<i64>> = c
        .query_opt(
            "SELECT p.id FROM outbox_event e JOIN outbox_event p ON p.booking_kind = e.booking_kind AND p.booking_ref = e.booking_ref
               AND p.hotel_code = e.hotel_code AND p.supplier_id = e.supplier_id AND p.seq < e.seq AND p.state <> 'delivered'
             WHERE e.id = $1 ORDER BY p.seq LIMIT 1",
            &[&id],
        )
        .await?;
    Ok(found.map(|Scalar(id)| id))
}

row! {
    /// A booking with events its supplier has not acknowledged (the pull).
    pub struct Unacknowledged {
        /// `hotel` or `activity`.
        booking_kind: String,
        /// Its Internal reference.
        booking_ref: String,
        /// The hotel.
        hotel_code: String,
        /// The last event's place (what an acknowledgement names).
        seq: i64,
        /// The last event's kind.
        event_kind: String,
        /// The last event's id.
        id: i64,
    }
}

/// The bookings (per hotel) with events `supplier` has not acknowledged, the oldest event
/// first, at most `limit`; each with its last event.
pub async fn unacknowledged(c: &mut Conn<'_>, supplier: &str, limit: i64) -> Result<Vec<Unacknowledged>, StoreError> {
    c.query(
        "SELECT e.booking_kind, e.booking_ref, e.hotel_code, e.seq, e.event_kind, e.id FROM outbox_event e
         JOIN (SELECT booking_kind, booking_ref, hotel_code, min(id) AS first, max(seq) AS last FROM outbox_event
               WHERE supplier_id = $1 AND state <> 'delivered' GROUP BY booking_kind, booking_ref, hotel_code) u
           ON u.booking_kind = e.booking_kind AND u.booking_ref = e.booking_ref AND u.hotel_code = e.hotel_code AND u.last = e.seq
         ORDER BY u.first LIMIT $2",
        &[&supplier, &limit],
    )
    .await
}

/// How a pull acknowledges a booking's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upto {
    /// Up to an event (its id, the `MessageID` of a push), of the same booking.
    Event(i64),
    /// Up to a version of the booking: the events whose version is before this instant
    /// (milliseconds; the version as shown has whole seconds, so the next second's start).
    Before(i64),
}

/// Acknowledges, for `supplier`, the events of a booking up to `upto`, each with an
/// `acknowledged` attempt kept (served by `gateway`; `by`: the operator who acknowledged it in
/// the extranet, kept as the attempt's `requested_by` — none for the supplier's system): how
/// many were not acknowledged before.
pub async fn acknowledge(
    c: &mut Conn<'_>,
    supplier: &str,
    booking_ref: &str,
    upto: Upto,
    now: i64,
    gateway: &str,
    by: Option<&str>,
) -> Result<u64, StoreError> {
    let (column, limit) = match upto {
        Upto::Event(id) => ("id <= $3", id),
        Upto::Before(ms) => ("version < $3", ms),
    };
    c.execute(
        &format!(
            "INSERT INTO outbox_attempt (event_id, outcome, at, gateway, retransmission, requested_by)
             SELECT id, 'acknowledged', CAST($4 AS BIGINT), CAST($5 AS TEXT), false, COALESCE(CAST($6 AS TEXT), resent_by) FROM outbox_event
             WHERE supplier_id = $1 AND booking_ref = $2 AND {column} AND state <> 'delivered'"
        ),
        &[&supplier, &booking_ref, &limit, &now, &gateway, &by],
    )
    .await?;
    c.execute(
        &format!(
            "UPDATE outbox_event SET state = 'delivered', delivered_at = $4, taken_until = NULL
             WHERE supplier_id = $1 AND booking_ref = $2 AND {column} AND state <> 'delivered'"
        ),
        &[&supplier, &booking_ref, &limit, &now],
    )
    .await
}

/// Whether event `id` is one of this booking's for `supplier` (a `MessageID` it may acknowledge
/// up to).
pub async fn is_event_of(c: &mut Conn<'_>, supplier: &str, booking_ref: &str, id: i64) -> Result<bool, StoreError> {
    let found: Option<Scalar<i64>> = c
        .query_opt(
            "SELECT id FROM outbox_event WHERE supplier_id = $1 AND booking_ref = $2 AND id = $3",
            &[&supplier, &booking_ref, &id],
        )
        .await?;
    Ok(found.is_some())
}

/// Whether `supplier` was ever given an event of this booking.
pub async fn known(c: &mut Conn<'_>, supplier: &str, booking_ref: &str) -> Result<bool, StoreError> {
    let found: Option<Scalar<i64>> = c
        .query_opt(
            "SELECT id FROM outbox_event WHERE supplier_id = $1 AND booking_ref = $2 LIMIT 1",
            &[&supplier, &booking_ref],
        )
        .await?;
    Ok(found.is_some())
}

/// The row id of the booking an event names (a hotel booking's, or an activity booking's with
/// its owner).
pub async fn booking_of(c: &mut Conn<'_>, kind: Kind, booking_ref: &str) -> Result<Option<(i64, String)>, StoreError> {
    row! { struct IdOwner { id: i64, owner: String } }
    let sql = match kind {
        Kind::Hotel => "SELECT id, requestor_id FROM hotel_booking WHERE internal_ref = $1",
        Kind::Activity => "SELECT id, requestor_id FROM activity_booking WHERE reference = $1",
    };
    Ok(c.query_opt::<IdOwner>(sql, &[&booking_ref]).await?.map(|r| (r.id, r.owner)))
}

/// Sets (or, with `None`, removes) a requestor's notification URL: false when there is no such
/// requestor.
pub async fn set_notify_url(c: &mut Conn<'_>, id: &str, url: Option<String>) -> Result<bool, StoreError> {
    Ok(c.execute("UPDATE requestor SET notify_url = $2 WHERE id = $1", &[&id, &url]).await? == 1)
}

/// A requestor's notification URL (`None`: none, or no such requestor).
pub async fn notify_url(c: &mut Conn<'_>, id: &str) -> Result<Option<String>, StoreError> {
    let found: Option<Scalar<Option<String>>> =
        c.query_opt("SELECT notify_url FROM requestor WHERE id = $1", &[&id]).await?;
    Ok(found.and_then(|Scalar(u)| u))
}

/// Serializes a time of milliseconds since 1970 as an RFC 3339 instant in UTC
/// (`2026-11-28T13:50:00.123Z`), for the rows of the history.
fn instant<S: serde::Serializer>(ms: &i64, s: S) -> Result<S::Ok, S::Error> {
    match chrono::DateTime::from_timestamp_millis(*ms) {
        Some(t) => s.serialize_str(&t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()),
        None => s.serialize_i64(*ms),
    }
}

/// [`instant`] of a time that may be missing (`null`).
fn opt_instant<S: serde::Serializer>(ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match ms {
        Some(ms) => instant(ms, s),
        None => s.serialize_none(),
    }
}

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

row! {
    /// A booking alert: one e-mail for one event to one address (`booking_alert`, see
    /// `super::alerts`). Times are milliseconds since 1970 UTC (RFC 3339 instants in JSON).
    #[derive(serde::Serialize)]
    pub struct AlertRow {
        /// Its id.
        id: i64,
        /// The outbox event it tells of.
        event_id: i64,
        /// The recipient.
        address: String,
        /// The supplier whose address it is.
        supplier_id: String,
        /// `hotel` or `activity`.
        booking_kind: String,
        /// The booking's Internal reference.
        booking_ref: String,
        /// The hotel.
        hotel_code: String,
        /// `new`, `modified` or `cancelled`.
        event_kind: String,
        /// When it was queued (with its event).
        #[serde(serialize_with = "instant")]
        created_at: i64,
        /// `pending`, `sent` (the relay accepted it) or `parked`.
        state: String,
        /// Attempts since it was queued or retried.
        attempts: i64,
        /// The next attempt not before then.
        #[serde(serialize_with = "instant")]
        next_attempt_at: i64,
        /// When the relay accepted it.
        #[serde(serialize_with = "opt_instant")]
        sent_at: Option<i64>,
        /// Why the last attempt failed.
        last_error: Option<String>,
    }
}

const ALERT_COLUMNS: &str = "a.id, a.event_id, a.address, a.supplier_id, a.booking_kind, a.booking_ref, a.hotel_code, a.event_kind, \
                             a.created_at, a.state, a.attempts, a.next_attempt_at, a.sent_at, a.last_error";

/// Whether any alert is due at `now` (one statement, no lock).
pub async fn any_alert_due(c: &mut Conn<'_>, now: i64) -> Result<bool, StoreError> {
    let found: Option<Scalar<i64>> = c
        .query_opt(
            "SELECT id FROM booking_alert WHERE state = 'pending' AND next_attempt_at <= $1 AND (taken_until IS NULL OR taken_until < $1) LIMIT 1",
            &[&now],
        )
        .await?;
    Ok(found.is_some())
}

/// Takes up to `limit` alerts due at `now` and held by no other gateway (PostgreSQL: `FOR
/// UPDATE SKIP LOCKED`, so two gateways never take one alert together): each is held by
/// `gateway` until `until` and counts one more attempt. In the caller's write transaction.
pub async fn take_due_alerts(
    c: &mut Conn<'_>,
    now: i64,
    until: i64,
    limit: i64,
    gateway: &str,
) -> Result<Vec<AlertRow>, StoreError> {
    let lock = c.skip_locked("a");
    let ids: Vec<Scalar<i64>> = c
        .query(
            &format!(
                "SELECT a.id FROM booking_alert a WHERE a.state = 'pending' AND a.next_attempt_at <= $1
                   AND (a.taken_until IS NULL OR a.taken_until < $1) ORDER BY a.next_attempt_at, a.id LIMIT $2 {lock}"
            ),
            &[&now, &limit],
        )
        .await?;
    let mut out = Vec::with_capacity(ids.len());
    for Scalar(id) in ids {
        let taken = c
            .execute(
                "UPDATE booking_alert SET taken_until = $2, taken_by = $4, attempts = attempts + 1
                 WHERE id = $1 AND state = 'pending' AND (taken_until IS NULL OR taken_until < $3)",
                &[&id, &until, &now, &gateway],
            )
            .await?;
        if taken == 1 {
            out.extend(
                c.query_opt::<AlertRow>(
                    &format!("SELECT {ALERT_COLUMNS} FROM booking_alert a WHERE a.id = $1"),
                    &[&id],
                )
                .await?,
            );
        }
    }
    Ok(out)
}

/// The relay accepted alert `id` at `now`.
pub async fn alert_sent(c: &mut Conn<'_>, id: i64, now: i64) -> Result<u64, StoreError> {
    c.execute(
        "UPDATE booking_alert SET state = 'sent', sent_at = $2, taken_until = NULL, taken_by = NULL, last_error = NULL WHERE id = $1 AND state = 'pending'",
        &[&id, &now],
    )
    .await
}

/// Alert `id`'s attempt failed: tried again at `next`.
pub async fn alert_failed(c: &mut Conn<'_>, id: i64, next: i64, error: &str) -> Result<u64, StoreError> {
    c.execute(
        "UPDATE booking_alert SET next_attempt_at = $2, taken_until = NULL, taken_by = NULL, last_error = $3 WHERE id = $1 AND state = 'pending'",
        &[&id, &next, &error],
    )
    .await
}

/// Alert `id`'s last allowed attempt failed: parked until retried.
pub async fn alert_parked(c: &mut Conn<'_>, id: i64, error: &str) -> Result<u64, StoreError> {
    c.execute(
        "UPDATE booking_alert SET state = 'parked', taken_until = NULL, taken_by = NULL, last_error = $2 WHERE id = $1 AND state = 'pending'",
        &[&id, &error],
    )
    .await
}

/// Gives back the alerts `gateway` holds (it stops): how many.
pub async fn release_alerts(c: &mut Conn<'_>, gateway: &str) -> Result<u64, StoreError> {
    c.execute(
        "UPDATE booking_alert SET taken_until = NULL, taken_by = NULL WHERE taken_by = $1 AND taken_until IS NOT NULL AND state = 'pending'",
        &[&gateway],
    )
    .await
}

/// The alerts of `supplier` (all: `None`), of the booking whose Internal or Client reference is
/// `booking` (all: `None`), in `state` (all: `None`), the newest first, at most `limit`.
pub async fn list_alerts(
    c: &mut Conn<'_>,
    supplier: Option<&str>,
    booking: Option<&str>,
    state: Option<&str>,
    limit: i64,
) -> Result<Vec<AlertRow>, StoreError> {
    c.query(
        &format!(
            "SELECT {ALERT_COLUMNS} FROM booking_alert a
             WHERE ($1 = '' OR a.supplier_id = $1)
               AND ($2 = '' OR a.booking_ref = $2 OR a.booking_ref IN (SELECT internal_ref FROM hotel_booking WHERE client_ref = $2)
                    OR a.booking_ref IN (SELECT reference FROM activity_booking WHERE client_reference = $2))
               AND ($3 = '' OR a.state = $3)
             ORDER BY a.id DESC LIMIT $4"
        ),
        &[&supplier.unwrap_or(""), &booking.unwrap_or(""), &state.unwrap_or(""), &limit],
    )
    .await
}

/// Sends the parked alerts (of `supplier`; all: `None`) again from `now`, their attempts counted
/// afresh: how many.
pub async fn retry_alerts(c: &mut Conn<'_>, supplier: Option<&str>, now: i64) -> Result<u64, StoreError> {
    c.execute(
        "UPDATE booking_alert SET state = 'pending', attempts = 0, next_attempt_at = $2, taken_until = NULL, taken_by = NULL
         WHERE state = 'parked' AND ($1 = '' OR supplier_id = $1)",
        &[&supplier.unwrap_or(""), &now],
    )
    .await
}

/// Deletes alerts sent before `before` (milliseconds since 1970): how many.
pub(crate) async fn purge_sent_alerts(c: &mut Conn<'_>, before: i64) -> Result<u64, StoreError> {
    c.execute("DELETE FROM booking_alert WHERE state = 'sent' AND sent_at < $1", &[&before]).await
}

row! {
    /// A booking of a supplier as its reads give it: one per booking and hotel of the supplier
    /// (an activity booking: its pickup hotel).
    pub struct Supplied {
        /// `hotel` or `activity`.
        booking_kind: String,
        /// Its Internal reference.
        booking_ref: String,
        /// The supplier's hotel.
        hotel_code: String,
    }
}

/// The bookings at a hotel `supplier` owns (one per booking and hotel; an activity booking by
/// its pickup hotel) whose Client reference (`by_client`) or Internal reference
/// (`by_internal`) is `reference`, whatever their events' acknowledgement: hotel bookings
/// first, at most `limit`.
pub async fn supplied_by_reference(
    c: &mut Conn<'_>,
    supplier: &str,
    reference: &str,
    by_client: bool,
    by_internal: bool,
    limit: i64,
) -> Result<Vec<Supplied>, StoreError> {
    let mut out: Vec<Supplied> = c
        .query(
            "SELECT DISTINCT CAST('hotel' AS TEXT), b.internal_ref, r.hotel_code FROM hotel_booking b
             JOIN hotel_booking_room r ON r.booking_id = b.id
             JOIN supplier_hotel s ON s.hotel_code = r.hotel_code AND s.requestor_id = $1
             WHERE ($3 = true AND b.client_ref = $2) OR ($4 = true AND b.internal_ref = $2)
             ORDER BY b.internal_ref, r.hotel_code LIMIT $5",
            &[&supplier, &reference, &by_client, &by_internal, &limit],
        )
        .await?;
    let left = limit - out.len() as i64;
    if left > 0 {
        out.extend(
            c.query::<Supplied>(
                "SELECT CAST('activity' AS TEXT), a.reference, p.location_name FROM activity_booking a
                 JOIN activity_booking_pickup p ON p.booking_id = a.id
                 JOIN supplier_hotel s ON s.hotel_code = p.location_name AND s.requestor_id = $1
                 WHERE ($3 = true AND a.client_reference = $2) OR ($4 = true AND a.reference = $2)
                 ORDER BY a.reference LIMIT $5",
                &[&supplier, &reference, &by_client, &by_internal, &left],
            )
            .await?,
        );
    }
    Ok(out)
}

/// The bookings at a hotel `supplier` owns (one per booking and hotel; an activity booking by
/// its pickup hotel), of `hotel` only when given, of `status` only when given, whose date `by`
/// falls between `start` and `end` (both included), whatever their events' acknowledgement:
/// the hotel bookings by that date, then the activity bookings by it, at most `limit` of
/// each. The dates: a hotel booking's arrival at (departure from) the hotel is its first
/// (last) night's there; an activity's is its service date (its end); creation and last change
/// are the booking's.
#[allow(clippy::too_many_arguments)]
pub async fn supplied_by_dates(
    c: &mut Conn<'_>,
    supplier: &str,
    by: ListDate,
    start: NaiveDate,
    end: NaiveDate,
    hotel: Option<&str>,
    status: Option<&str>,
    limit: i64,
) -> Result<(Vec<Supplied>, Vec<Supplied>), StoreError> {
    let (hotel, status) = (hotel.map(str::to_string), status.map(str::to_string));
    let day_after = end.checked_add_days(Days::new(1)).unwrap_or(end);
    let (from_local, to_local) = (start.and_time(NaiveTime::MIN), day_after.and_time(NaiveTime::MIN));
    let (from_utc, to_utc) = (from_local.and_utc(), to_local.and_utc());
    const HOTELS: &str = "SELECT b.internal_ref, r.hotel_code, min(r.start_date) AS first_night, max(r.end_date) AS last_day, b.created_at, b.updated_at
         FROM hotel_booking b
         JOIN hotel_booking_room r ON r.booking_id = b.id
         JOIN supplier_hotel s ON s.hotel_code = r.hotel_code AND s.requestor_id = $1
         WHERE (CAST($2 AS TEXT) IS NULL OR r.hotel_code = $2) AND (CAST($3 AS TEXT) IS NULL OR b.status = $3)
         GROUP BY b.internal_ref, r.hotel_code, b.created_at, b.updated_at";
    let hotels = match by {
        ListDate::Arrival => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE first_night BETWEEN $4 AND $5 ORDER BY first_night, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &start, &end, &limit]).await?,
        ListDate::Departure => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE last_day BETWEEN $4 AND $5 ORDER BY last_day, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &start, &end, &limit]).await?,
        ListDate::Created => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE created_at >= $4 AND created_at < $5 ORDER BY created_at, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &from_local, &to_local, &limit]).await?,
        ListDate::Updated => c.query(&format!("SELECT CAST('hotel' AS TEXT), internal_ref, hotel_code FROM ({HOTELS}) h WHERE updated_at >= $4 AND updated_at < $5 ORDER BY updated_at, internal_ref, hotel_code LIMIT $6"), &[&supplier, &hotel, &status, &from_local, &to_local, &limit]).await?,
    };
    const ACTIVITIES: &str = "SELECT CAST('activity' AS TEXT), a.reference, p.location_name FROM activity_booking a
         JOIN activity_booking_pickup p ON p.booking_id = a.id
         JOIN supplier_hotel s ON s.hotel_code = p.location_name AND s.requestor_id = $1
         WHERE (CAST($2 AS TEXT) IS NULL OR p.location_name = $2) AND (CAST($3 AS TEXT) IS NULL OR a.status = $3)";
    let activities = match by {
        ListDate::Arrival => c.query(&format!("{ACTIVITIES} AND a.service_date BETWEEN $4 AND $5 ORDER BY a.service_date, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &start, &end, &limit]).await?,
        ListDate::Departure => c.query(&format!("{ACTIVITIES} AND a.end_at >= $4 AND a.end_at < $5 ORDER BY a.end_at, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &from_local, &to_local, &limit]).await?,
        ListDate::Created => c.query(&format!("{ACTIVITIES} AND a.created_at >= $4 AND a.created_at < $5 ORDER BY a.created_at, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &from_utc, &to_utc, &limit]).await?,
        ListDate::Updated => c.query(&format!("{ACTIVITIES} AND a.updated_at >= $4 AND a.updated_at < $5 ORDER BY a.updated_at, a.reference LIMIT $6"), &[&supplier, &hotel, &status, &from_utc, &to_utc, &limit]).await?,
    };
    Ok((hotels, activities))
}
