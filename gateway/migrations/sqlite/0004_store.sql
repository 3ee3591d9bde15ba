-- The store for many instances (SQLite side; PostgreSQL's 0001 has the same tables).
--
-- 1. `content_version`: bumped in every transaction that changes the static content
--    (imports, requestor administration). Each gateway keeps the content in memory and
--    reloads it when the version changes.
-- 2. `health_check`: written by `/healthz`, which so proves that the database takes writes.
-- 3. Places: what is offered is content, what is booked is not. `activity_capacity` (from the
--    import's `allotment`) gives the places offered on given dates, overriding the service's
--    `capacity`; `activity_places_booked` counts the places taken per service and date, is
--    kept by bookings and cancellations only, and is keyed by codes so that no catalogue
--    change can drop it. Places left = capacity on the date − places booked. This replaces
--    `activity_allotment`, which held places *left* and so was overwritten by imports.

CREATE TABLE content_version (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    version    INTEGER NOT NULL CHECK (version >= 1),
    changed_at TEXT NOT NULL                                   -- UTC
) STRICT;
INSERT INTO content_version (id, version, changed_at) VALUES (1, 1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));

CREATE TABLE health_check (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    checked_at TEXT NOT NULL                                   -- UTC
) STRICT;
INSERT INTO health_check (id, checked_at) VALUES (1, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'));

CREATE TABLE activity_capacity (
    service_id INTEGER NOT NULL REFERENCES activity_service(id) ON DELETE CASCADE,
    date       TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    places     INTEGER NOT NULL CHECK (places >= 0),
    PRIMARY KEY (service_id, date)
) STRICT;

CREATE TABLE activity_places_booked (
    activity_id  TEXT NOT NULL,
    product_code TEXT NOT NULL,
    service_code TEXT NOT NULL,
    date         TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    places       INTEGER NOT NULL CHECK (places >= 0),
    PRIMARY KEY (activity_id, product_code, service_code, date)
) STRICT;

-- Places booked: one per participant of every live booking.
INSERT INTO activity_places_booked (activity_id, product_code, service_code, date, places)
SELECT b.activity_id, b.product_code, b.service_code, b.service_date, count(*)
FROM activity_booking b JOIN activity_booking_participant p ON p.booking_id = b.id
WHERE b.status = 'Reserved'
GROUP BY b.activity_id, b.product_code, b.service_code, b.service_date;

-- Capacity on a date that had an allotment row: what was left plus what was booked, kept only
-- where it differs from the service's usual capacity.
INSERT INTO activity_capacity (service_id, date, places)
SELECT a.service_id, a.date, a.places_left + coalesce(pb.places, 0)
FROM activity_allotment a
JOIN activity_service s ON s.id = a.service_id
JOIN activity_product p ON p.id = s.product_id
LEFT JOIN activity_places_booked pb
       ON pb.activity_id = p.activity_id AND pb.product_code = p.code AND pb.service_code = s.code AND pb.date = a.date
WHERE a.places_left + coalesce(pb.places, 0) <> s.capacity;

DROP TABLE activity_allotment;

CREATE INDEX activity_booking_by_requestor ON activity_booking (requestor_id, service_date);
