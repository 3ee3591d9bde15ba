-- Booking alerts by e-mail (issue 31, "Alerts"; docs/hotels/alerts.md). A supplier's alert
-- addresses (one per line, each checked: one address, no CR/LF, bounded; none: NULL), and one
-- alert per (outbox event, address), written in the event's transaction when the gateway that
-- writes it has an SMTP relay (`serve --smtp-url`), sent by every gateway's alert task. Times
-- are milliseconds since 1970-01-01 UTC, like outbox_event's.
ALTER TABLE requestor ADD COLUMN alert_emails TEXT;

CREATE TABLE booking_alert (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        INTEGER NOT NULL,        -- outbox_event.id (kept after the event is purged)
    address         TEXT NOT NULL,           -- the recipient
    supplier_id     TEXT NOT NULL,
    booking_kind    TEXT NOT NULL,
    booking_ref     TEXT NOT NULL,           -- the booking's Internal reference
    hotel_code      TEXT NOT NULL,
    event_kind      TEXT NOT NULL CHECK (event_kind IN ('new', 'modified', 'cancelled')),
    created_at      INTEGER NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'parked')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    taken_until     INTEGER,                 -- the lease of the gateway sending it
    taken_by        TEXT,
    sent_at         INTEGER,                 -- when the relay accepted it
    last_error      TEXT,                    -- why the last attempt failed, one line
    UNIQUE (event_id, address)
);
CREATE INDEX booking_alert_due ON booking_alert (state, next_attempt_at);
CREATE INDEX booking_alert_by_supplier ON booking_alert (supplier_id, id);
CREATE INDEX booking_alert_by_booking ON booking_alert (booking_ref);
