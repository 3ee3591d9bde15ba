-- A requestor's traffic limits (see gateway/README.md, "Per-partner limits"): requests per second
-- and requests per UTC day, each enforced by every gateway on its own; NULL: no limit. Set by
-- import (`rate`, `daily_quota`) and by `ota-gateway requestor set --rate / --daily-quota`.
ALTER TABLE requestor ADD COLUMN rate_per_second INTEGER CHECK (rate_per_second IS NULL OR rate_per_second > 0);
ALTER TABLE requestor ADD COLUMN daily_quota INTEGER CHECK (daily_quota IS NULL OR daily_quota > 0);
