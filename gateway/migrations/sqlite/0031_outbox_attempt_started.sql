-- Each push attempt is kept from its start (issue 30, "Deliveries"; docs/console/deliveries.md):
-- its row is written before the notification is sent, as `sending`, and completed with its
-- outcome after; a row left `sending` by a gateway that died (or stopped) mid-delivery is shown
-- as interrupted, its outcome unknown. And the notification sent is kept with each attempt
-- (bounded, passwords out, card numbers always and personal values unless `--log-unmasked`
-- masked, as the transaction log keeps a message).
--
-- SQLite cannot change a CHECK constraint: the table is made again with the new outcome allowed
-- and the new columns (additive for the code before: every column it writes is there, the
-- outcomes it writes are allowed).
CREATE TABLE outbox_attempt_new (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id       INTEGER NOT NULL,
    outcome        TEXT NOT NULL CHECK (outcome IN ('sending', 'delivered', 'failed', 'parked', 'pulled', 'acknowledged')),
    at             INTEGER NOT NULL,
    gateway        TEXT,
    url            TEXT,
    http_status    INTEGER,
    error          TEXT,
    latency_ms     INTEGER,
    answer         TEXT,
    answer_bytes   INTEGER,
    retransmission INTEGER NOT NULL DEFAULT 0 CHECK (retransmission IN (0, 1)),
    requested_by   TEXT,
    body           TEXT,                    -- a push: the notification sent, as kept (its first 64 KiB, masked)
    body_bytes     INTEGER,                 -- its length as sent
    body_masked    INTEGER NOT NULL DEFAULT 0 CHECK (body_masked IN (0, 1))  -- personal values masked in `body`
);
INSERT INTO outbox_attempt_new (id, event_id, outcome, at, gateway, url, http_status, error, latency_ms, answer, answer_bytes, retransmission, requested_by)
    SELECT id, event_id, outcome, at, gateway, url, http_status, error, latency_ms, answer, answer_bytes, retransmission, requested_by FROM outbox_attempt;
DROP TABLE outbox_attempt;
ALTER TABLE outbox_attempt_new RENAME TO outbox_attempt;
CREATE INDEX outbox_attempt_by_event ON outbox_attempt (event_id, id);
