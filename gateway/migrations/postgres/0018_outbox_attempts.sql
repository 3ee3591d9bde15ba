-- Every delivery of an outbox event: the same as SQLite's 0021 (whose comments describe it).
CREATE TABLE outbox_attempt (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id       BIGINT NOT NULL,
    outcome        TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'parked', 'pulled', 'acknowledged')),
    at             BIGINT NOT NULL,
    gateway        TEXT,
    url            TEXT,
    http_status    BIGINT,
    error          TEXT,
    latency_ms     BIGINT,
    answer         TEXT,
    answer_bytes   BIGINT,
    retransmission BOOLEAN NOT NULL DEFAULT false,
    requested_by   TEXT
);
CREATE INDEX outbox_attempt_by_event ON outbox_attempt (event_id, id);

ALTER TABLE outbox_event ADD COLUMN resent_at BIGINT;
ALTER TABLE outbox_event ADD COLUMN resent_by TEXT;
