-- Look-to-book: what each requestor asked for, per UTC day, added up by every gateway (each
-- gateway counts in memory and adds its counts here about once a minute and when it stops; see
-- gateway/README.md, "Look-to-book"). `searches`: activity searches; `availability`: hotel and
-- activity availability checks; `quotes`: book requests that stored nothing (Quote);
-- `bookings`: Commits that booked. Read by `ota-gateway requestor stats`.
CREATE TABLE requestor_traffic (
    requestor_id TEXT NOT NULL,
    day TEXT NOT NULL,
    searches INTEGER NOT NULL DEFAULT 0,
    availability INTEGER NOT NULL DEFAULT 0,
    quotes INTEGER NOT NULL DEFAULT 0,
    bookings INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (requestor_id, day)
);
