-- A requestor's rates per operation (see SQLite's 0014).
ALTER TABLE requestor ADD COLUMN rate_for TEXT NOT NULL DEFAULT '';
