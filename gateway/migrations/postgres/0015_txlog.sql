-- The transaction log (see SQLite's 0015).
CREATE TABLE txlog_entry (
    id BIGINT PRIMARY KEY,
    at TIMESTAMPTZ NOT NULL,
    requestor_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    request_id TEXT NOT NULL,
    echo_token TEXT,
    refs TEXT NOT NULL DEFAULT '',
    status BIGINT NOT NULL,
    success BOOLEAN NOT NULL,
    duration_us BIGINT NOT NULL,
    content_version BIGINT NOT NULL,
    masked BOOLEAN NOT NULL,
    request TEXT NOT NULL,
    answer TEXT NOT NULL,
    answer_truncated BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX txlog_entry_by_at ON txlog_entry (at);
CREATE INDEX txlog_entry_by_requestor ON txlog_entry (requestor_id, at);
CREATE INDEX txlog_entry_by_request_id ON txlog_entry (request_id);
CREATE INDEX txlog_entry_by_echo_token ON txlog_entry (echo_token);
CREATE TABLE txlog_reference (
    reference TEXT NOT NULL,
    entry_id BIGINT NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (reference, entry_id)
);
CREATE INDEX txlog_reference_by_at ON txlog_reference (at);
ALTER TABLE requestor ADD COLUMN log_level TEXT NOT NULL DEFAULT 'off' CHECK (log_level IN ('off', 'errors', 'bookings', 'all'));
ALTER TABLE requestor ADD COLUMN log_sample_ppm BIGINT NOT NULL DEFAULT 1000000 CHECK (log_sample_ppm BETWEEN 0 AND 1000000);
