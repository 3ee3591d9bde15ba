//! A supplier's pull: the bookings with events it has not acknowledged, their acknowledgement,
//! the bookings an event names, and where a supplier's notifications are pushed.

use crate::shared::booking::Kind;
use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

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
