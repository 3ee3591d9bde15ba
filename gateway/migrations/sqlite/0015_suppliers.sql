-- Suppliers (the supply side, see gateway/README.md "Suppliers"): a requestor is a distribution
-- partner (`distributor`, every requestor so far) or a hotel's system (`supplier`), which calls
-- only the supply operations and only for the hotels it owns. A hotel has at most one supplier
-- (two systems pushing the same hotel's inventory would overwrite each other); the code need not
-- be a hotel of the content yet (a supplier is often set up before its hotels are imported).
ALTER TABLE requestor ADD COLUMN kind TEXT NOT NULL DEFAULT 'distributor' CHECK (kind IN ('distributor', 'supplier'));

CREATE TABLE supplier_hotel (
    hotel_code   TEXT PRIMARY KEY CHECK (length(hotel_code) BETWEEN 1 AND 32),
    requestor_id TEXT NOT NULL REFERENCES requestor (id) ON DELETE CASCADE
);
CREATE INDEX supplier_hotel_by_requestor ON supplier_hotel (requestor_id);
