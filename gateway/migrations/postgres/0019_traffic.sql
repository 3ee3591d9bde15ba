-- Traffic rollups (see SQLite's 0022) (issue #30; docs/operators/traffic.md): what every gateway answered, per
-- partner and operation, added up by every gateway in batches (each counts in memory and adds
-- its counts every --traffic-flush-interval). One row per step (60: a minute, 3600: an hour,
-- 86400: a UTC day) starting at `at` (Unix seconds), partner (a requestor id; '' for requests
-- whose requestor is not known: unauthenticated or refused before authentication) and
-- operation (its path without the slash). `success`, `warning`, `ota_errors`: the OTA answer's
-- outcome; `http_4xx` (429 left out), `http_5xx`, `http_429`: the HTTP status; `looks`
-- (searches and availability checks), `quotes`, `bookings`: look-to-book; l00..l24: the
-- latency histogram (upper bounds 1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300,
-- 500, 700, 1000, 1500, 2000, 3000, 5000, 10000, 30000 ms; l24 everything slower). Errors
-- by OTA Type and Code in traffic_errors. Kept: minutes 3 hours, hours 9 days, days 62 days.
CREATE TABLE traffic (
    step BIGINT NOT NULL,
    at BIGINT NOT NULL,
    partner TEXT NOT NULL,
    operation TEXT NOT NULL,
    requests BIGINT NOT NULL DEFAULT 0,
    success BIGINT NOT NULL DEFAULT 0,
    warning BIGINT NOT NULL DEFAULT 0,
    ota_errors BIGINT NOT NULL DEFAULT 0,
    http_4xx BIGINT NOT NULL DEFAULT 0,
    http_5xx BIGINT NOT NULL DEFAULT 0,
    http_429 BIGINT NOT NULL DEFAULT 0,
    looks BIGINT NOT NULL DEFAULT 0,
    quotes BIGINT NOT NULL DEFAULT 0,
    bookings BIGINT NOT NULL DEFAULT 0,
    l00 BIGINT NOT NULL DEFAULT 0,
    l01 BIGINT NOT NULL DEFAULT 0,
    l02 BIGINT NOT NULL DEFAULT 0,
    l03 BIGINT NOT NULL DEFAULT 0,
    l04 BIGINT NOT NULL DEFAULT 0,
    l05 BIGINT NOT NULL DEFAULT 0,
    l06 BIGINT NOT NULL DEFAULT 0,
    l07 BIGINT NOT NULL DEFAULT 0,
    l08 BIGINT NOT NULL DEFAULT 0,
    l09 BIGINT NOT NULL DEFAULT 0,
    l10 BIGINT NOT NULL DEFAULT 0,
    l11 BIGINT NOT NULL DEFAULT 0,
    l12 BIGINT NOT NULL DEFAULT 0,
    l13 BIGINT NOT NULL DEFAULT 0,
    l14 BIGINT NOT NULL DEFAULT 0,
    l15 BIGINT NOT NULL DEFAULT 0,
    l16 BIGINT NOT NULL DEFAULT 0,
    l17 BIGINT NOT NULL DEFAULT 0,
    l18 BIGINT NOT NULL DEFAULT 0,
    l19 BIGINT NOT NULL DEFAULT 0,
    l20 BIGINT NOT NULL DEFAULT 0,
    l21 BIGINT NOT NULL DEFAULT 0,
    l22 BIGINT NOT NULL DEFAULT 0,
    l23 BIGINT NOT NULL DEFAULT 0,
    l24 BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (step, at, partner, operation)
);
CREATE TABLE traffic_errors (
    step BIGINT NOT NULL,
    at BIGINT NOT NULL,
    partner TEXT NOT NULL,
    operation TEXT NOT NULL,
    error_type TEXT NOT NULL,
    error_code TEXT NOT NULL,
    n BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (step, at, partner, operation, error_type, error_code)
);
