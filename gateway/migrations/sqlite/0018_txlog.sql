-- The transaction log (see gateway/README.md, "Transaction log"): what a partner sent and was
-- answered, for the partners whose requestor.log_level says so. Written in batches by every
-- gateway (one log for all of them), read by `ota-gateway log` and `ota-gateway replay`, and
-- deleted after --log-retention by every gateway. Bodies as stored: passwords removed, personal
-- values masked unless `masked` is 0.
CREATE TABLE txlog_entry (
    id INTEGER PRIMARY KEY,                 -- from the arrival: microseconds since 1970 x 1000 + a random 0-999
    at TEXT NOT NULL,                       -- UTC, YYYY-MM-DDThh:mm:ssZ: when the request came
    requestor_id TEXT NOT NULL,
    operation TEXT NOT NULL,                -- the path without its slash (hotelbook)
    request_id TEXT NOT NULL,
    echo_token TEXT,
    refs TEXT NOT NULL DEFAULT '',          -- the references found, space-separated (see txlog_reference)
    status INTEGER NOT NULL,                -- the HTTP status
    success INTEGER NOT NULL,               -- 0: an error answer (Errors, or a status other than 200)
    duration_us INTEGER NOT NULL,           -- from the request's arrival to its answer
    content_version INTEGER NOT NULL,       -- the content snapshot that answered
    masked INTEGER NOT NULL,                -- 1: personal values masked
    request TEXT NOT NULL,
    answer TEXT NOT NULL,
    answer_truncated INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX txlog_entry_by_at ON txlog_entry (at);
CREATE INDEX txlog_entry_by_requestor ON txlog_entry (requestor_id, at);
CREATE INDEX txlog_entry_by_request_id ON txlog_entry (request_id);
CREATE INDEX txlog_entry_by_echo_token ON txlog_entry (echo_token);
-- The booking references of an entry (UniqueID@ID, HotelReservationID@ResID_Value of its
-- request and answer), for `log search --reference`; `at` repeated so retention deletes here by
-- its own index.
CREATE TABLE txlog_reference (
    reference TEXT NOT NULL,
    entry_id INTEGER NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (reference, entry_id)
);
CREATE INDEX txlog_reference_by_at ON txlog_reference (at);
-- A requestor's transaction log policy (`ota-gateway requestor set --log / --log-sample`, or
-- `log` / `log_sample` in the import file): off, errors, bookings or all; the share of its other
-- requests logged at `all`, in millionths.
ALTER TABLE requestor ADD COLUMN log_level TEXT NOT NULL DEFAULT 'off' CHECK (log_level IN ('off', 'errors', 'bookings', 'all'));
ALTER TABLE requestor ADD COLUMN log_sample_ppm INTEGER NOT NULL DEFAULT 1000000 CHECK (log_sample_ppm BETWEEN 0 AND 1000000);
