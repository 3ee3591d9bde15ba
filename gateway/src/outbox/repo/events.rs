//! The events to deliver: taking those due (a lease), settling them (delivered, to be retried,
//! parked) with each push attempt kept, and the operator's list, retry and resend.

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
pub(super) fn shown_outcome(a: &str, e: &str, now: &str) -> String {
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
/// one supplier's backlog or hanging receiver never fills a round. Takes run one at a time over
/// every gateway ([`Conn::lock_takes`]), so each counts what the takes before it hold. (Two
/// gateways taking at once, each numbering the candidates it saw, could together take one more
/// than a share: an event written late may sort before those the other took.)
pub async fn take_due(
    c: &mut Conn<'_>,
    now: i64,
    until: i64,
    limit: i64,
    per_supplier: i64,
    gateway: &str,
) -> Result<Vec<EventRow>, StoreError> {
    // One take at a time (every gateway's): see `Conn::lock_takes`.
    c.lock_takes().await?;
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
    /// The receiver URL, redacted ([`crate::outbox::rules::redacted_url`]).
    pub url: Option<String>,
    /// The HTTP status of the answer.
    pub http_status: Option<i64>,
    /// Why it failed.
    pub error: Option<String>,
    /// From sending to the answer read (or the failure), in milliseconds.
    pub latency_ms: Option<i64>,
    /// The answer, bounded ([`crate::outbox::rules::kept_answer`]).
    pub answer: Option<String>,
    /// The answer's length (as declared when over the bound, else as read).
    pub answer_bytes: Option<i64>,
    /// Whether the notification was marked a retransmission.
    pub retransmission: bool,
    /// Who asked for the resend it answers.
    pub requested_by: Option<String>,
    /// The notification sent, as kept ([`crate::outbox::deliver::kept_body`]).
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
