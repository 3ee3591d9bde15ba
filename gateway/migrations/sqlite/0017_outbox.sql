-- The outbox (issue 21, "Out"; see gateway/README.md "Bookings out to suppliers"): every hotel
-- and activity booking, modify and cancel writes one event per hotel of the booking that has a
-- supplier, in the same transaction as the change. Events are delivered at least once, in order
-- per booking and hotel (`seq`): pushed to the supplier's `notify_url` by every gateway (each
-- event taken by one gateway at a time: `taken_until`, a lease), or pulled by a supplier without
-- one (`OTA_ReadRQ`, acknowledged by `OTA_NotifReportRQ`). Times are milliseconds since
-- 1970-01-01 UTC (both backends alike, finer than the whole seconds of the other tables' texts).
ALTER TABLE requestor ADD COLUMN notify_url TEXT;

CREATE TABLE outbox_event (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    booking_kind    TEXT NOT NULL CHECK (booking_kind IN ('hotel', 'activity')),
    booking_ref     TEXT NOT NULL,       -- the booking's Internal reference
    hotel_code      TEXT NOT NULL,       -- the hotel the event is about (an activity booking: its pickup hotel)
    seq             INTEGER NOT NULL CHECK (seq >= 1),  -- 1, 2, … per (booking_kind, booking_ref, hotel_code)
    supplier_id     TEXT NOT NULL,       -- the hotel's supplier when the event was written
    event_kind      TEXT NOT NULL CHECK (event_kind IN ('new', 'modified', 'cancelled')),
    revision        INTEGER NOT NULL,    -- a hotel booking's revision; an activity booking's: seq
    version         INTEGER NOT NULL,    -- the booking's LastModifyDateTime as notified (what a pull acknowledges)
    created_at      INTEGER NOT NULL,
    state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'parked')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    taken_until     INTEGER,             -- a gateway delivers it until then (a lease)
    taken_by        TEXT,                -- which gateway (a token of the process): it gives its leases back when it stops
    delivered_at    INTEGER,
    last_error      TEXT,
    UNIQUE (booking_kind, booking_ref, hotel_code, seq)
);
CREATE INDEX outbox_event_due ON outbox_event (state, next_attempt_at);
CREATE INDEX outbox_event_by_supplier ON outbox_event (supplier_id, state);
