import type { LadderOutcome } from '../ladders/climber-standing.js';
import type { Database } from './open-database.js';

/**
 * A verdict stored for one climber on one rung, keyed by the case and version it was decided
 * on (as the original's `record_ladder_outcome` keys it by decided version): a reorder or an
 * engine re-pin keeps it, a re-pin to another case or version does not. The engine it was
 * decided on is kept as history.
 */
export interface StoredVerdict {
  climberKey: string;
  rungId: string;
  decidedSlug: string;
  decidedVersion: string;
  decidedEngine: string;
  outcome: LadderOutcome;
  decidedAt: string;
  overrideOutcome: LadderOutcome | null;
  overrideAt: string | null;
}

export interface NewVerdict {
  climberKey: string;
  rungId: string;
  decidedSlug: string;
  decidedVersion: string;
  decidedEngine: string;
  outcome: LadderOutcome;
}

/** What names one stored verdict. */
export type VerdictKey = Pick<NewVerdict, 'climberKey' | 'rungId' | 'decidedSlug' | 'decidedVersion'>;

/** Recorded gate verdicts and the manual overrides kept beside them. */
export function ladderVerdictsTable(db: Database) {
  const list = db.prepare<[string], StoredVerdict>(
    `SELECT climber_key AS climberKey, rung_id AS rungId, decided_slug AS decidedSlug, decided_version AS decidedVersion,
       decided_engine AS decidedEngine, outcome, decided_at AS decidedAt, override_outcome AS overrideOutcome, override_at AS overrideAt
     FROM ladder_verdicts WHERE ladder_id = ? ORDER BY decided_at, rung_id`,
  );
  // A verdict once recorded stands: a later top-up never rewrites it (an override is how a reviewer changes it).
  const insert = db.prepare(
    `INSERT INTO ladder_verdicts (ladder_id, climber_key, rung_id, decided_slug, decided_version, decided_engine, outcome, decided_at)
     VALUES (@ladderId, @climberKey, @rungId, @decidedSlug, @decidedVersion, @decidedEngine, @outcome, @now) ON CONFLICT DO NOTHING`,
  );
  const override = db.prepare(
    `UPDATE ladder_verdicts SET override_outcome = @overrideOutcome, override_at = @overrideAt
     WHERE ladder_id = @ladderId AND climber_key = @climberKey AND rung_id = @rungId AND decided_slug = @decidedSlug AND decided_version = @decidedVersion`,
  );
  const recordAll = db.transaction((ladderId: string, verdicts: NewVerdict[], now: string) => {
    let written = 0;
    for (const verdict of verdicts) written += insert.run({ ladderId, ...verdict, now }).changes;
    return written;
  });

  return {
    list: (ladderId: string): StoredVerdict[] => list.all(ladderId),
    /** Records live verdicts; one already stored for the same case and version is kept as it was. Answers how many were new. */
    record: (ladderId: string, verdicts: NewVerdict[]): number => (verdicts.length === 0 ? 0 : recordAll(ladderId, verdicts, new Date().toISOString())),
    /** Sets (or with null clears) the override of one stored verdict; false when there is none. */
    setOverride(ladderId: string, key: VerdictKey, outcome: LadderOutcome | null): boolean {
      const overrideAt = outcome === null ? null : new Date().toISOString();
      const { climberKey, rungId, decidedSlug, decidedVersion } = key;
      return override.run({ ladderId, climberKey, rungId, decidedSlug, decidedVersion, overrideOutcome: outcome, overrideAt }).changes > 0;
    },
  };
}

export type LadderVerdictsTable = ReturnType<typeof ladderVerdictsTable>;

/** Whether a stored verdict was decided on the rung's current pin (its case and version; the engine does not matter). */
export const decidedOnPin = (verdict: Pick<StoredVerdict, 'decidedSlug' | 'decidedVersion'>, rung: { slug: string; version: string }) =>
  verdict.decidedSlug === rung.slug && verdict.decidedVersion === rung.version;
