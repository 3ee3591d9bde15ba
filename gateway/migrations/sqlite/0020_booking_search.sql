-- Finding any booking (issue 30: `ota-gateway bookings search|show`, the console's booking
-- pages; see docs/operators/bookings.md).
--
-- 1. `booking_history`: every version of a booking, written in the same transaction as the
--    change: created (a Commit, or an import), modified, cancelled (the whole booking; a
--    cancel of some of its rooms is a modification), by whom (`by_kind` partner: the requestor;
--    operator: who ran the command, `import` for an import file) and when (UTC). `status`,
--    `total` and `currency` as the change left the booking. Bookings stored before this
--    migration get what their lifecycle columns tell (`reconstructed` 1): their creation, and
--    their last change when there was one (whose state alone is known: the creation's status
--    and total are NULL then).
-- 2. `surname_key`: a guest's (participant's) surname in lower case (Unicode, written by the
--    gateway), for a case-insensitive prefix search by range; existing rows get SQLite's
--    lower() (ASCII letters only).
-- 3. The indexes of the search: by Client reference, by creation, by arrival (service date),
--    by hotel of a room stay, by activity, by surname.
CREATE TABLE booking_history (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    booking_kind  TEXT NOT NULL CHECK (booking_kind IN ('hotel', 'activity')),
    booking_ref   TEXT NOT NULL,                 -- the booking's Internal reference
    change        TEXT NOT NULL CHECK (change IN ('created', 'modified', 'cancelled')),
    by_kind       TEXT NOT NULL CHECK (by_kind IN ('partner', 'operator')),
    by_id         TEXT NOT NULL,                 -- the requestor id, or the operator's name
    at            TEXT NOT NULL,                 -- UTC, YYYY-MM-DDThh:mm:ssZ
    status        TEXT,
    total         TEXT,
    currency      TEXT,
    reconstructed INTEGER NOT NULL DEFAULT 0 CHECK (reconstructed IN (0, 1))
) STRICT;
CREATE INDEX booking_history_by_booking ON booking_history (booking_ref, booking_kind, id);

INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'hotel', internal_ref, 'created', 'partner', requestor_id, created_at || 'Z',
       CASE WHEN updated_at = created_at THEN status END, CASE WHEN updated_at = created_at THEN total END, currency, 1
FROM hotel_booking ORDER BY id;
INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'hotel', internal_ref, CASE WHEN status = 'Cancelled' THEN 'cancelled' ELSE 'modified' END, 'partner', requestor_id,
       updated_at || 'Z', status, total, currency, 1
FROM hotel_booking WHERE updated_at > created_at ORDER BY id;
INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'activity', reference, 'created', 'partner', requestor_id, created_at,
       CASE WHEN updated_at = created_at THEN status END, CASE WHEN updated_at = created_at THEN total END, currency, 1
FROM activity_booking ORDER BY id;
INSERT INTO booking_history (booking_kind, booking_ref, change, by_kind, by_id, at, status, total, currency, reconstructed)
SELECT 'activity', reference, CASE WHEN status = 'Cancelled' THEN 'cancelled' ELSE 'modified' END, 'partner', requestor_id,
       updated_at, status, total, currency, 1
FROM activity_booking WHERE updated_at > created_at ORDER BY id;

ALTER TABLE hotel_booking_guest ADD COLUMN surname_key TEXT;
UPDATE hotel_booking_guest SET surname_key = lower(surname);
ALTER TABLE activity_booking_participant ADD COLUMN surname_key TEXT;
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
