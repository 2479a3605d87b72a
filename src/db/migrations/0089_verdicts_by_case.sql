-- A recorded ladder verdict is keyed by rung, case and decided version, not engine: a reorder
-- or an engine re-pin keeps it, a re-pin to another case or version does not. The engine it
-- was decided on stays as history. Older verdicts take their rung's case; of two decided on
-- one version under two engines, the earlier stands.
CREATE TABLE ladder_verdicts_by_case (
  ladder_id        TEXT NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  climber_key      TEXT NOT NULL,
  rung_id          TEXT NOT NULL REFERENCES ladder_rungs (id) ON DELETE CASCADE,
  decided_slug     TEXT NOT NULL,
  decided_version  TEXT NOT NULL,
  decided_engine   TEXT NOT NULL,
  outcome          TEXT NOT NULL CHECK (outcome IN ('advanced', 'walled')),
  decided_at       TEXT NOT NULL,
  override_outcome TEXT CHECK (override_outcome IS NULL OR override_outcome IN ('advanced', 'walled')),
  override_at      TEXT,
  PRIMARY KEY (ladder_id, climber_key, rung_id, decided_slug, decided_version)
) STRICT;

INSERT OR IGNORE INTO ladder_verdicts_by_case
SELECT v.ladder_id, v.climber_key, v.rung_id, r.slug, v.decided_version, v.decided_engine, v.outcome, v.decided_at, v.override_outcome, v.override_at
FROM ladder_verdicts AS v JOIN ladder_rungs AS r ON r.id = v.rung_id
ORDER BY v.decided_at, v.decided_engine;

DROP TABLE ladder_verdicts;
ALTER TABLE ladder_verdicts_by_case RENAME TO ladder_verdicts;
CREATE INDEX ladder_verdicts_rung ON ladder_verdicts (rung_id);
