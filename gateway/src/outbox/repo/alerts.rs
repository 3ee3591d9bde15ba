//! The booking alerts (e-mails): taking those due, settling them, the operator's list and
//! retry, and the purge of those sent long ago.

use crate::store::row;
use crate::store::{Conn, Scalar, StoreError};

use super::{instant, opt_instant};

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
