-- Booking alerts by e-mail: the same as SQLite's 0025 (whose comments describe it).
ALTER TABLE requestor ADD COLUMN alert_emails TEXT;

CREATE TABLE booking_alert (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id        BIGINT NOT NULL,
    address         TEXT NOT NULL,
    supplier_id     TEXT NOT NULL,
    booking_kind    TEXT NOT NULL,
    booking_ref     TEXT NOT NULL,
    hotel_code      TEXT NOT NULL,
    event_kind      TEXT NOT NULL CHECK (event_kind IN ('new', 'modified', 'cancelled')),
    created_at      BIGINT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'parked')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    taken_until     BIGINT,
    taken_by        TEXT,
    sent_at         BIGINT,
    last_error      TEXT,
    UNIQUE (event_id, address)
);
CREATE INDEX booking_alert_due ON booking_alert (state, next_attempt_at);
CREATE INDEX booking_alert_by_supplier ON booking_alert (supplier_id, id);
CREATE INDEX booking_alert_by_booking ON booking_alert (booking_ref);
