-- Hotel users: the same as SQLite's 0023 (whose comments describe them).
ALTER TABLE operator DROP CONSTRAINT operator_role_check;
ALTER TABLE operator ADD CONSTRAINT operator_role_check CHECK (role IN ('admin', 'viewer', 'hotel'));
ALTER TABLE operator ADD COLUMN supplier TEXT REFERENCES requestor (id);
ALTER TABLE operator ADD CONSTRAINT operator_supplier_check CHECK ((role = 'hotel') = (supplier IS NOT NULL));
CREATE INDEX operator_by_supplier ON operator (supplier);
