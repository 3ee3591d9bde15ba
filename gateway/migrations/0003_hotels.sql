-- Hotels and hotel bookings: filled in by the hotels work (see src/ops/hotels).
SELECT 1;
