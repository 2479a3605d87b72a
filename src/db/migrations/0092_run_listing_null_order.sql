-- The run listings order by a nullable timestamp or cost with NULLs where SQLite's indexes
-- keep them (smallest), so a page reads its index in order instead of sorting the filter.
-- SQLite's indexes already hold NULLs that way; only PostgreSQL's need rebuilding (see its
-- twin). Nothing to change here.
SELECT 1;
