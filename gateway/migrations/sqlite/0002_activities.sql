-- Activities: the catalogue (activities, products, services, schedules, prices, allotment)
-- and the activity bookings. Filled by `ota-gateway import` / the demo seed through
-- `ops::activities::store`; read and written by the four activity operations.
--
-- Conventions: dates are TEXT `YYYY-MM-DD`, local times of day `hh:mm`, local date-times
-- `YYYY-MM-DDThh:mm:ss` (local to the activity), UTC instants `YYYY-MM-DDThh:mm:ssZ`. Money is
-- a TEXT decimal string (`29.50`), never a float; currencies are ISO 4217 codes.

-- One tour activity (TourActivityID), with where it takes place.
CREATE TABLE activity (
    id            TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),   -- TourActivityID
    address       TEXT NOT NULL DEFAULT '',   -- address lines, separated by a newline
    city          TEXT,
    postal_code   TEXT,
    country_code  TEXT CHECK (country_code IS NULL OR (length(country_code) = 2 AND country_code = upper(country_code))),
    country_name  TEXT,
    region_code   TEXT NOT NULL,              -- e.g. PMI
    region_name   TEXT NOT NULL,              -- e.g. Mallorca – East coast
    latitude      TEXT,                       -- decimal degrees (text, exact)
    longitude     TEXT,
    duration      TEXT,                       -- nominal ISO 8601 duration (PT8H), when no schedule says it
    updated_at    TEXT NOT NULL               -- UTC, when the import last wrote it
) STRICT;

-- Names and descriptions of an activity, per language (`en`, `es`, ...).
CREATE TABLE activity_text (
    activity_id       TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    lang              TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name              TEXT NOT NULL,
    short_name        TEXT,
    short_description TEXT,
    long_description  TEXT,
    PRIMARY KEY (activity_id, lang)
) STRICT;

-- Category (XA excursion, SE show/event, ...) and type (CAVE, BOAT, ...) pairs of an activity.
CREATE TABLE activity_category (
    activity_id   TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    position      INTEGER NOT NULL CHECK (position >= 0),
    category_code TEXT NOT NULL,
    type_code     TEXT,
    PRIMARY KEY (activity_id, position)
) STRICT;

-- Names of the category and type codes, per language (shared by all activities).
CREATE TABLE activity_code_text (
    kind  TEXT NOT NULL CHECK (kind IN ('category', 'type')),
    code  TEXT NOT NULL,
    lang  TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name  TEXT NOT NULL,
    PRIMARY KEY (kind, code, lang)
) STRICT;

-- Hotels an activity is near to (search and availability by Source HotelCode), and whether its
-- transfer services pick up there.
CREATE TABLE activity_hotel (
    activity_id      TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    hotel_code       TEXT NOT NULL,
    hotel_name       TEXT,
    meeting_location TEXT,
    pickup           INTEGER NOT NULL DEFAULT 1 CHECK (pickup IN (0, 1)),
    pickup_minutes   INTEGER CHECK (pickup_minutes IS NULL OR pickup_minutes BETWEEN 0 AND 1440), -- lead before the start, overriding the service's
    PRIMARY KEY (activity_id, hotel_code)
) STRICT;
CREATE INDEX activity_hotel_by_hotel ON activity_hotel (hotel_code);

-- A product (SupplierProductCode) of an activity: a variant such as a morning visit.
CREATE TABLE activity_product (
    id          INTEGER PRIMARY KEY,
    activity_id TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    code        TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 64),
    position    INTEGER NOT NULL DEFAULT 0,
    UNIQUE (activity_id, code)
) STRICT;
CREATE INDEX activity_product_by_code ON activity_product (code);

CREATE TABLE activity_product_text (
    product_id  INTEGER NOT NULL REFERENCES activity_product(id) ON DELETE CASCADE,
    lang        TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name        TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (product_id, lang)
) STRICT;

-- When a product runs: on the given ISO weekdays (1 Monday … 7 Sunday) between the optional
-- first and last dates, from start_time to end_time (local). At most one session per product
-- and date is used (the earliest matching row).
CREATE TABLE activity_schedule (
    id          INTEGER PRIMARY KEY,
    product_id  INTEGER NOT NULL REFERENCES activity_product(id) ON DELETE CASCADE,
    weekdays    TEXT NOT NULL CHECK (length(weekdays) BETWEEN 1 AND 7 AND weekdays NOT GLOB '*[^1-7]*'),
    valid_from  TEXT CHECK (valid_from IS NULL OR valid_from GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    valid_to    TEXT CHECK (valid_to IS NULL OR valid_to GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    start_time  TEXT NOT NULL CHECK (start_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    end_time    TEXT NOT NULL CHECK (end_time GLOB '[0-2][0-9]:[0-5][0-9]'),
    CHECK (end_time > start_time),
    CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_to >= valid_from)
) STRICT;
CREATE INDEX activity_schedule_by_product ON activity_schedule (product_id);

-- A service (SupplierServiceCode) of a product: TIC ticket only, TRF with transfer (pickup
-- required when booking). `capacity` is the number of places per date unless an allotment row
-- says otherwise.
CREATE TABLE activity_service (
    id              INTEGER PRIMARY KEY,
    product_id      INTEGER NOT NULL REFERENCES activity_product(id) ON DELETE CASCADE,
    code            TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 16),
    transfer        INTEGER NOT NULL CHECK (transfer IN (0, 1)),
    currency        TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
    capacity        INTEGER NOT NULL CHECK (capacity >= 0),
    pickup_minutes  INTEGER NOT NULL DEFAULT 0 CHECK (pickup_minutes BETWEEN 0 AND 1440),  -- pickup this long before the start
    return_minutes  INTEGER NOT NULL DEFAULT 0 CHECK (return_minutes BETWEEN 0 AND 1440),  -- back at the hotel this long after the end
    position        INTEGER NOT NULL DEFAULT 0,
    UNIQUE (product_id, code)
) STRICT;

CREATE TABLE activity_service_text (
    service_id  INTEGER NOT NULL REFERENCES activity_service(id) ON DELETE CASCADE,
    lang        TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name        TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (service_id, lang)
) STRICT;

-- Price per participant of a participant category (OTA AQC: 10 adult, 8 child, 7 infant,
-- 11 senior, ...), in the service's currency.
CREATE TABLE activity_price (
    service_id  INTEGER NOT NULL REFERENCES activity_service(id) ON DELETE CASCADE,
    category    TEXT NOT NULL CHECK (length(category) BETWEEN 1 AND 8 AND category NOT GLOB '*[^0-9]*'),
    amount      TEXT NOT NULL CHECK (amount GLOB '[0-9]*' AND amount NOT GLOB '*[^0-9.]*'),
    PRIMARY KEY (service_id, category)
) STRICT;

-- Places left of a service on a date. A missing row means the service's full capacity; the
-- first booking of a date creates the row.
CREATE TABLE activity_allotment (
    service_id  INTEGER NOT NULL REFERENCES activity_service(id) ON DELETE CASCADE,
    date        TEXT NOT NULL CHECK (date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    places_left INTEGER NOT NULL CHECK (places_left >= 0),
    PRIMARY KEY (service_id, date)
) STRICT;

-- An activity booking (made by a Commit). The codes are copied, not referenced: a booking
-- outlives catalogue changes.
CREATE TABLE activity_booking (
    id               INTEGER PRIMARY KEY,
    reference        TEXT NOT NULL UNIQUE,                           -- Internal reference (ACT-…)
    client_reference TEXT NOT NULL CHECK (length(client_reference) >= 1),
    requestor_id     TEXT NOT NULL REFERENCES requestor(id),
    activity_id      TEXT NOT NULL,
    product_code     TEXT NOT NULL,
    service_code     TEXT NOT NULL,
    service_date     TEXT NOT NULL CHECK (service_date GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
    start_at         TEXT NOT NULL,                                  -- local date-time of the session start
    end_at           TEXT NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('Reserved', 'Cancelled')),
    total            TEXT NOT NULL,
    currency         TEXT NOT NULL CHECK (length(currency) = 3),
    created_at       TEXT NOT NULL,                                  -- UTC
    UNIQUE (requestor_id, client_reference)
) STRICT;
CREATE INDEX activity_booking_by_date ON activity_booking (service_date);

CREATE TABLE activity_booking_participant (
    booking_id     INTEGER NOT NULL REFERENCES activity_booking(id) ON DELETE CASCADE,
    participant_id INTEGER NOT NULL CHECK (participant_id >= 0),
    position       INTEGER NOT NULL,
    category       TEXT NOT NULL,
    age            INTEGER CHECK (age IS NULL OR age >= 0),
    name_prefix    TEXT,
    given_name     TEXT,
    surname        TEXT,
    amount         TEXT NOT NULL,
    PRIMARY KEY (booking_id, participant_id)
) STRICT;

-- The pickup of a transfer booking.
CREATE TABLE activity_booking_pickup (
    booking_id    INTEGER PRIMARY KEY REFERENCES activity_booking(id) ON DELETE CASCADE,
    date_time     TEXT NOT NULL,              -- local date-time
    location_name TEXT NOT NULL,              -- the hotel code
    pickup_ind    INTEGER NOT NULL CHECK (pickup_ind IN (0, 1))
) STRICT;
