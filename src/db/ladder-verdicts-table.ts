import type { LadderOutcome } from '../ladders/climber-standing.js';
import { writeTransaction, type BackendStore } from './dialect.js';

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

/** A statement stays well under both engines' bound-parameter limits (8 per verdict). */
const VERDICTS_PER_INSERT = 2_000;

/** Recorded gate verdicts and the manual overrides kept beside them. */
export function ladderVerdictsTable(store: BackendStore) {
  return {
    list: async (ladderId: string): Promise<StoredVerdict[]> =>
      (await store.db.selectFrom('ladder_verdicts')
        .select([
          'climber_key as climberKey', 'rung_id as rungId', 'decided_slug as decidedSlug', 'decided_version as decidedVersion',
          'decided_engine as decidedEngine', 'outcome', 'decided_at as decidedAt', 'override_outcome as overrideOutcome', 'override_at as overrideAt',
        ])
        .where('ladder_id', '=', ladderId).orderBy('decided_at').orderBy('rung_id').orderBy('climber_key').orderBy('decided_slug').orderBy('decided_version')
        .execute()) as StoredVerdict[],
    /** Records live verdicts; one already stored for the same case and version is kept as it was. Answers how many were new. */
    async record(ladderId: string, verdicts: NewVerdict[]): Promise<number> {
      if (verdicts.length === 0) return 0;
      const now = new Date().toISOString();
      const rows = verdicts.map((verdict) => ({
        ladder_id: ladderId, climber_key: verdict.climberKey, rung_id: verdict.rungId, decided_slug: verdict.decidedSlug,
        decided_version: verdict.decidedVersion, decided_engine: verdict.decidedEngine, outcome: verdict.outcome, decided_at: now,
      }));
      return writeTransaction(store, async (trx) => {
        let written = 0n;
        for (let at = 0; at < rows.length; at += VERDICTS_PER_INSERT) {
          // A verdict once recorded stands: a later top-up never rewrites it (an override is how a reviewer changes it).
          const result = await trx.insertInto('ladder_verdicts').values(rows.slice(at, at + VERDICTS_PER_INSERT))
            .onConflict((conflict) => conflict.doNothing()).executeTakeFirst();
          written += result.numInsertedOrUpdatedRows ?? 0n;
        }
        return Number(written);
      });
    },
    /** Sets (or with null clears) the override of one stored verdict; false when there is none. */
    async setOverride(ladderId: string, key: VerdictKey, outcome: LadderOutcome | null): Promise<boolean> {
      const result = await store.db.updateTable('ladder_verdicts')
        .set({ override_outcome: outcome, override_at: outcome === null ? null : new Date().toISOString() })
        .where('ladder_id', '=', ladderId).where('climber_key', '=', key.climberKey).where('rung_id', '=', key.rungId)
        .where('decided_slug', '=', key.decidedSlug).where('decided_version', '=', key.decidedVersion)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

export type LadderVerdictsTable = ReturnType<typeof ladderVerdictsTable>;

/** Whether a stored verdict was decided on the rung's current pin (its case and version; the engine does not matter). */
export const decidedOnPin = (verdict: Pick<StoredVerdict, 'decidedSlug' | 'decidedVersion'>, rung: { slug: string; version: string }) =>
  verdict.decidedSlug === rung.slug && verdict.decidedVersion === rung.version;
