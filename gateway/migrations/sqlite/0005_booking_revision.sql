-- Every write of a hotel booking gives it a new revision, never given before (not even to a
-- booking since deleted): a gateway that keeps bookings in memory knows from the revision
-- alone whether its copy is current. The next revision is kept in `hotel_booking_revision`
-- (SQLite writes one at a time, so one counter row is enough; PostgreSQL uses a sequence).
CREATE TABLE hotel_booking_revision (
    id    INTEGER PRIMARY KEY CHECK (id = 1),
    value INTEGER NOT NULL
) STRICT;
INSERT INTO hotel_booking_revision (id, value) VALUES (1, 0);

ALTER TABLE hotel_booking ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
UPDATE hotel_booking SET revision = id;
UPDATE hotel_booking_revision SET value = coalesce((SELECT max(revision) FROM hotel_booking), 0);
