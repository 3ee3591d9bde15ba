-- Look-to-book counts per requestor and UTC day (see SQLite's 0012).
CREATE TABLE requestor_traffic (
    requestor_id TEXT NOT NULL,
    day DATE NOT NULL,
    searches BIGINT NOT NULL DEFAULT 0,
    availability BIGINT NOT NULL DEFAULT 0,
    quotes BIGINT NOT NULL DEFAULT 0,
    bookings BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (requestor_id, day)
);
