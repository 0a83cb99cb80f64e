-- The lowest and highest reading a stored value summarises (issue 27): Health Auto Export sends
-- heart rate as Min, Avg and Max per point, and the day's min and max are those, not the
-- extremes of the averages. NULL for a single reading (every item stored before this file).
ALTER TABLE rm_health_records
  ADD COLUMN min double precision,
  ADD COLUMN max double precision;
