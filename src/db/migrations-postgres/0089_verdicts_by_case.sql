-- PostgreSQL twin of migrations/0089_verdicts_by_case.sql. Of two verdicts decided on one
-- version under two engines the earlier stands: DISTINCT ON keeps it, where SQLite relies on
-- INSERT OR IGNORE's insertion order.
CREATE TABLE ladder_verdicts_by_case (
  ladder_id        text COLLATE "C" NOT NULL REFERENCES ladders (id) ON DELETE CASCADE,
  climber_key      text COLLATE "C" NOT NULL,
  rung_id          text COLLATE "C" NOT NULL REFERENCES ladder_rungs (id) ON DELETE CASCADE,
  decided_slug     text COLLATE "C" NOT NULL,
  decided_version  text COLLATE "C" NOT NULL,
  decided_engine   text COLLATE "C" NOT NULL,
  outcome          text COLLATE "C" NOT NULL CHECK (outcome IN ('advanced', 'walled')),
  decided_at       text COLLATE "C" NOT NULL,
  override_outcome text COLLATE "C" CHECK (override_outcome IS NULL OR override_outcome IN ('advanced', 'walled')),
  override_at      text COLLATE "C",
  CONSTRAINT ladder_verdicts_by_case_pkey PRIMARY KEY (ladder_id, climber_key, rung_id, decided_slug, decided_version)
);

INSERT INTO ladder_verdicts_by_case
SELECT DISTINCT ON (v.ladder_id, v.climber_key, v.rung_id, r.slug, v.decided_version)
       v.ladder_id, v.climber_key, v.rung_id, r.slug, v.decided_version, v.decided_engine, v.outcome, v.decided_at, v.override_outcome, v.override_at
FROM ladder_verdicts AS v JOIN ladder_rungs AS r ON r.id = v.rung_id
ORDER BY v.ladder_id, v.climber_key, v.rung_id, r.slug, v.decided_version, v.decided_at, v.decided_engine;

DROP TABLE ladder_verdicts;
ALTER TABLE ladder_verdicts_by_case RENAME TO ladder_verdicts;
-- PostgreSQL keeps a renamed table's constraint names; give the key the name a new table would get.
ALTER TABLE ladder_verdicts RENAME CONSTRAINT ladder_verdicts_by_case_pkey TO ladder_verdicts_pkey;
CREATE INDEX ladder_verdicts_rung ON ladder_verdicts (rung_id);
