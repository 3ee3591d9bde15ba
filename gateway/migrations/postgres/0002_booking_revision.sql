-- Every write of a hotel booking gives it a new revision, never given before (see SQLite's
-- 0005): here from a sequence, so that writers on many gateways never wait for each other.
CREATE SEQUENCE hotel_booking_revision;
ALTER TABLE hotel_booking ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
UPDATE hotel_booking SET revision = nextval('hotel_booking_revision');
