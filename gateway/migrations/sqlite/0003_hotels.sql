-- Hotels and hotel bookings (src/ops/hotels).
--
-- Formats: amounts are exact decimals written as TEXT with two decimals ('845.50'), never
-- floats; dates are 'YYYY-MM-DD'; booking date-times are local 'YYYY-MM-DDThh:mm:ss' (no zone,
-- as the messages carry them). Languages are lower-case codes ('en', 'es', 'de').
--
-- A booking is stored with everything its HotelResModify shape carries, so that a read gives
-- back the full booking and a modify can be compared with it field by field. Children of a
-- booking are keyed by (booking_id, position) and deleted with it (ON DELETE CASCADE): a
-- booking is saved by replacing its children in one transaction.

-- Board codes (meal plans): SC, BB, HB, FB, AI.
CREATE TABLE hotel_board (
    code TEXT PRIMARY KEY CHECK (length(code) BETWEEN 1 AND 8),
    name TEXT NOT NULL                  -- English name, e.g. 'Bed and breakfast'
) STRICT;

CREATE TABLE hotel (
    code            TEXT PRIMARY KEY CHECK (length(code) BETWEEN 1 AND 32),  -- HotelCode
    name            TEXT NOT NULL,      -- HotelName
    code_context    TEXT,               -- HotelCodeContext, e.g. 'GATEWAY'
    chain_name      TEXT,               -- ChainName
    brand_code      TEXT,               -- the client feed (BrandCode) the hotel belongs to
    category_code   TEXT NOT NULL DEFAULT '20',  -- HotelCategory@Code (20 = Hotel)
    category_detail TEXT,               -- HotelCategory@CodeDetail, e.g. 'Hotel'
    category_text   TEXT,               -- HotelCategory/DescriptiveText, e.g. 'Hotel ****'
    latitude        TEXT,               -- decimal degrees (WGS 84)
    longitude       TEXT,
    city_name       TEXT,
    postal_code     TEXT,
    country_code    TEXT,               -- ISO 3166-1 alpha-2
    last_modified   TEXT NOT NULL CHECK (last_modified GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]')
) STRICT;
CREATE INDEX hotel_by_brand ON hotel (brand_code) WHERE brand_code IS NOT NULL;

-- Texts of a hotel per language: the long description and the country name.
CREATE TABLE hotel_text (
    hotel_code   TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    language     TEXT NOT NULL,
    description  TEXT NOT NULL,
    country_name TEXT,
    PRIMARY KEY (hotel_code, language)
) STRICT;

CREATE TABLE hotel_address_line (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    line       TEXT NOT NULL,
    PRIMARY KEY (hotel_code, position)
) STRICT;

CREATE TABLE hotel_phone (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    number     TEXT NOT NULL,
    tech_type  TEXT,                    -- PhoneTechType (1 voice, 3 fax, 5 mobile)
    PRIMARY KEY (hotel_code, position)
) STRICT;

CREATE TABLE hotel_email (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    email      TEXT NOT NULL,
    PRIMARY KEY (hotel_code, position)
) STRICT;

-- Room types of a hotel (RMSD000000-style codes, without a ';contract/rate-plan' suffix).
CREATE TABLE hotel_room_type (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    code       TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 32 AND instr(code, ';') = 0),
    position   INTEGER NOT NULL,
    PRIMARY KEY (hotel_code, code)
) STRICT;

CREATE TABLE hotel_room_type_text (
    hotel_code  TEXT NOT NULL,
    room_code   TEXT NOT NULL,
    language    TEXT NOT NULL,
    name        TEXT NOT NULL,          -- GuestRoomInfo@CodeDetail, RoomDescription/Text
    description TEXT,                   -- GuestRoomInfo/DescriptiveText
    PRIMARY KEY (hotel_code, room_code, language),
    FOREIGN KEY (hotel_code, room_code) REFERENCES hotel_room_type (hotel_code, code) ON DELETE CASCADE
) STRICT;

-- Nightly prices of a room type with a board, in one currency, for the nights from start_date
-- to end_date (both included). When periods overlap, the one starting last wins.
CREATE TABLE hotel_rate (
    hotel_code     TEXT NOT NULL,
    room_code      TEXT NOT NULL,
    board_code     TEXT NOT NULL REFERENCES hotel_board (code),
    currency       TEXT NOT NULL CHECK (length(currency) = 3),
    start_date     TEXT NOT NULL,
    end_date       TEXT NOT NULL,
    nightly_amount TEXT NOT NULL,       -- decimal, e.g. '95.00'
    PRIMARY KEY (hotel_code, room_code, board_code, currency, start_date),
    FOREIGN KEY (hotel_code, room_code) REFERENCES hotel_room_type (hotel_code, code) ON DELETE CASCADE,
    CHECK (start_date <= end_date)
) STRICT;

CREATE TABLE hotel_image (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    category   TEXT,                    -- ImageItem@Category (OTA PIC code: 1 exterior, 6 guest room)
    PRIMARY KEY (hotel_code, position)
) STRICT;

CREATE TABLE hotel_image_format (
    hotel_code     TEXT NOT NULL,
    image_position INTEGER NOT NULL,
    position       INTEGER NOT NULL,
    url            TEXT NOT NULL,
    width          INTEGER,
    height         INTEGER,
    PRIMARY KEY (hotel_code, image_position, position),
    FOREIGN KEY (hotel_code, image_position) REFERENCES hotel_image (hotel_code, position) ON DELETE CASCADE
) STRICT;

CREATE TABLE hotel_image_text (
    hotel_code     TEXT NOT NULL,
    image_position INTEGER NOT NULL,
    language       TEXT NOT NULL,
    caption        TEXT,
    description    TEXT NOT NULL,
    PRIMARY KEY (hotel_code, image_position, language),
    FOREIGN KEY (hotel_code, image_position) REFERENCES hotel_image (hotel_code, position) ON DELETE CASCADE
) STRICT;

-- Hotel bookings. The owner is the requestor id (no foreign key: a booking outlives its
-- requestor's row, and imports may bring bookings of requestors created later).
CREATE TABLE hotel_booking (
    id                 INTEGER PRIMARY KEY,
    internal_ref       TEXT NOT NULL UNIQUE CHECK (length(internal_ref) BETWEEN 1 AND 64),  -- ResID_SourceContext Internal
    client_ref         TEXT NOT NULL CHECK (length(client_ref) BETWEEN 1 AND 64),           -- ResID_SourceContext Client
    requestor_id       TEXT NOT NULL,   -- the owner
    company_name       TEXT,            -- UniqueID/CompanyName of the Client reference
    company_code       TEXT,
    company_short_name TEXT,
    status             TEXT NOT NULL,   -- Reserved, Cancelled, ... (BookingStatus)
    created_at         TEXT NOT NULL,   -- CreateDateTime
    updated_at         TEXT NOT NULL,   -- LastUpdateDateTime
    currency           TEXT NOT NULL CHECK (length(currency) = 3),
    total              TEXT NOT NULL,   -- ResGlobalInfo/Total@AmountAfterTax (sum of the rooms)
    arrival            TEXT NOT NULL,   -- first Start of its room stays (for list reads)
    departure          TEXT NOT NULL,   -- last End of its room stays
    UNIQUE (requestor_id, client_ref),
    CHECK (created_at <= updated_at),
    CHECK (arrival < departure)
) STRICT;
CREATE INDEX hotel_booking_by_arrival ON hotel_booking (requestor_id, arrival);
CREATE INDEX hotel_booking_by_departure ON hotel_booking (requestor_id, departure);
CREATE INDEX hotel_booking_by_created ON hotel_booking (requestor_id, created_at);
CREATE INDEX hotel_booking_by_updated ON hotel_booking (requestor_id, updated_at);

-- ResGuests/ResGuest.
CREATE TABLE hotel_booking_guest (
    booking_id          INTEGER NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    rph                 INTEGER NOT NULL,   -- ResGuestRPH
    position            INTEGER NOT NULL,   -- order in the booking; position 0 is the lead guest
    age_qualifying_code TEXT NOT NULL,      -- 10 adult, 8 child, ...
    birth_date          TEXT,
    name_prefix         TEXT,
    given_name          TEXT,
    surname             TEXT,
    age                 INTEGER CHECK (age BETWEEN 0 AND 150),
    PRIMARY KEY (booking_id, rph),
    UNIQUE (booking_id, position)
) STRICT;

-- Services/Service (board, transfers, ...).
CREATE TABLE hotel_booking_service (
    booking_id     INTEGER NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    rph            INTEGER NOT NULL,        -- ServiceRPH
    position       INTEGER NOT NULL,
    inventory_code TEXT NOT NULL,           -- ServiceInventoryCode
    PRIMARY KEY (booking_id, rph),
    UNIQUE (booking_id, position)
) STRICT;

-- Service/ServiceDetails/ResGuestRPHs.
CREATE TABLE hotel_booking_service_guest (
    booking_id  INTEGER NOT NULL,
    service_rph INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    guest_rph   INTEGER NOT NULL,
    PRIMARY KEY (booking_id, service_rph, position),
    FOREIGN KEY (booking_id, service_rph) REFERENCES hotel_booking_service (booking_id, rph) ON DELETE CASCADE,
    FOREIGN KEY (booking_id, guest_rph) REFERENCES hotel_booking_guest (booking_id, rph) ON DELETE CASCADE
) STRICT;

-- Service/TPA_Extensions/TransferInfoType/TransferLeg: one row per end of a leg, either a
-- hotel or a connecting transport (flight).
CREATE TABLE hotel_booking_transfer_end (
    booking_id        INTEGER NOT NULL,
    service_rph       INTEGER NOT NULL,
    leg_position      INTEGER NOT NULL,
    end_kind          TEXT NOT NULL CHECK (end_kind IN ('origin', 'destination')),
    kind              TEXT NOT NULL CHECK (kind IN ('hotel', 'transport')),
    hotel_code        TEXT,                 -- kind 'hotel'
    departure_at      TEXT,                 -- kind 'transport': local date-times
    arrival_at        TEXT,
    departure_airport TEXT,
    arrival_airport   TEXT,
    flight_number     TEXT,
    PRIMARY KEY (booking_id, service_rph, leg_position, end_kind),
    FOREIGN KEY (booking_id, service_rph) REFERENCES hotel_booking_service (booking_id, rph) ON DELETE CASCADE,
    CHECK ((kind = 'hotel') = (hotel_code IS NOT NULL))
) STRICT;

-- RoomStays/RoomStay.
CREATE TABLE hotel_booking_room (
    booking_id     INTEGER NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    index_number   INTEGER,                 -- IndexNumber
    status         TEXT,                    -- RoomStayStatus (Book, ...)
    hotel_code     TEXT NOT NULL REFERENCES hotel (code),
    room_type_code TEXT NOT NULL,           -- as booked, may carry ';contract/rate-plan'
    board_code     TEXT NOT NULL REFERENCES hotel_board (code),
    start_date     TEXT NOT NULL,
    end_date       TEXT NOT NULL,
    total          TEXT NOT NULL,           -- RoomStay/Total@AmountAfterTax
    reference_id   TEXT,                    -- Reference@ID
    reference_type TEXT,                    -- Reference@Type (14)
    PRIMARY KEY (booking_id, position),
    CHECK (start_date < end_date)
) STRICT;

-- RoomStay/ResGuestRPHs: who sleeps in the room.
CREATE TABLE hotel_booking_room_guest (
    booking_id    INTEGER NOT NULL,
    room_position INTEGER NOT NULL,
    position      INTEGER NOT NULL,
    guest_rph     INTEGER NOT NULL,
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE,
    FOREIGN KEY (booking_id, guest_rph) REFERENCES hotel_booking_guest (booking_id, rph) ON DELETE CASCADE
) STRICT;

-- RoomStay/ServiceRPHs.
CREATE TABLE hotel_booking_room_service (
    booking_id    INTEGER NOT NULL,
    room_position INTEGER NOT NULL,
    position      INTEGER NOT NULL,
    service_rph   INTEGER NOT NULL,
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE,
    FOREIGN KEY (booking_id, service_rph) REFERENCES hotel_booking_service (booking_id, rph) ON DELETE CASCADE
) STRICT;

-- RoomStay/TPA_Extensions/POS/Source/RequestorID (Types 4, 39, 2, 45 seen). A MessagePassword
-- found there is never stored.
CREATE TABLE hotel_booking_room_source (
    booking_id         INTEGER NOT NULL,
    room_position      INTEGER NOT NULL,
    position           INTEGER NOT NULL,
    type               TEXT NOT NULL,
    id                 TEXT NOT NULL,
    id_context         TEXT,
    instance           TEXT,
    company_name       TEXT,
    company_short_name TEXT,
    company_code       TEXT,
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE
) STRICT;

-- ResGlobalInfo/Comments/Comment and its Text elements.
CREATE TABLE hotel_booking_comment (
    booking_id INTEGER NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    name       TEXT,
    originator TEXT,                        -- CommentOriginatorCode
    PRIMARY KEY (booking_id, position)
) STRICT;

CREATE TABLE hotel_booking_comment_text (
    booking_id       INTEGER NOT NULL,
    comment_position INTEGER NOT NULL,
    position         INTEGER NOT NULL,
    language         TEXT,
    text             TEXT NOT NULL,
    PRIMARY KEY (booking_id, comment_position, position),
    FOREIGN KEY (booking_id, comment_position) REFERENCES hotel_booking_comment (booking_id, position) ON DELETE CASCADE
) STRICT;

-- ResGlobalInfo/HotelReservationIDs other than the two booking-level ones (which are the
-- internal_ref and client_ref columns): item-level references (Type 37) and any others.
CREATE TABLE hotel_booking_reference (
    booking_id     INTEGER NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL,
    res_id_type    TEXT NOT NULL,           -- ResID_Type (37)
    source_context TEXT NOT NULL CHECK (source_context IN ('Client', 'Internal')),
    value          TEXT NOT NULL,           -- ResID_Value
    item_rph       INTEGER,                 -- Item_RPH
    PRIMARY KEY (booking_id, position)
) STRICT;
