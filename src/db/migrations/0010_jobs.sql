-- The durable record and index of every run job. Redis (BullMQ plus the run-queue
-- scripts) decides transitions; each decision is copied here by the process that made it,
-- and boot reconciles the two. `seq` is the enqueue order ("queue order").
CREATE TABLE jobs (
  seq               INTEGER PRIMARY KEY,
  id                TEXT NOT NULL UNIQUE,
  account_id        TEXT NOT NULL,
  -- 'plan:<id>', 'ladder:<id>', or NULL for a launch made directly.
  origin            TEXT,
  test_case_slug    TEXT NOT NULL,
  test_case_version TEXT NOT NULL,
  variant           TEXT NOT NULL,
  harness_slug      TEXT NOT NULL,
  model_id          TEXT NOT NULL,
  provider          TEXT,
  -- NULL: the `none` engine.
  engine            TEXT,
  test_type         TEXT NOT NULL,
  gg_config_id      TEXT,
  gg_preset         TEXT,
  -- The launch body handed to the driver at claim, as JSON.
  request           TEXT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('queued', 'pending', 'dispatched', 'starting', 'running', 'succeeded', 'failed', 'canceled')),
  -- sha256 (hex) of the per-job token minted at claim.
  token_hash        TEXT,
  record_id         TEXT,
  detail            TEXT,
  enqueued_at       TEXT NOT NULL,
  dispatched_at     TEXT,
  started_at        TEXT,
  finished_at       TEXT
) STRICT;

CREATE INDEX jobs_in_flight ON jobs (state, seq) WHERE state IN ('queued', 'pending', 'dispatched', 'starting', 'running');
CREATE INDEX jobs_origin ON jobs (origin) WHERE origin IS NOT NULL;
