-- Each activity's time zone (IANA, e.g. Europe/Madrid): its sessions are local times there, and
-- "now" is compared with them in that zone (a session that has begun is neither offered nor
-- booked; cancellation deadlines are local). Content imported before has UTC.
ALTER TABLE activity ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC' CHECK (length(time_zone) BETWEEN 1 AND 64);

-- Each hotel's time zone likewise: the dates of a stay and its check-in are local there, so
-- "today" (no arrival before it) and the cancellation deadlines are the hotel's.
ALTER TABLE hotel ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC' CHECK (length(time_zone) BETWEEN 1 AND 64);
