-- Default store of the run records drivers hand back with a terminal status, with the
-- normalized events they relayed. The runs area replaces it behind RunRecordSink.
CREATE TABLE job_records (
  id        TEXT PRIMARY KEY,
  job_id    TEXT NOT NULL,
  record    TEXT NOT NULL,
  -- JSON array of the relayed events, in relay order.
  events    TEXT NOT NULL,
  stored_at TEXT NOT NULL
) STRICT;

CREATE INDEX job_records_job ON job_records (job_id);
