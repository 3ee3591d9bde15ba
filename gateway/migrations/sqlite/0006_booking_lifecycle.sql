-- A booking's whole life: hotel availability, hotel booking and cancellation (PostgreSQL's
-- 0003 has the same tables).
--
-- 1. Hotel inventory. Content: `hotel_room_type.rooms`, the rooms of a type on sale each
--    night, which `hotel_allotment` overrides for periods (where periods overlap, the one
--    starting last wins). State: `hotel_rooms_sold` per hotel, room type and night, kept by
--    bookings, modifications and cancellations (and imported bookings) only, and keyed by codes
--    so that no import of the content drops it. Rooms left = rooms on sale − rooms sold.
--    Existing live bookings are counted as sold; existing room types have 0 rooms on sale
--    until an import states them.
-- 2. `hotel.region`: the area an availability request names with RefPoint CodeContext="Region".
-- 3. Cancellation policies of the content (`hotel_cancel_rule`, `activity_cancel_rule`: from
--    `hours_before` the start on, or from the booking on when NULL, cancelling costs `percent`)
--    and the penalties fixed into each booking when it is made (`hotel_booking_room_penalty`,
--    `activity_booking_penalty`: absolute deadlines), so that a later change of the content
--    never changes what was sold. Existing hotels, activities and bookings get the policy the
--    gateway applied so far: free until 48 hours before the start, then 100 %.
-- 4. Cancellations: when and at what cost a hotel room or an activity booking was cancelled;
--    `activity_booking.updated_at`, the last change of an activity booking.
-- 5. `client_reference`: a Client reference names one booking of a requestor, hotel or
--    activity, so that a cancel or a read by Client reference is never ambiguous. (Where
--    existing data used one for both, the hotel booking keeps it; the activity booking stays
--    reachable by its Internal reference.)

ALTER TABLE hotel ADD COLUMN region TEXT;
ALTER TABLE hotel_room_type ADD COLUMN rooms INTEGER NOT NULL DEFAULT 0 CHECK (rooms >= 0);
ALTER TABLE hotel_room_type ADD COLUMN max_guests INTEGER CHECK (max_guests IS NULL OR max_guests >= 1);

CREATE TABLE hotel_allotment (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    start_date TEXT NOT NULL CHECK (start_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    end_date   TEXT NOT NULL CHECK (end_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    rooms      INTEGER NOT NULL CHECK (rooms >= 0),
    PRIMARY KEY (hotel_code, room_code, start_date),
    FOREIGN KEY (hotel_code, room_code) REFERENCES hotel_room_type (hotel_code, code) ON DELETE CASCADE,
    CHECK (start_date <= end_date)
) STRICT;

CREATE TABLE hotel_rooms_sold (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,                                    -- without a ';' suffix
    night      TEXT NOT NULL CHECK (night GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    rooms      INTEGER NOT NULL CHECK (rooms >= 0),
    PRIMARY KEY (hotel_code, room_code, night)
) STRICT;

WITH RECURSIVE stay(hotel_code, room_code, night, end_date) AS (
    SELECT r.hotel_code,
           CASE WHEN instr(r.room_type_code, ';') > 0 THEN substr(r.room_type_code, 1, instr(r.room_type_code, ';') - 1) ELSE r.room_type_code END,
           r.start_date, r.end_date
    FROM hotel_booking_room r JOIN hotel_booking b ON b.id = r.booking_id
    WHERE b.status <> 'Cancelled'
    UNION ALL
    SELECT hotel_code, room_code, date(night, '+1 day'), end_date FROM stay WHERE date(night, '+1 day') < end_date
)
INSERT INTO hotel_rooms_sold (hotel_code, room_code, night, rooms)
SELECT hotel_code, room_code, night, count(*) FROM stay GROUP BY hotel_code, room_code, night;

CREATE TABLE hotel_cancel_rule (
    hotel_code   TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    hours_before INTEGER CHECK (hours_before IS NULL OR hours_before BETWEEN 0 AND 8784),
    percent      TEXT NOT NULL,
    PRIMARY KEY (hotel_code, position)
) STRICT;
INSERT INTO hotel_cancel_rule (hotel_code, position, hours_before, percent) SELECT code, 0, 48, '100' FROM hotel;

CREATE TABLE activity_cancel_rule (
    activity_id  TEXT NOT NULL REFERENCES activity (id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    hours_before INTEGER CHECK (hours_before IS NULL OR hours_before BETWEEN 0 AND 8784),
    percent      TEXT NOT NULL,
    PRIMARY KEY (activity_id, position)
) STRICT;
INSERT INTO activity_cancel_rule (activity_id, position, hours_before, percent) SELECT id, 0, 48, '100' FROM activity;

ALTER TABLE hotel_booking_room ADD COLUMN cancelled_at TEXT;     -- local date-time
ALTER TABLE hotel_booking_room ADD COLUMN cancel_penalty TEXT;

CREATE TABLE hotel_booking_room_penalty (
    booking_id    INTEGER NOT NULL,
    room_position INTEGER NOT NULL,
    position      INTEGER NOT NULL,
    deadline      TEXT,                                          -- local date-time; NULL: from the booking on
    percent       TEXT NOT NULL,
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE
) STRICT;
INSERT INTO hotel_booking_room_penalty (booking_id, room_position, position, deadline, percent)
SELECT booking_id, position, 0, strftime('%Y-%m-%dT%H:%M:%S', start_date, '-48 hours'), '100' FROM hotel_booking_room;

ALTER TABLE activity_booking ADD COLUMN updated_at TEXT NOT NULL DEFAULT '';   -- UTC
UPDATE activity_booking SET updated_at = created_at;
ALTER TABLE activity_booking ADD COLUMN cancelled_at TEXT;       -- local date-time
ALTER TABLE activity_booking ADD COLUMN cancel_penalty TEXT;
CREATE INDEX activity_booking_by_created ON activity_booking (requestor_id, created_at);
CREATE INDEX activity_booking_by_updated ON activity_booking (requestor_id, updated_at);

CREATE TABLE activity_booking_penalty (
    booking_id INTEGER NOT NULL REFERENCES activity_booking (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    deadline   TEXT,                                             -- local date-time; NULL: from the booking on
    percent    TEXT NOT NULL,
    PRIMARY KEY (booking_id, position)
) STRICT;
INSERT INTO activity_booking_penalty (booking_id, position, deadline, percent)
SELECT id, 0, strftime('%Y-%m-%dT%H:%M:%S', start_at, '-48 hours'), '100' FROM activity_booking;

CREATE TABLE client_reference (
    requestor_id TEXT NOT NULL,
    client_ref   TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('hotel', 'activity')),
    PRIMARY KEY (requestor_id, client_ref)
) STRICT;
INSERT INTO client_reference (requestor_id, client_ref, kind) SELECT requestor_id, client_ref, 'hotel' FROM hotel_booking;
INSERT INTO client_reference (requestor_id, client_ref, kind)
SELECT requestor_id, client_reference, 'activity' FROM activity_booking WHERE true ON CONFLICT DO NOTHING;
