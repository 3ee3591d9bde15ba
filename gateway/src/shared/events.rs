//! The outbox's one write, which every booking change makes in its own transaction (see
//! `crate::outbox` for the delivery, and gateway/README.md "Bookings out to suppliers"): an
//! event for the supplier of a hotel the booking is about, `new`, `modified` or `cancelled`,
//! numbered 1, 2, … per booking and hotel (`seq`). A hotel without a supplier has nobody to
//! tell: no event. The supplier is the hotel's owner when the change is stored.
//!
//! Written after the booking's own row in the same transaction, so that two changes of one
//! booking (which wait for each other on that row) number their events in their order.
//!
//! In the same transaction, when this process sends booking alerts ([`queue_alerts`], `serve
//! --smtp-url`), one alert per address of the supplier's (`requestor set SUP --alert-email`):
//! a `booking_alert` row, unique on (event, address), sent by `crate::outbox::alerts`. So an
//! alert is never lost (it is stored with the booking change or not at all) and never queued
//! twice for one address and event.

use std::sync::atomic::{AtomicBool, Ordering};

use chrono::Utc;

use crate::shared::booking::Kind;
use crate::store::{Conn, Scalar, StoreError};

/// What happened to a booking, as its supplier is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A new booking (a Commit).
    New,
    /// A changed booking (a modify, or a cancel of some of its rooms).
    Modified,
    /// A cancelled booking (or every room of this hotel in it cancelled).
    Cancelled,
}

impl EventKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::New => "new",
            EventKind::Modified => "modified",
            EventKind::Cancelled => "cancelled",
        }
    }

    /// From the stored name.
    pub fn parse(s: &str) -> Option<EventKind> {
        match s {
            "new" => Some(EventKind::New),
            "modified" => Some(EventKind::Modified),
            "cancelled" => Some(EventKind::Cancelled),
            _ => None,
        }
    }
}

/// Whether this process queues booking alerts with the events it writes.
static ALERTS: AtomicBool = AtomicBool::new(false);

/// Makes this process queue (or not) a booking alert for each alert address of an event's
/// supplier, in the event's transaction: on in a gateway with an SMTP relay (`serve
/// --smtp-url`), off everywhere else (then no alert is queued; see docs/hotels/alerts.md).
pub fn queue_alerts(on: bool) {
    ALERTS.store(on, Ordering::Relaxed);
}

/// Whether this process queues booking alerts ([`queue_alerts`]).
pub fn alerts_queued() -> bool {
    ALERTS.load(Ordering::Relaxed)
}

/// The event's row in one statement, its number in its booking and hotel (`seq`) the next one,
/// its supplier the hotel's; no row when the hotel has no supplier (nobody to tell). `$5`, the
/// revision, is the booking's revision (a hotel booking's); without one the event's `seq` is
/// stored.
const INSERT_EVENT: &str = "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
     SELECT $1, $2, $3, n.seq, s.requestor_id, $4, COALESCE($5, n.seq), $7, $6, $6
     FROM supplier_hotel s
     CROSS JOIN (SELECT coalesce(max(seq), 0) + 1 AS seq FROM outbox_event WHERE booking_kind = $1 AND booking_ref = $2 AND hotel_code = $3) n
     WHERE s.hotel_code = $3";

/// Records, in the caller's write transaction, that a booking (`kind`, its Internal reference)
/// changed for `hotel`, when the hotel has a supplier (else there is nobody to tell). `revision`
/// is the booking's revision (a hotel booking's); without one the event's number in its booking
/// is stored. `version` is the booking's `LastModifyDateTime` as the supplier is shown it
/// (milliseconds since 1970 of its date-time read as UTC): a pull acknowledges the events up to
/// a version.
///
/// Where statements travel (PostgreSQL) and no alert needs the event's id, one statement sent
/// with the transaction's next one ([`Conn::execute_later`]); else three (on SQLite an `INSERT`
/// that reads its own table buffers its rows first: measured, 40 µs against 17 µs for the
/// three).
pub async fn record(
    c: &mut Conn<'_>,
    kind: Kind,
    booking_ref: &str,
    hotel: &str,
    event: EventKind,
    revision: Option<i64>,
    version: i64,
) -> Result<(), StoreError> {
    let now = Utc::now().timestamp_millis();
    if c.statements_travel() && !alerts_queued() {
        return c
            .execute_later(
                INSERT_EVENT,
                vec![
                    Box::new(kind.as_str().to_string()),
                    Box::new(booking_ref.to_string()),
                    Box::new(hotel.to_string()),
                    Box::new(event.as_str().to_string()),
                    Box::new(revision),
                    Box::new(now),
                    Box::new(version),
                ],
            )
            .await;
    }
    let supplier: Option<Scalar<String>> =
        c.query_opt("SELECT requestor_id FROM supplier_hotel WHERE hotel_code = $1", &[&hotel]).await?;
    let Some(Scalar(supplier)) = supplier else {
        return Ok(());
    };
    let Scalar(seq): Scalar<i64> = c
        .query_one(
            "SELECT coalesce(max(seq), 0) + 1 FROM outbox_event WHERE booking_kind = $1 AND booking_ref = $2 AND hotel_code = $3",
            &[&kind.as_str(), &booking_ref, &hotel],
        )
        .await?;
    let Scalar(id): Scalar<i64> = c
        .query_one(
            "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $9, $8, $8) RETURNING id",
            &[&kind.as_str(), &booking_ref, &hotel, &seq, &supplier, &event.as_str(), &revision.unwrap_or(seq), &now, &version],
        )
        .await?;
    if alerts_queued() {
        let addresses: Option<Scalar<Option<String>>> =
            c.query_opt("SELECT alert_emails FROM requestor WHERE id = $1", &[&supplier]).await?;
        let addresses = addresses.and_then(|Scalar(a)| a).unwrap_or_default();
        for address in addresses.lines().map(str::trim).filter(|a| !a.is_empty()) {
            c.execute(
                "INSERT INTO booking_alert (event_id, address, supplier_id, booking_kind, booking_ref, hotel_code, event_kind, created_at, next_attempt_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT (event_id, address) DO NOTHING",
                &[&id, &address, &supplier, &kind.as_str(), &booking_ref, &hotel, &event.as_str(), &now],
            )
            .await?;
        }
    }
    Ok(())
}
