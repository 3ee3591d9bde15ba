-- Every request of a requestor admitted within its limits, per UTC day, added up by every
-- gateway like the other counts of `requestor_traffic` (0012): what the daily quotas are checked
-- against (each gateway reads the day's totals back after adding its own, about once a minute
-- and when it starts; see gateway/README.md, "Per-partner limits").
ALTER TABLE requestor_traffic ADD COLUMN requests INTEGER NOT NULL DEFAULT 0;
