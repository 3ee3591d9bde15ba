//! All SQL of the outbox: taking the events due (a lease), settling them (delivered, to be
//! retried, parked), listing and retrying them for the operator, the supplier's pull and
//! acknowledgement, and the bookings an event names. Times are milliseconds since 1970 UTC.

use crate::shared::booking::Kind;
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
    }
}

const COLUMNS: &str = "e.id, e.booking_kind, e.booking_ref, e.hotel_code, e.seq, e.supplier_id, e.event_kind, e.revision, e.created_at, e.state, \
                       e.attempts, e.next_attempt_at, e.delivered_at, e.last_error, r.notify_url";

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

/// The event was acknowledged at `now`.
pub async fn delivered(c: &mut Conn<'_>, id: i64, now: i64) -> Result<(), StoreError> {
    c.execute(
        "UPDATE outbox_event SET state = 'delivered', delivered_at = $2, taken_until = NULL, last_error = NULL WHERE id = $1 AND state <> 'delivered'",
        &[&id, &now],
    )
    .await?;
    Ok(())
}

/// The attempt failed: try again at `next`.
pub async fn failed(c: &mut Conn<'_>, id: i64, next: i64, error: &str) -> Result<(), StoreError> {
    c.execute("UPDATE outbox_event SET next_attempt_at = $2, taken_until = NULL, last_error = $3 WHERE id = $1 AND state = 'pending'", &[&id, &next, &error])
        .await?;
    Ok(())
}

/// The attempt failed and was the last allowed: parked until the operator retries it.
pub async fn parked(c: &mut Conn<'_>, id: i64, error: &str) -> Result<(), StoreError> {
    c.execute("UPDATE outbox_event SET state = 'parked', taken_until = NULL, last_error = $2 WHERE id = $1 AND state = 'pending'", &[&id, &error]).await?;
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
    }
}

/// The bookings (per hotel) with events `supplier` has not acknowledged, the oldest event
/// first, at most `limit`; each with its last event.
pub async fn unacknowledged(c: &mut Conn<'_>, supplier: &str, limit: i64) -> Result<Vec<Unacknowledged>, StoreError> {
    c.query(
        "SELECT e.booking_kind, e.booking_ref, e.hotel_code, e.seq, e.event_kind FROM outbox_event e
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

/// Acknowledges, for `supplier`, the events of a booking up to `upto`: how many were not
/// acknowledged before.
pub async fn acknowledge(
    c: &mut Conn<'_>,
    supplier: &str,
    booking_ref: &str,
    upto: Upto,
    now: i64,
) -> Result<u64, StoreError> {
    let (column, limit) = match upto {
        Upto::Event(id) => ("id <= $3", id),
        Upto::Before(ms) => ("version < $3", ms),
    };
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

/// Deletes up to `batch` events delivered before `before` (milliseconds since 1970), each but
/// the last of its booking and hotel (the next event's number follows that one's); how many.
pub(crate) async fn purge_delivered(c: &mut Conn<'_>, before: i64, batch: i64) -> Result<u64, StoreError> {
    c.execute(
        "DELETE FROM outbox_event WHERE id IN (SELECT e.id FROM outbox_event e WHERE e.state = 'delivered' AND e.delivered_at < $1
           AND EXISTS (SELECT 1 FROM outbox_event n WHERE n.booking_kind = e.booking_kind AND n.booking_ref = e.booking_ref
                         AND n.hotel_code = e.hotel_code AND n.seq > e.seq) LIMIT $2)",
        &[&before, &batch],
    )
    .await
}
