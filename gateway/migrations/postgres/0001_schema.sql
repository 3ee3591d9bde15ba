-- The gateway's schema on PostgreSQL: the same tables as SQLite's migrations 0001–0004, in
-- PostgreSQL's own types (dates, timestamps, numeric, boolean). The comments of the SQLite
-- files describe each table; only what differs is said here.
--
-- Types: local date-times (as the messages carry them) are TIMESTAMP, UTC instants
-- TIMESTAMPTZ, money and coordinates NUMERIC (exact), integers BIGINT.

CREATE TABLE content_version (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    version    BIGINT NOT NULL CHECK (version >= 1),
    changed_at TIMESTAMPTZ NOT NULL
);
INSERT INTO content_version (id, version, changed_at) VALUES (1, 1, now());

CREATE TABLE health_check (
    id         BIGINT PRIMARY KEY CHECK (id = 1),
    checked_at TIMESTAMPTZ NOT NULL
);
INSERT INTO health_check (id, checked_at) VALUES (1, now());

-- Requestors -------------------------------------------------------------------------------

CREATE TABLE requestor (
    id            TEXT PRIMARY KEY,
    id_context    TEXT NOT NULL,
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    active        BOOLEAN NOT NULL DEFAULT TRUE,
    created_at    TIMESTAMPTZ NOT NULL
);

-- Activities -------------------------------------------------------------------------------

CREATE TABLE activity (
    id            TEXT PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 64),
    address       TEXT NOT NULL DEFAULT '',
    city          TEXT,
    postal_code   TEXT,
    country_code  TEXT CHECK (country_code IS NULL OR (length(country_code) = 2 AND country_code = upper(country_code))),
    country_name  TEXT,
    region_code   TEXT NOT NULL,
    region_name   TEXT NOT NULL,
    latitude      NUMERIC,
    longitude     NUMERIC,
    duration      TEXT,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE activity_text (
    activity_id       TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    lang              TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name              TEXT NOT NULL,
    short_name        TEXT,
    short_description TEXT,
    long_description  TEXT,
    PRIMARY KEY (activity_id, lang)
);

CREATE TABLE activity_category (
    activity_id   TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    position      BIGINT NOT NULL CHECK (position >= 0),
    category_code TEXT NOT NULL,
    type_code     TEXT,
    PRIMARY KEY (activity_id, position)
);

CREATE TABLE activity_code_text (
    kind  TEXT NOT NULL CHECK (kind IN ('category', 'type')),
    code  TEXT NOT NULL,
    lang  TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name  TEXT NOT NULL,
    PRIMARY KEY (kind, code, lang)
);

CREATE TABLE activity_hotel (
    activity_id      TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    hotel_code       TEXT NOT NULL,
    hotel_name       TEXT,
    meeting_location TEXT,
    pickup           BOOLEAN NOT NULL DEFAULT TRUE,
    pickup_minutes   BIGINT CHECK (pickup_minutes IS NULL OR pickup_minutes BETWEEN 0 AND 1440),
    PRIMARY KEY (activity_id, hotel_code)
);
CREATE INDEX activity_hotel_by_hotel ON activity_hotel (hotel_code);

CREATE TABLE activity_product (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    activity_id TEXT NOT NULL REFERENCES activity(id) ON DELETE CASCADE,
    code        TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 64),
    position    BIGINT NOT NULL DEFAULT 0,
    UNIQUE (activity_id, code)
);
CREATE INDEX activity_product_by_code ON activity_product (code);

CREATE TABLE activity_product_text (
    product_id  BIGINT NOT NULL REFERENCES activity_product(id) ON DELETE CASCADE,
    lang        TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name        TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (product_id, lang)
);

CREATE TABLE activity_schedule (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    product_id  BIGINT NOT NULL REFERENCES activity_product(id) ON DELETE CASCADE,
    weekdays    TEXT NOT NULL CHECK (weekdays ~ '^[1-7]{1,7}$'),
    valid_from  DATE,
    valid_to    DATE,
    start_time  TIME NOT NULL,
    end_time    TIME NOT NULL,
    CHECK (end_time > start_time),
    CHECK (valid_from IS NULL OR valid_to IS NULL OR valid_to >= valid_from)
);
CREATE INDEX activity_schedule_by_product ON activity_schedule (product_id);

CREATE TABLE activity_service (
    id              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    product_id      BIGINT NOT NULL REFERENCES activity_product(id) ON DELETE CASCADE,
    code            TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 16),
    transfer        BOOLEAN NOT NULL,
    currency        TEXT NOT NULL CHECK (length(currency) = 3 AND currency = upper(currency)),
    capacity        BIGINT NOT NULL CHECK (capacity >= 0),
    pickup_minutes  BIGINT NOT NULL DEFAULT 0 CHECK (pickup_minutes BETWEEN 0 AND 1440),
    return_minutes  BIGINT NOT NULL DEFAULT 0 CHECK (return_minutes BETWEEN 0 AND 1440),
    position        BIGINT NOT NULL DEFAULT 0,
    UNIQUE (product_id, code)
);

CREATE TABLE activity_service_text (
    service_id  BIGINT NOT NULL REFERENCES activity_service(id) ON DELETE CASCADE,
    lang        TEXT NOT NULL CHECK (length(lang) BETWEEN 2 AND 8 AND lang = lower(lang)),
    name        TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (service_id, lang)
);

CREATE TABLE activity_price (
    service_id  BIGINT NOT NULL REFERENCES activity_service(id) ON DELETE CASCADE,
    category    TEXT NOT NULL CHECK (category ~ '^[0-9]{1,8}$'),
    amount      NUMERIC NOT NULL CHECK (amount >= 0),
    PRIMARY KEY (service_id, category)
);

CREATE TABLE activity_capacity (
    service_id BIGINT NOT NULL REFERENCES activity_service(id) ON DELETE CASCADE,
    date       DATE NOT NULL,
    places     BIGINT NOT NULL CHECK (places >= 0),
    PRIMARY KEY (service_id, date)
);

CREATE TABLE activity_places_booked (
    activity_id  TEXT NOT NULL,
    product_code TEXT NOT NULL,
    service_code TEXT NOT NULL,
    date         DATE NOT NULL,
    places       BIGINT NOT NULL CHECK (places >= 0),
    PRIMARY KEY (activity_id, product_code, service_code, date)
);

CREATE TABLE activity_booking (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    reference        TEXT NOT NULL UNIQUE,
    client_reference TEXT NOT NULL CHECK (length(client_reference) >= 1),
    requestor_id     TEXT NOT NULL REFERENCES requestor(id),
    activity_id      TEXT NOT NULL,
    product_code     TEXT NOT NULL,
    service_code     TEXT NOT NULL,
    service_date     DATE NOT NULL,
    start_at         TIMESTAMP NOT NULL,
    end_at           TIMESTAMP NOT NULL,
    status           TEXT NOT NULL CHECK (status IN ('Reserved', 'Cancelled')),
    total            NUMERIC NOT NULL,
    currency         TEXT NOT NULL CHECK (length(currency) = 3),
    created_at       TIMESTAMPTZ NOT NULL,
    UNIQUE (requestor_id, client_reference)
);
CREATE INDEX activity_booking_by_date ON activity_booking (service_date);
CREATE INDEX activity_booking_by_requestor ON activity_booking (requestor_id, service_date);

CREATE TABLE activity_booking_participant (
    booking_id     BIGINT NOT NULL REFERENCES activity_booking(id) ON DELETE CASCADE,
    participant_id BIGINT NOT NULL CHECK (participant_id >= 0),
    position       BIGINT NOT NULL,
    category       TEXT NOT NULL,
    age            BIGINT CHECK (age IS NULL OR age >= 0),
    name_prefix    TEXT,
    given_name     TEXT,
    surname        TEXT,
    amount         NUMERIC NOT NULL,
    PRIMARY KEY (booking_id, participant_id)
);

CREATE TABLE activity_booking_pickup (
    booking_id    BIGINT PRIMARY KEY REFERENCES activity_booking(id) ON DELETE CASCADE,
    date_time     TIMESTAMP NOT NULL,
    location_name TEXT NOT NULL,
    pickup_ind    BOOLEAN NOT NULL
);

-- Hotels -----------------------------------------------------------------------------------

CREATE TABLE hotel_board (
    code TEXT PRIMARY KEY CHECK (length(code) BETWEEN 1 AND 8),
    name TEXT NOT NULL
);

CREATE TABLE hotel (
    code            TEXT PRIMARY KEY CHECK (length(code) BETWEEN 1 AND 32),
    name            TEXT NOT NULL,
    code_context    TEXT,
    chain_name      TEXT,
    brand_code      TEXT,
    category_code   TEXT NOT NULL DEFAULT '20',
    category_detail TEXT,
    category_text   TEXT,
    latitude        NUMERIC,
    longitude       NUMERIC,
    city_name       TEXT,
    postal_code     TEXT,
    country_code    TEXT,
    last_modified   DATE NOT NULL
);
CREATE INDEX hotel_by_brand ON hotel (brand_code) WHERE brand_code IS NOT NULL;

CREATE TABLE hotel_text (
    hotel_code   TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    language     TEXT NOT NULL,
    description  TEXT NOT NULL,
    country_name TEXT,
    PRIMARY KEY (hotel_code, language)
);

CREATE TABLE hotel_address_line (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   BIGINT NOT NULL,
    line       TEXT NOT NULL,
    PRIMARY KEY (hotel_code, position)
);

CREATE TABLE hotel_phone (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   BIGINT NOT NULL,
    number     TEXT NOT NULL,
    tech_type  TEXT,
    PRIMARY KEY (hotel_code, position)
);

CREATE TABLE hotel_email (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   BIGINT NOT NULL,
    email      TEXT NOT NULL,
    PRIMARY KEY (hotel_code, position)
);

CREATE TABLE hotel_room_type (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    code       TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 32 AND strpos(code, ';') = 0),
    position   BIGINT NOT NULL,
    PRIMARY KEY (hotel_code, code)
);

CREATE TABLE hotel_room_type_text (
    hotel_code  TEXT NOT NULL,
    room_code   TEXT NOT NULL,
    language    TEXT NOT NULL,
    name        TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (hotel_code, room_code, language),
    FOREIGN KEY (hotel_code, room_code) REFERENCES hotel_room_type (hotel_code, code) ON DELETE CASCADE
);

CREATE TABLE hotel_rate (
    hotel_code     TEXT NOT NULL,
    room_code      TEXT NOT NULL,
    board_code     TEXT NOT NULL REFERENCES hotel_board (code),
    currency       TEXT NOT NULL CHECK (length(currency) = 3),
    start_date     DATE NOT NULL,
    end_date       DATE NOT NULL,
    nightly_amount NUMERIC NOT NULL CHECK (nightly_amount >= 0),
    PRIMARY KEY (hotel_code, room_code, board_code, currency, start_date),
    FOREIGN KEY (hotel_code, room_code) REFERENCES hotel_room_type (hotel_code, code) ON DELETE CASCADE,
    CHECK (start_date <= end_date)
);

CREATE TABLE hotel_image (
    hotel_code TEXT NOT NULL REFERENCES hotel (code) ON DELETE CASCADE,
    position   BIGINT NOT NULL,
    category   TEXT,
    PRIMARY KEY (hotel_code, position)
);

CREATE TABLE hotel_image_format (
    hotel_code     TEXT NOT NULL,
    image_position BIGINT NOT NULL,
    position       BIGINT NOT NULL,
    url            TEXT NOT NULL,
    width          BIGINT,
    height         BIGINT,
    PRIMARY KEY (hotel_code, image_position, position),
    FOREIGN KEY (hotel_code, image_position) REFERENCES hotel_image (hotel_code, position) ON DELETE CASCADE
);

CREATE TABLE hotel_image_text (
    hotel_code     TEXT NOT NULL,
    image_position BIGINT NOT NULL,
    language       TEXT NOT NULL,
    caption        TEXT,
    description    TEXT NOT NULL,
    PRIMARY KEY (hotel_code, image_position, language),
    FOREIGN KEY (hotel_code, image_position) REFERENCES hotel_image (hotel_code, position) ON DELETE CASCADE
);

CREATE TABLE hotel_booking (
    id                 BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    internal_ref       TEXT NOT NULL UNIQUE CHECK (length(internal_ref) BETWEEN 1 AND 64),
    client_ref         TEXT NOT NULL CHECK (length(client_ref) BETWEEN 1 AND 64),
    requestor_id       TEXT NOT NULL,
    company_name       TEXT,
    company_code       TEXT,
    company_short_name TEXT,
    status             TEXT NOT NULL,
    created_at         TIMESTAMP NOT NULL,
    updated_at         TIMESTAMP NOT NULL,
    currency           TEXT NOT NULL CHECK (length(currency) = 3),
    total              NUMERIC NOT NULL,
    arrival            DATE NOT NULL,
    departure          DATE NOT NULL,
    UNIQUE (requestor_id, client_ref),
    CHECK (created_at <= updated_at),
    CHECK (arrival < departure)
);
CREATE INDEX hotel_booking_by_arrival ON hotel_booking (requestor_id, arrival);
CREATE INDEX hotel_booking_by_departure ON hotel_booking (requestor_id, departure);
CREATE INDEX hotel_booking_by_created ON hotel_booking (requestor_id, created_at);
CREATE INDEX hotel_booking_by_updated ON hotel_booking (requestor_id, updated_at);

CREATE TABLE hotel_booking_guest (
    booking_id          BIGINT NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    rph                 BIGINT NOT NULL,
    position            BIGINT NOT NULL,
    age_qualifying_code TEXT NOT NULL,
    birth_date          DATE,
    name_prefix         TEXT,
    given_name          TEXT,
    surname             TEXT,
    age                 BIGINT CHECK (age BETWEEN 0 AND 150),
    PRIMARY KEY (booking_id, rph),
    UNIQUE (booking_id, position)
);

CREATE TABLE hotel_booking_service (
    booking_id     BIGINT NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    rph            BIGINT NOT NULL,
    position       BIGINT NOT NULL,
    inventory_code TEXT NOT NULL,
    PRIMARY KEY (booking_id, rph),
    UNIQUE (booking_id, position)
);

CREATE TABLE hotel_booking_service_guest (
    booking_id  BIGINT NOT NULL,
    service_rph BIGINT NOT NULL,
    position    BIGINT NOT NULL,
    guest_rph   BIGINT NOT NULL,
    PRIMARY KEY (booking_id, service_rph, position),
    FOREIGN KEY (booking_id, service_rph) REFERENCES hotel_booking_service (booking_id, rph) ON DELETE CASCADE,
    FOREIGN KEY (booking_id, guest_rph) REFERENCES hotel_booking_guest (booking_id, rph) ON DELETE CASCADE
);

CREATE TABLE hotel_booking_transfer_end (
    booking_id        BIGINT NOT NULL,
    service_rph       BIGINT NOT NULL,
    leg_position      BIGINT NOT NULL,
    end_kind          TEXT NOT NULL CHECK (end_kind IN ('origin', 'destination')),
    kind              TEXT NOT NULL CHECK (kind IN ('hotel', 'transport')),
    hotel_code        TEXT,
    departure_at      TIMESTAMP,
    arrival_at        TIMESTAMP,
    departure_airport TEXT,
    arrival_airport   TEXT,
    flight_number     TEXT,
    PRIMARY KEY (booking_id, service_rph, leg_position, end_kind),
    FOREIGN KEY (booking_id, service_rph) REFERENCES hotel_booking_service (booking_id, rph) ON DELETE CASCADE,
    CHECK ((kind = 'hotel') = (hotel_code IS NOT NULL))
);

CREATE TABLE hotel_booking_room (
    booking_id     BIGINT NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    position       BIGINT NOT NULL,
    index_number   BIGINT,
    status         TEXT,
    hotel_code     TEXT NOT NULL REFERENCES hotel (code),
    room_type_code TEXT NOT NULL,
    board_code     TEXT NOT NULL REFERENCES hotel_board (code),
    start_date     DATE NOT NULL,
    end_date       DATE NOT NULL,
    total          NUMERIC NOT NULL,
    reference_id   TEXT,
    reference_type TEXT,
    PRIMARY KEY (booking_id, position),
    CHECK (start_date < end_date)
);

CREATE TABLE hotel_booking_room_guest (
    booking_id    BIGINT NOT NULL,
    room_position BIGINT NOT NULL,
    position      BIGINT NOT NULL,
    guest_rph     BIGINT NOT NULL,
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE,
    FOREIGN KEY (booking_id, guest_rph) REFERENCES hotel_booking_guest (booking_id, rph) ON DELETE CASCADE
);

CREATE TABLE hotel_booking_room_service (
    booking_id    BIGINT NOT NULL,
    room_position BIGINT NOT NULL,
    position      BIGINT NOT NULL,
    service_rph   BIGINT NOT NULL,
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE,
    FOREIGN KEY (booking_id, service_rph) REFERENCES hotel_booking_service (booking_id, rph) ON DELETE CASCADE
);

CREATE TABLE hotel_booking_room_source (
    booking_id         BIGINT NOT NULL,
    room_position      BIGINT NOT NULL,
    position           BIGINT NOT NULL,
    type               TEXT NOT NULL,
    id                 TEXT NOT NULL,
    id_context         TEXT,
    instance           TEXT,
    company_name       TEXT,
    company_short_name TEXT,
    company_code       TEXT,
    PRIMARY KEY (booking_id, room_position, position),
    FOREIGN KEY (booking_id, room_position) REFERENCES hotel_booking_room (booking_id, position) ON DELETE CASCADE
);

CREATE TABLE hotel_booking_comment (
    booking_id BIGINT NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    position   BIGINT NOT NULL,
    name       TEXT,
    originator TEXT,
    PRIMARY KEY (booking_id, position)
);

CREATE TABLE hotel_booking_comment_text (
    booking_id       BIGINT NOT NULL,
    comment_position BIGINT NOT NULL,
    position         BIGINT NOT NULL,
    language         TEXT,
    text             TEXT NOT NULL,
    PRIMARY KEY (booking_id, comment_position, position),
    FOREIGN KEY (booking_id, comment_position) REFERENCES hotel_booking_comment (booking_id, position) ON DELETE CASCADE
);

CREATE TABLE hotel_booking_reference (
    booking_id     BIGINT NOT NULL REFERENCES hotel_booking (id) ON DELETE CASCADE,
    position       BIGINT NOT NULL,
    res_id_type    TEXT NOT NULL,
    source_context TEXT NOT NULL CHECK (source_context IN ('Client', 'Internal')),
    value          TEXT NOT NULL,
    item_rph       BIGINT,
    PRIMARY KEY (booking_id, position)
);
