-- Hotel users (the hotel extranet, see docs/hotels/extranet.md): an operator of role `hotel`
-- belongs to one supplier (a `supplier`-kind requestor) and sees only the extranet of that
-- supplier's hotels (`supplier_hotel`). The supplier is required for a hotel user and absent
-- for the others. SQLite cannot change a CHECK in place: the table is rebuilt (nothing refers to
-- it; its rows are copied as they are).
CREATE TABLE operator_new (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('admin', 'viewer', 'hotel')),
    password_hash TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,               -- UTC, YYYY-MM-DDThh:mm:ssZ
    supplier TEXT REFERENCES requestor (id),
    CHECK ((role = 'hotel') = (supplier IS NOT NULL))
);
INSERT INTO operator_new (name, role, password_hash, active, created_at)
    SELECT name, role, password_hash, active, created_at FROM operator;
DROP TABLE operator;
ALTER TABLE operator_new RENAME TO operator;
CREATE INDEX operator_by_supplier ON operator (supplier);
