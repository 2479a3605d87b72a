import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { MAX_BUFFER_RUNS } from '../contract/vocabulary.js';
import type { BufferTarget } from '../coverage/buffer-target.js';
import { bufferTargetColumns } from '../coverage/buffer-target.js';
import { coverageSchedulesTable, type OwnerSchedule } from '../db/coverage-schedules-table.js';
import type { BackendStore } from '../db/dialect.js';
import type { StoreSchema } from '../db/store-schema.js';
import type { SourceShape } from './detect-generation.js';
import { UNATTRIBUTED } from './map-reviews.js';
import { flag, parseJson, text, utcColumn } from './source-values.js';
import type { SourceRow } from './source-db.js';
import type { KeyedRow, KeyedTable } from './write-keyed.js';

const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const object = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/**
 * A combination member as the original's console wrote it, in our `StoredCombination`
 * form: a gg member (one that names a configuration) has harness `gg` and no model, as
 * `checkCombinations` stores it.
 */
export function storedCombination(member: unknown): { harness: string; model: string; provider: string | null; ggConfigId: string | null; ggSlotModels: Record<string, string> } {
  const m = object(member);
  const ggConfigId = text(m.ggConfigId);
  const slots = object(m.ggSlotModels);
  return {
    harness: text(m.harness) ?? (ggConfigId ? 'gg' : ''),
    model: ggConfigId ? '' : (text(m.model) ?? ''),
    provider: text(m.provider),
    ggConfigId,
    ggSlotModels: Object.fromEntries(Object.entries(slots).map(([k, v]) => [k, String(v)])),
  };
}

/** A pinned case: `{ slug, version, variant, engine? }`, no other key (our contract's `PinnedCase`). */
export function pinnedCase(member: unknown): { slug: string; version: string; variant: string; engine?: string | null } {
  const m = object(member);
  const engine = m.engine === undefined ? {} : { engine: text(m.engine) };
  return { slug: text(m.slug) ?? '', version: text(m.version) ?? '', variant: text(m.variant) ?? '', ...engine };
}

const json = (value: unknown) => JSON.stringify(value);

/** `coverage_group` → `coverage_groups` (§2.2.9), keyed by the kept id; members into `combos` or `cases` by kind. */
export function coverageGroupsTable(): KeyedTable {
  return {
    source: 'coverage_group',
    sourceKey: ['id'],
    target: 'coverage_groups',
    targetKey: 'id',
    digest: ['id', 'account_id', 'name', 'kind', 'combos', 'cases', 'created_at', 'updated_at'],
    verbatim: [],
    map(row) {
      const id = text(row.id)!;
      const kind = text(row.kind);
      if (kind !== 'combo' && kind !== 'case') return { id, refused: `kind ${JSON.stringify(kind)} is neither combo nor case` };
      const members = parseJson(row.members_json);
      if (!Array.isArray(members)) return { id, refused: 'members_json is not a JSON array' };
      const at = utcColumn(row.updated_at);
      return {
        id,
        values: {
          id, account_id: text(row.user_id) ?? UNATTRIBUTED, name: text(row.name) ?? '', kind,
          combos: json(kind === 'combo' ? members.map(storedCombination) : []), cases: json(kind === 'case' ? members.map(pinnedCase) : []),
          created_at: at, updated_at: at,
        },
      };
    },
  };
}

/** The schedule columns a plan's or a ladder's row carries for its `coverage_schedules` row. */
export const SCHEDULE_DIGEST = ['outer_axis', 'paused', 'auto_top_up', 'buffer_kind', 'buffer_runs'] as const;

/** A schedule owner's `coverage_schedules` row, written through `coverageSchedulesTable.put` in the owner's transaction. */
export function scheduleCompanion(store: BackendStore, kind: 'plan' | 'ladder'): NonNullable<KeyedTable['companion']> {
  const schedules = coverageSchedulesTable(store);
  return {
    columns: SCHEDULE_DIGEST,
    async write(trx, id, values) {
      const schedule: OwnerSchedule = {
        outerAxis: String(values.outer_axis),
        paused: values.paused === 1,
        autoTopUp: values.auto_top_up === 1,
        bufferTarget: values.buffer_kind === null ? null : values.buffer_kind === 'unbounded' ? { kind: 'unbounded' } : { kind: 'bounded', runs: Number(values.buffer_runs) },
      };
      await schedules.put(`${kind}:${id}`, String(values.account_id), schedule, trx);
    },
    async read(db: Kysely<StoreSchema>, ids) {
      const rows = await db.selectFrom('coverage_schedules').select(['owner', ...SCHEDULE_DIGEST]).where('owner', 'in', ids.map((id) => `${kind}:${id}`)).execute();
      return new Map(rows.map((row) => [row.owner.slice(kind.length + 1), row as Record<string, unknown>]));
    },
  };
}

/**
 * The original's buffer number (`buffer_target`, from #55 `in_flight_limit`): NULL inherits,
 * negative is unbounded, n is bounded; above our most (500) it is 500, noted.
 */
export function bufferOf(value: unknown, what: string, notes: string[]): BufferTarget | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  if (n < 0) return { kind: 'unbounded' };
  if (n > MAX_BUFFER_RUNS) {
    notes.push(`${what}: buffer ${n} is above our most, imported as ${MAX_BUFFER_RUNS}`);
    return { kind: 'bounded', runs: MAX_BUFFER_RUNS };
  }
  return { kind: 'bounded', runs: n };
}

/** `runs_per_cell` into our 1..100, noted when it moves. */
function runsPerCell(value: unknown, what: string, notes: string[]): number {
  const n = Number(value);
  const kept = Math.min(100, Math.max(1, Number.isFinite(n) ? Math.trunc(n) : 1));
  if (kept !== n) notes.push(`${what}: runs_per_cell ${String(value)} is outside 1..100, imported as ${kept}`);
  return kept;
}

const scheduleValues = (schedule: { outerAxis: string; paused: boolean; autoTopUp: boolean; bufferTarget: BufferTarget | null }) => {
  const { bufferKind, bufferRuns } = bufferTargetColumns(schedule.bufferTarget);
  return { outer_axis: schedule.outerAxis, paused: schedule.paused ? 1 : 0, auto_top_up: schedule.autoTopUp ? 1 : 0, buffer_kind: bufferKind, buffer_runs: bufferRuns };
};

/** `--keep-schedules`: what ran in the original runs here too; without it every owner is imported paused. */
export interface ImportedSchedules {
  keep: boolean;
}

/** The note for a plan or ladder that was `doing` something in the original, saying what it is here. */
export const runningNote = (what: string, doing: string, schedules: ImportedSchedules) =>
  schedules.keep ? `${what}: ${doing} in the original, kept running (--keep-schedules)` : `${what}: ${doing} in the original, imported paused (resume it here when ready)`;

const PLAN_DIGEST = ['id', 'account_id', 'name', 'runs_per_cell', 'combo_group_ids', 'case_group_ids', 'combos', 'cases', 'created_at', 'updated_at', ...SCHEDULE_DIGEST];

/**
 * `coverage_plan` → `coverage_plans` + its `coverage_schedules` row `plan:<id>` (§2.2.10), one
 * transaction a page. Imported plans start no work: paused (the original's own pause, or from
 * #55 not filling, is noted). From #55 the original's number limits jobs in flight; ours
 * counts in flight plus unreviewed runs: copied, the drift noted.
 */
export function coveragePlansTable(store: BackendStore, shape: SourceShape, schedules: ImportedSchedules): KeyedTable {
  const dispatchEra = shape.has('coverage_plan', 'in_flight_limit');
  return {
    source: 'coverage_plan',
    sourceKey: ['id'],
    target: 'coverage_plans',
    targetKey: 'id',
    digest: PLAN_DIGEST,
    verbatim: [],
    companion: scheduleCompanion(store, 'plan'),
    map(row): KeyedRow {
      const id = text(row.id)!;
      const notes: string[] = [];
      const what = `coverage_plan ${id}`;
      const axis = text(row.outer_axis) ?? 'case';
      if (axis !== 'case' && axis !== 'combination') return { id, refused: `outer_axis ${JSON.stringify(axis)} is neither case nor combination` };
      const wasRunning = dispatchEra ? text(row.fill_id) !== null : row.paused !== undefined && !flag(row.paused);
      if (wasRunning) notes.push(runningNote(what, dispatchEra ? 'filling' : 'running', schedules));
      const buffer = bufferOf(dispatchEra ? row.in_flight_limit : row.buffer_target, what, notes);
      if (dispatchEra && buffer !== null) notes.push(`${what}: its in-flight limit is copied as our buffer target, which counts unreviewed runs too`);
      const at = utcColumn(row.updated_at);
      const runs = runsPerCell(row.runs_per_cell, what, notes);
      return {
        id,
        ...(notes.length ? { note: notes.join('; ') } : {}),
        values: {
          id, account_id: text(row.user_id) ?? UNATTRIBUTED, name: text(row.name) ?? '', runs_per_cell: runs,
          combo_group_ids: json(array(parseJson(row.combo_group_ids_json)).map(String)), case_group_ids: json(array(parseJson(row.case_group_ids_json)).map(String)),
          combos: json(array(parseJson(row.combos_json)).map(storedCombination)), cases: json(array(parseJson(row.cases_json)).map(pinnedCase)),
          created_at: at, updated_at: at,
          // A filling plan (#55) is fed by every finished run, as auto top-up is here.
          ...scheduleValues({ outerAxis: axis, paused: !(schedules.keep && wasRunning), autoTopUp: dispatchEra ? true : row.auto_top_up === undefined ? false : flag(row.auto_top_up), bufferTarget: buffer }),
        },
      };
    },
  };
}

/** The plan id a legacy `review_plan` becomes: a name-based UUID (version 5 layout, SHA-1) of `review_plan:<user_id>`, the same on every run. */
export function reviewPlanId(userId: string): string {
  const hash = createHash('sha1').update(`review_plan:${userId}`).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `review_plan` (one legacy plan per account) → one paused coverage plan named "Review plan",
 * as the original's boot copies one once (#15): a row it has copied (`migrated`) is skipped,
 * its copy being a `coverage_plan` row.
 */
export function reviewPlansTable(store: BackendStore): KeyedTable {
  return {
    source: 'review_plan',
    sourceKey: ['user_id'],
    target: 'coverage_plans',
    targetKey: 'id',
    digest: PLAN_DIGEST,
    verbatim: [],
    companion: scheduleCompanion(store, 'plan'),
    map(row: SourceRow): KeyedRow {
      const userId = text(row.user_id)!;
      if (row.migrated !== undefined && flag(row.migrated)) return { id: userId, skipped: 'already copied into a coverage plan by the original (migrated)' };
      const id = reviewPlanId(userId);
      const notes: string[] = [];
      const at = utcColumn(row.updated_at);
      const runs = runsPerCell(row.runs_per_cell, `review_plan ${userId}`, notes);
      return {
        id,
        values: {
          id, account_id: userId, name: 'Review plan', runs_per_cell: runs,
          combo_group_ids: '[]', case_group_ids: '[]',
          combos: json(array(parseJson(row.combinations_json)).map(storedCombination)), cases: json(array(parseJson(row.cases_json)).map(pinnedCase)),
          created_at: at, updated_at: at,
          ...scheduleValues({ outerAxis: 'case', paused: true, autoTopUp: false, bufferTarget: null }),
        },
        note: [`review_plan ${userId}: imported as coverage plan ${id} ("Review plan", paused)`, ...notes].join('; '),
      };
    },
  };
}
