-- The requestors have a version of their own: a requestor change (`ota-gateway requestor …`)
-- moves it on, and every gateway then reloads its requestors only, not the whole content.
ALTER TABLE content_version ADD COLUMN requestors_version INTEGER NOT NULL DEFAULT 1;
