-- Model readiness probes: append-only history, console-only, never part of the snapshot.
CREATE TABLE model_probes (
  id               TEXT PRIMARY KEY,
  model_slug       TEXT NOT NULL,
  openrouter_slug  TEXT NOT NULL,              -- the id every call named at the routing provider
  provider         TEXT,                       -- the pinned provider; null: the provider routed freely
  language         TEXT,                       -- one arm; null: every arm
  samples          INTEGER NOT NULL,
  max_tokens       INTEGER NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('running', 'complete', 'failed')),
  error            TEXT,
  verdict          TEXT CHECK (verdict IN ('ready', 'not-ready')),
  pass_rate        REAL,
  spend            REAL NOT NULL DEFAULT 0,    -- USD, the replies' usage.cost summed
  call_count       INTEGER NOT NULL,           -- calls planned: cases x samples
  item_count       INTEGER NOT NULL DEFAULT 0, -- calls landed so far
  pass_count       INTEGER NOT NULL DEFAULT 0,
  error_count      INTEGER NOT NULL DEFAULT 0,
  requests         TEXT NOT NULL,              -- JSON [{ language, scenario, prompt, messages }] as sent
  created_at       TEXT NOT NULL,
  finished_at      TEXT
) STRICT;

-- At most one running probe per model: the 409 rests on this, not on a read-then-write.
CREATE UNIQUE INDEX model_probes_one_running ON model_probes (model_slug) WHERE status = 'running';
CREATE INDEX model_probes_model ON model_probes (model_slug, created_at DESC);

CREATE TABLE model_probe_items (
  id                    INTEGER PRIMARY KEY,
  probe_id              TEXT NOT NULL REFERENCES model_probes (id) ON DELETE CASCADE,
  language              TEXT NOT NULL,
  scenario              TEXT NOT NULL,
  prompt                TEXT NOT NULL,
  sample                INTEGER NOT NULL,
  provider              TEXT,
  finish_reason         TEXT,
  native_finish_reason  TEXT,
  label                 TEXT,                 -- null: the call was void (error says why)
  pass                  INTEGER NOT NULL,
  program_text          TEXT,
  response_text         TEXT,
  reasoning_text        TEXT,
  prompt_tokens         INTEGER,
  completion_tokens     INTEGER,
  cost                  REAL,
  duration_ms           INTEGER NOT NULL,
  error                 TEXT,
  created_at            TEXT NOT NULL
) STRICT;

CREATE INDEX model_probe_items_probe ON model_probe_items (probe_id, id);
