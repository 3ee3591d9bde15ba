-- Finding any booking: the same as SQLite's 0020 (whose comments describe it). The surname key
-- is compared in the C collation (code point order, as SQLite's BINARY), so that a prefix range
-- finds the same rows on both.
CREATE TABLE booking_history (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    booking_kind  TEXT NOT NULL CHECK (booking_kind IN ('hotel', 'activity')),
    booking_ref   TEXT NOT NULL,
    change        TEXT NOT NULL CHECK (change IN ('created', 'modified', 'cancelled')),
    by_kind       TEXT NOT NULL CHECK (by_kind IN ('partner', 'operator')),
    by_id         TEXT NOT NULL,
    at            TIMESTAMPTZ NOT NULL,
    status        TEXT,
    total         NUMERIC,
    currency      TEXT,
    reconstructed BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX booking_history_by_booking ON booking_history (booking_ref, booking_kind, id);

INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'hotel', internal_ref, 'created', 'partner', requestor_id, created_at AT TIME ZONE 'UTC',
       CASE WHEN updated_at = created_at THEN status END, CASE WHEN updated_at = created_at THEN total END, currency, true
FROM hotel_booking ORDER BY id;
INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'hotel', internal_ref, CASE WHEN status = 'Cancelled' THEN 'cancelled' ELSE 'modified' END, 'partner', requestor_id,
       updated_at AT TIME ZONE 'UTC', status, total, currency, true
FROM hotel_booking WHERE updated_at > created_at ORDER BY id;
INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'activity', reference, 'created', 'partner', requestor_id, created_at,
       CASE WHEN updated_at = created_at THEN status END, CASE WHEN updated_at = created_at THEN total END, currency, true
FROM activity_booking ORDER BY id;
INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'activity', reference, CASE WHEN status = 'Cancelled' THEN 'cancelled' ELSE 'modified' END, 'partner', requestor_id,
       updated_at, status, total, currency, true
FROM activity_booking WHERE updated_at > created_at ORDER BY id;

ALTER TABLE hotel_booking_guest ADD COLUMN surname_key TEXT COLLATE "C";
UPDATE hotel_booking_guest SET surname_key = lower(surname);
ALTER TABLE activity_booking_participant ADD COLUMN surname_key TEXT COLLATE "C";
UPDATE activity_booking_participant SET surname_key = lower(surname);

CREATE INDEX hotel_booking_guest_by_surname ON hotel_booking_guest (surname_key);
CREATE INDEX activity_booking_participant_by_surname ON activity_booking_participant (surname_key);
CREATE INDEX hotel_booking_by_client_ref ON hotel_booking (client_ref);
CREATE INDEX activity_booking_by_client_ref ON activity_booking (client_reference);
CREATE INDEX hotel_booking_by_created_at ON hotel_booking (created_at, id);
CREATE INDEX hotel_booking_by_arrival_at ON hotel_booking (arrival, id);
CREATE INDEX activity_booking_by_created_at ON activity_booking (created_at, id);
CREATE INDEX activity_booking_by_service_date ON activity_booking (service_date, id);
CREATE INDEX activity_booking_by_activity ON activity_booking (activity_id, created_at);
CREATE INDEX hotel_booking_room_by_hotel ON hotel_booking_room (hotel_code, booking_id);
