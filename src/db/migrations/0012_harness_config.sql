-- Per-harness parallelism caps (`PUT /harness-config/{slug}`). No row or NULL: uncapped.
-- Copied into Redis at boot, where the claim script enforces them.
CREATE TABLE harness_config (
  slug            TEXT PRIMARY KEY,
  max_parallelism INTEGER CHECK (max_parallelism IS NULL OR max_parallelism >= 1),
  updated_at      TEXT NOT NULL
) STRICT;
