-- A booking's whole life: hotel availability, hotel booking and cancellation. The same tables
-- as SQLite's 0006 (whose comments describe them), in PostgreSQL's types.

ALTER TABLE hotel ADD COLUMN region TEXT;
ALTER TABLE hotel_room_type ADD COLUMN rooms BIGINT NOT NULL DEFAULT 0 CHECK (rooms >= 0);
ALTER TABLE hotel_room_type ADD COLUMN max_guests BIGINT CHECK (max_guests IS NULL OR max_guests >= 1);

CREATE TABLE hotel_allotment (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    start_date DATE NOT NULL,
    end_date   DATE NOT NULL,
    rooms      BIGINT NOT NULL CHECK (rooms >= 0),
    PRIMARY KEY (hotel_code, room_code, start_date),
    FOREIGN KEY (hotel_code, room_code) REFERENCES hotel_room_type (hotel_code, code) ON DELETE CASCADE,
    CHECK (start_date <= end_date)
);

CREATE TABLE hotel_rooms_sold (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    night      DATE NOT NULL,
    rooms      BIGINT NOT NULL CHECK (rooms >= 0),
    PRIMARY KEY (hotel_code, room_code, night)
);

INSERT INTO hotel_rooms_sold (hotel_code, room_code, night, rooms)
SELECT r.hotel_code, split_part(r.room_type_code, ';', 1), n.night::date, count(*)
FROM hotel_booking_room r
JOIN hotel_booking b ON b.id = r.booking_id
CROSS JOIN LATERAL generate_series(r.start_date, r.end_date - 1, interval '1 day') AS n(night)
WHERE b.status <> 'Cancelled'
GROUP BY 1, 2, 3;

CREATE TABLE hotel_cancel_rule (
    hotel_code   TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position     BIGINT NOT NULL,
    hours_before BIGINT CHECK (hours_before IS NULL OR hours_before BETWEEN 0 AND 8784),
    percent      NUMERIC NOT NULL CHECK (percent BETWEEN 0 AND 100),
    PRIMARY KEY (hotel_code, position)
);
INSERT INTO hotel_cancel_rule (hotel_code, position, hours_before, percent) SELECT code, 0, 48, 100 FROM hotel;

CREATE TABLE activity_cancel_rule (
    activity_id  TEXT NOT NULL REFERENCES activity (id) ON DELETE CASCADE,
    position     BIGINT NOT NULL,
    hours_before BIGINT CHECK (hours_before IS NULL OR hours_before BETWEEN 0 AND 8784),
    percent      NUMERIC NOT NULL CHECK (percent BETWEEN 0 AND 100),
    PRIMARY KEY (activity_id, position)
);
INSERT INTO activity_cancel_rule (activity_id, position, hours_before, percent) SELECT id, 0, 48, 100 FROM activity;

ALTER TABLE hotel_booking_room ADD COLUMN cancelled_at TIMESTAMP;
ALTER TABLE hotel_booking_room ADD COLUMN cancel_penalty NUMERIC;

CREATE TABLE hotel_booking_room_penalty (
    booking_id    BIGINT NOT NULL,
    room_position BIGINT NOT NULL,
    position      BIGINT NOT NULL,
    deadline      TIMESTAMP,
    percent       NUMERIC NOT NULL CHECK (percent BETWEEN 0 AND 100),
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE
);
INSERT INTO hotel_booking_room_penalty (booking_id, room_position, position, deadline, percent)
SELECT booking_id, position, 0, start_date - interval '48 hours', 100 FROM hotel_booking_room;

ALTER TABLE activity_booking ADD COLUMN updated_at TIMESTAMPTZ;
UPDATE activity_booking SET updated_at = created_at;
ALTER TABLE activity_booking ALTER COLUMN updated_at SET NOT NULL;
ALTER TABLE activity_booking ADD COLUMN cancelled_at TIMESTAMP;
ALTER TABLE activity_booking ADD COLUMN cancel_penalty NUMERIC;
CREATE INDEX activity_booking_by_created ON activity_booking (requestor_id, created_at);
CREATE INDEX activity_booking_by_updated ON activity_booking (requestor_id, updated_at);

CREATE TABLE activity_booking_penalty (
    booking_id BIGINT NOT NULL REFERENCES activity_booking (id) ON DELETE CASCADE,
    position   BIGINT NOT NULL,
    deadline   TIMESTAMP,
    percent    NUMERIC NOT NULL CHECK (percent BETWEEN 0 AND 100),
    PRIMARY KEY (booking_id, position)
);
INSERT INTO activity_booking_penalty (booking_id, position, deadline, percent)
SELECT id, 0, start_at - interval '48 hours', 100 FROM activity_booking;

CREATE TABLE client_reference (
    requestor_id TEXT NOT NULL,
    client_ref   TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('hotel', 'activity')),
    PRIMARY KEY (requestor_id, client_ref)
);
INSERT INTO client_reference (requestor_id, client_ref, kind) SELECT requestor_id, client_ref, 'hotel' FROM hotel_booking;
INSERT INTO client_reference (requestor_id, client_ref, kind)
SELECT requestor_id, client_reference, 'activity' FROM activity_booking ON CONFLICT DO NOTHING;
