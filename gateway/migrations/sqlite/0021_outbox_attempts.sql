-- Every delivery of an outbox event, kept (issue 30, "Deliveries"; docs/operators/deliveries.md):
-- each push attempt (written in the same transaction as its outcome), each time a supplier's
-- pull was given the event, and its acknowledgement. Deleted with their event (the outbox's
-- retention). Times are milliseconds since 1970-01-01 UTC, like outbox_event's.
CREATE TABLE outbox_attempt (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id       INTEGER NOT NULL,        -- outbox_event.id (deleted with it)
    outcome        TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'parked', 'pulled', 'acknowledged')),
    at             INTEGER NOT NULL,        -- a push: when it was sent; a pull: when read; an acknowledgement: when taken
    gateway        TEXT,                    -- the gateway process (host/pid/token) that made or served it
    url            TEXT,                    -- a push's receiver URL, without user, password or query values
    http_status    INTEGER,                 -- a push's HTTP status (none: no answer)
    error          TEXT,                    -- why a push failed (transport error, status, answer), one line
    latency_ms     INTEGER,                 -- a push: from sending to the answer read (or the failure)
    answer         TEXT,                    -- the receiver's answer: its first 4 KiB, as text
    answer_bytes   INTEGER,                 -- the answer's length: as declared when over 64 KiB (not read further), else as read
    retransmission INTEGER NOT NULL DEFAULT 0 CHECK (retransmission IN (0, 1)),
    requested_by   TEXT                     -- who asked for the resend this attempt answers (operator, cli:USER)
);
CREATE INDEX outbox_attempt_by_event ON outbox_attempt (event_id, id);

-- The last `ota-gateway outbox resend` of an event: when and by whom (its attempts from then on
-- are retransmissions asked for by them).
ALTER TABLE outbox_event ADD COLUMN resent_at INTEGER;
ALTER TABLE outbox_event ADD COLUMN resent_by TEXT;
