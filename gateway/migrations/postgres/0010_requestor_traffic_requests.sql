-- Every admitted request per requestor and UTC day: what the daily quotas count (see SQLite's 0013).
ALTER TABLE requestor_traffic ADD COLUMN requests BIGINT NOT NULL DEFAULT 0;
