-- Suppliers: the same as SQLite's 0015 (whose comments describe them).
ALTER TABLE requestor ADD COLUMN kind TEXT NOT NULL DEFAULT 'distributor' CHECK (kind IN ('distributor', 'supplier'));

CREATE TABLE supplier_hotel (
    hotel_code   TEXT PRIMARY KEY CHECK (length(hotel_code) BETWEEN 1 AND 32),
    requestor_id TEXT NOT NULL REFERENCES requestor (id) ON DELETE CASCADE
);
CREATE INDEX supplier_hotel_by_requestor ON supplier_hotel (requestor_id);
