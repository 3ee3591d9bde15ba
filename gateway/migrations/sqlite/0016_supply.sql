-- The supply side's state (see gateway/README.md "Supply notifications"): what a hotel's
-- supplier said with OTA notifications, night by night, over the content's units, allotments
-- and rates. Keyed by codes (like hotel_rooms_sold) so that no import of the content drops it.
-- Every row keeps the stamp of the message that set it (its TimeStamp, else when it arrived, in
-- microseconds since 1970 UTC): an older message never replaces it. `change` is the supply version that
-- wrote it: every gateway reads the rows of the versions it has not seen yet, never the whole
-- state again.

-- Rooms on sale per room type and night (OTA_HotelInvCountNotifRQ, BookingLimit); NULL: the
-- content's again (RemoveLimit).
CREATE TABLE supply_rooms (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    night      TEXT NOT NULL,
    rooms      INTEGER CHECK (rooms IS NULL OR rooms >= 0),
    stamp      INTEGER NOT NULL,
    change     INTEGER NOT NULL,
    PRIMARY KEY (hotel_code, room_code, night)
);
CREATE INDEX supply_rooms_by_change ON supply_rooms (change);

-- Restrictions per room type, rate plan ('' = every plan), day and kind: `closed`, `arrival`,
-- `departure` (1 closed, 0 open), `min_stay`, `max_stay` (nights; NULL: no limit).
CREATE TABLE supply_restriction (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    board_code TEXT NOT NULL,
    night      TEXT NOT NULL,
    kind       TEXT NOT NULL CHECK (kind IN ('closed', 'arrival', 'departure', 'min_stay', 'max_stay')),
    value      INTEGER CHECK (value IS NULL OR value >= 0),
    stamp      INTEGER NOT NULL,
    change     INTEGER NOT NULL,
    PRIMARY KEY (hotel_code, room_code, board_code, night, kind)
);
CREATE INDEX supply_restriction_by_change ON supply_restriction (change);

-- The amount of one night of a room per room type, rate plan (board), currency, night and
-- number of guests (0: any number).
CREATE TABLE supply_rate (
    hotel_code TEXT NOT NULL,
    room_code  TEXT NOT NULL,
    board_code TEXT NOT NULL,
    currency   TEXT NOT NULL CHECK (length(currency) = 3),
    night      TEXT NOT NULL,
    guests     INTEGER NOT NULL CHECK (guests >= 0),
    amount     TEXT NOT NULL,              -- decimal, e.g. '95.00'
    stamp      INTEGER NOT NULL,
    change     INTEGER NOT NULL,
    PRIMARY KEY (hotel_code, room_code, board_code, currency, night, guests)
);
CREATE INDEX supply_rate_by_change ON supply_rate (change);

-- The supply version: moved on by every notification that changed something (in its
-- transaction), polled by every gateway with the content's versions.
ALTER TABLE content_version ADD COLUMN supply_version INTEGER NOT NULL DEFAULT 0;
