//! The outbox's one write, which every booking change makes in its own transaction (see
//! `crate::outbox` for the delivery, and gateway/README.md "Bookings out to suppliers"): an
//! event for the supplier of a hotel the booking is about, `new`, `modified` or `cancelled`,
//! numbered 1, 2, … per booking and hotel (`seq`). A hotel without a supplier has nobody to
//! tell: no event. The supplier is the hotel's owner when the change is stored.
//!
//! Written after the booking's own row in the same transaction, so that two changes of one
//! booking (which wait for each other on that row) number their events in their order.

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

/// Records, in the caller's write transaction, that a booking (`kind`, its Internal reference)
/// changed for `hotel`: the event's id, or `None` when the hotel has no supplier (nobody to
/// tell). `revision` is the booking's revision (a hotel booking's); without one the event's
/// number in its booking is stored. `version` is the booking's `LastModifyDateTime` as the
/// supplier is shown it (milliseconds since 1970 of its date-time read as UTC): a pull
/// acknowledges the events up to a version.
pub async fn record(
    c: &mut Conn<'_>,
    kind: Kind,
    booking_ref: &str,
    hotel: &str,
    event: EventKind,
    revision: Option<i64>,
    version: i64,
) -> Result<Option<i64>, StoreError> {
    let supplier: Option<Scalar<String>> =
        c.query_opt("SELECT requestor_id FROM supplier_hotel WHERE hotel_code = $1", &[&hotel]).await?;
    let Some(Scalar(supplier)) = supplier else {
        return Ok(None);
    };
    let Scalar(seq): Scalar<i64> = c
        .query_one(
            "SELECT coalesce(max(seq), 0) + 1 FROM outbox_event WHERE booking_kind = $1 AND booking_ref = $2 AND hotel_code = $3",
            &[&kind.as_str(), &booking_ref, &hotel],
        )
        .await?;
    let now = Utc::now().timestamp_millis();
    let Scalar(id): Scalar<i64> = c
        .query_one(
            "INSERT INTO outbox_event (booking_kind, booking_ref, hotel_code, seq, supplier_id, event_kind, revision, version, created_at, next_attempt_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $9, $8, $8) RETURNING id",
            &[&kind.as_str(), &booking_ref, &hotel, &seq, &supplier, &event.as_str(), &revision.unwrap_or(seq), &now, &version],
        )
        .await?;
    Ok(Some(id))
}
