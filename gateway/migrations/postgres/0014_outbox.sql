-- The outbox: the same as SQLite's 0017 (whose comments describe it).
ALTER TABLE requestor ADD COLUMN notify_url TEXT;

CREATE TABLE outbox_event (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    booking_kind    TEXT NOT NULL CHECK (booking_kind IN ('hotel', 'activity')),
    booking_ref     TEXT NOT NULL,
    hotel_code      TEXT NOT NULL,
    seq             BIGINT NOT NULL CHECK (seq >= 1),
    supplier_id     TEXT NOT NULL,
    event_kind      TEXT NOT NULL CHECK (event_kind IN ('new', 'modified', 'cancelled')),
    revision        BIGINT NOT NULL,
    version         BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'parked')),
    attempts        BIGINT NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    taken_until     BIGINT,
    taken_by        TEXT,
    delivered_at    BIGINT,
    last_error      TEXT,
    UNIQUE (booking_kind, booking_ref, hotel_code, seq)
);
CREATE INDEX outbox_event_due ON outbox_event (state, next_attempt_at);
CREATE INDEX outbox_event_by_supplier ON outbox_event (supplier_id, state);
