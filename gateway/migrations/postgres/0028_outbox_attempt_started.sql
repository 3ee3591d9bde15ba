-- Each push attempt kept from its start (`sending`, completed with its outcome after) and the
-- notification sent kept with it: the same as SQLite's 0031 (whose comments describe it).
ALTER TABLE outbox_attempt DROP CONSTRAINT IF EXISTS outbox_attempt_outcome_check;
ALTER TABLE outbox_attempt ADD CONSTRAINT outbox_attempt_outcome_check
    CHECK (outcome IN ('sending', 'delivered', 'failed', 'parked', 'pulled', 'acknowledged'));
ALTER TABLE outbox_attempt ADD COLUMN body TEXT;
ALTER TABLE outbox_attempt ADD COLUMN body_bytes BIGINT;
ALTER TABLE outbox_attempt ADD COLUMN body_masked BOOLEAN NOT NULL DEFAULT false;
