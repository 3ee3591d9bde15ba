-- Activities: filled in by the activities work (see src/ops/activities).
SELECT 1;
