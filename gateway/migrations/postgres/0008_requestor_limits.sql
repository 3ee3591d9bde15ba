-- A requestor's traffic limits (see SQLite's 0011).
ALTER TABLE requestor ADD COLUMN rate_per_second BIGINT CHECK (rate_per_second IS NULL OR rate_per_second > 0);
ALTER TABLE requestor ADD COLUMN daily_quota BIGINT CHECK (daily_quota IS NULL OR daily_quota > 0);
