-- The supply side's state: the same tables as SQLite's 0016 (whose comments describe them), in
-- PostgreSQL's types.
CREATE TABLE supply_rooms (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    night      DATE NOT NULL,
    rooms      BIGINT CHECK (rooms IS NULL OR rooms >= 0),
    stamp      BIGINT NOT NULL,
    change     BIGINT NOT NULL,
    PRIMARY KEY (hotel_code, room_code, night)
);
CREATE INDEX supply_rooms_by_change ON supply_rooms (change);

CREATE TABLE supply_restriction (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    board_code TEXT NOT NULL,
    night      DATE NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('closed', 'arrival', 'departure', 'min_stay', 'max_stay')),
    value      BIGINT CHECK (value IS NULL OR value >= 0),
    stamp      BIGINT NOT NULL,
    change     BIGINT NOT NULL,
    PRIMARY KEY (hotel_code, room_code, board_code, night, kind)
);
CREATE INDEX supply_restriction_by_change ON supply_restriction (change);

CREATE TABLE supply_rate (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    board_code TEXT NOT NULL,
    currency   TEXT NOT NULL CHECK (length(currency) = 3),
    night      DATE NOT NULL,
    guests     BIGINT NOT NULL CHECK (guests >= 0),
    amount     NUMERIC NOT NULL CHECK (amount >= 0),
    stamp      BIGINT NOT NULL,
    change     BIGINT NOT NULL,
    PRIMARY KEY (hotel_code, room_code, board_code, currency, night, guests)
);
CREATE INDEX supply_rate_by_change ON supply_rate (change);

ALTER TABLE content_version ADD COLUMN supply_version BIGINT NOT NULL DEFAULT 0;
