import type { Kysely } from 'kysely';
import { RATINGS } from '../contract/vocabulary.js';
import { resolveCombination, type StoredCombination } from '../coverage/combinations.js';
import { writeTransaction, type BackendStore } from '../db/dialect.js';
import type { GgConfig } from '../db/gg-configs-table.js';
import type { StoreSchema } from '../db/store-schema.js';
import type { SourceShape } from './detect-generation.js';
import type { TableLedger } from './ledger.js';
import { bufferOf, runningNote, scheduleCompanion, storedCombination, type ImportedSchedules } from './map-coverage.js';
import { UNATTRIBUTED } from './map-reviews.js';
import { flag, parseJson, placeholders, text, utcColumn } from './source-values.js';
import type { SourceDb } from './source-db.js';
import type { KeyedRow, KeyedTable } from './write-keyed.js';

const array = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const json = (value: unknown) => JSON.stringify(value);

/**
 * `ladder` → `ladders` + its schedule `ladder:<id>` (§2.2.11), keyed by the kept id, in one
 * transaction a page. Imported ladders start no work: paused, what they were doing noted.
 */
export function laddersTable(source: SourceDb, store: BackendStore, shape: SourceShape, schedules: ImportedSchedules): KeyedTable {
  const dispatchEra = shape.has('ladder', 'in_flight_limit');
  return {
    source: 'ladder',
    sourceKey: ['id'],
    target: 'ladders',
    targetKey: 'id',
    digest: ['id', 'account_id', 'name', 'runs_per_cell', 'gate', 'combo_group_ids', 'combos', 'created_at', 'updated_at', 'outer_axis', 'paused', 'auto_top_up', 'buffer_kind', 'buffer_runs'],
    verbatim: [],
    companion: scheduleCompanion(store, 'ladder'),
    async map(row): Promise<KeyedRow> {
      const id = text(row.id)!;
      const what = `ladder ${id}`;
      const notes: string[] = [];
      const axis = text(row.outer_axis) ?? 'rung';
      if (axis !== 'rung' && axis !== 'combination') return { id, refused: `outer_axis ${JSON.stringify(axis)} is neither rung nor combination` };
      const floor = text(row.gate_floor) ?? 'scuffed';
      if (!(RATINGS as readonly string[]).includes(floor)) return { id, refused: `gate_floor ${JSON.stringify(floor)} is not a rating` };
      const kind = text(row.gate_threshold_kind) ?? 'count';
      const value = Number(row.gate_threshold_value ?? 1);
      if (kind !== 'count' && kind !== 'fraction') return { id, refused: `gate_threshold_kind ${JSON.stringify(kind)} is neither count nor fraction` };
      const gate = {
        floor,
        threshold: kind === 'count' ? { kind, runs: value } : { kind, fraction: value },
        unloadedCountsAsBroken: row.count_unloaded_as_broken === undefined ? true : flag(row.count_unloaded_as_broken),
        earlyStop: row.early_stop === undefined ? false : flag(row.early_stop),
      };
      let runs = Number(row.runs_per_cell ?? 1);
      if (runs === 0 || runs > 100) {
        const kept = runs === 0 ? 1 : 100;
        notes.push(`${what}: runs_per_cell ${runs} imported as ${kept}`);
        runs = kept;
      }
      const running = dispatchEra ? shape.has('ladder_dispatch') && (await dispatchRunning(id)) : row.paused !== undefined && !flag(row.paused);
      if (running) notes.push(runningNote(what, dispatchEra ? 'its dispatch was running' : 'running', schedules));
      const buffer = bufferOf(dispatchEra ? row.in_flight_limit : row.buffer_target, what, notes);
      const at = utcColumn(row.updated_at);
      return {
        id,
        ...(notes.length ? { note: notes.join('; ') } : {}),
        values: {
          id, account_id: text(row.user_id) ?? UNATTRIBUTED, name: text(row.name) ?? '', runs_per_cell: runs, gate: json(gate),
          combo_group_ids: json(array(parseJson(row.combo_group_ids_json)).map(String)), combos: json(array(parseJson(row.combos_json)).map(storedCombination)),
          created_at: at, updated_at: at,
          outer_axis: axis, paused: schedules.keep && running ? 0 : 1,
          // Before #54 the column; from then on a ladder is fed by every finished run.
          auto_top_up: row.auto_top_up === undefined ? 1 : flag(row.auto_top_up) ? 1 : 0,
          buffer_kind: buffer === null ? null : buffer.kind, buffer_runs: buffer?.kind === 'bounded' ? buffer.runs : null,
        },
      };
    },
  };
  async function dispatchRunning(id: string): Promise<boolean> {
    return (await source.all("SELECT 1 AS found FROM ladder_dispatch WHERE ladder_id = ? AND status = 'running'", [id])).length > 0;
  }
}

/** `ladder_rung` → `ladder_rungs`, ids kept (verdicts point at them); a rung of a ladder not imported is refused. */
export function ladderRungsTable(store: BackendStore): KeyedTable {
  return {
    source: 'ladder_rung',
    sourceKey: ['id'],
    target: 'ladder_rungs',
    targetKey: 'id',
    digest: ['id', 'ladder_id', 'position', 'slug', 'version', 'variant', 'engine', 'runs'],
    verbatim: [],
    async map(row) {
      const id = text(row.id)!;
      const ladderId = text(row.ladder_id)!;
      const ladder = await store.db.selectFrom('ladders').select('id').where('id', '=', ladderId).executeTakeFirst();
      if (!ladder) return { id, refused: `its ladder ${ladderId} is not in the store (never imported, or refused)` };
      const runs = row.runs_override === undefined || row.runs_override === null ? null : Number(row.runs_override);
      return {
        id,
        values: { id, ladder_id: ladderId, position: Number(row.position), slug: text(row.slug), version: text(row.version), variant: text(row.variant), engine: text(row.engine) ?? 'none', runs },
      };
    },
  };
}

/**
 * The original's climber key of a member (`harness|model|provider`, the last segment empty
 * when there is none; `gg:<configuration id>|<slot>=<model>,…`) beside ours
 * (`resolveCombination(...).key`). Keys are mapped through the ladder's members, never parsed,
 * except a harness key whose member left the ladder: ours is built from its own parts.
 */
export class ClimberKeys {
  private readonly map = new Map<string, Set<string>>();
  add(member: StoredCombination, configOf: (rowId: string) => GgConfig | null): void {
    const ours = resolveCombination(member, configOf).key;
    const original = member.ggConfigId === null
      ? `${member.harness}|${member.model}|${member.provider ?? ''}`
      : `gg:${member.ggConfigId}|${Object.entries(member.ggSlotModels).sort(([a], [b]) => a.localeCompare(b)).map(([slot, model]) => `${slot}=${model}`).join(',')}`;
    const set = this.map.get(original) ?? new Set<string>();
    set.add(ours);
    this.map.set(original, set);
  }

  ours(original: string): string[] {
    const mapped = this.map.get(original);
    if (mapped) return [...mapped];
    const parts = original.split('|');
    if (!original.startsWith('gg:') && parts.length === 3 && parts[0] && parts[1]) return [`h|${parts[0]}|${parts[1]}${parts[2] ? `|${parts[2]}` : ''}`];
    return [];
  }
}

/** The climber key map of each ladder: its one-off members, its groups' members, and (from #55) its dispatch's climbers. */
async function keysOf(source: SourceDb, store: BackendStore, shape: SourceShape, ladderId: string): Promise<ClimberKeys> {
  const keys = new ClimberKeys();
  const [ladder] = await source.all('SELECT * FROM ladder WHERE id = ?', [ladderId]);
  if (!ladder) return keys;
  const accountId = text(ladder.user_id) ?? UNATTRIBUTED;
  const configs = new Map((await store.db.selectFrom('gg_configs').select(['id', 'name', 'capability_set', 'slot_models']).where('account_id', '=', accountId).execute())
    .map((row) => [row.id, { id: row.id, name: row.name, capabilitySet: JSON.parse(row.capability_set) as Record<string, unknown>, slotModels: JSON.parse(row.slot_models) as Record<string, string> }]));
  const configOf = (rowId: string) => configs.get(rowId) ?? null;
  const members: unknown[] = [...array(parseJson(ladder.combos_json))];
  const groupIds = array(parseJson(ladder.combo_group_ids_json)).map(String);
  if (groupIds.length > 0 && shape.has('coverage_group')) {
    for (const group of await source.all(`SELECT members_json FROM coverage_group WHERE id IN ${placeholders(groupIds.length)}`, groupIds)) members.push(...array(parseJson(group.members_json)));
  }
  if (shape.has('ladder_dispatch_climber')) {
    for (const climber of await source.all('SELECT c.combo_json FROM ladder_dispatch_climber c JOIN ladder_dispatch d ON d.id = c.dispatch_id WHERE d.ladder_id = ?', [ladderId])) {
      members.push(parseJson(climber.combo_json));
    }
  }
  for (const member of members) keys.add(storedCombination(member), configOf);
  return keys;
}

const CLIMBER_DIGEST = ['ladder_id', 'key', 'priority', 'focused', 'held', 'updated_at'] as const;
const VERDICT_DIGEST = ['ladder_id', 'climber_key', 'rung_id', 'decided_slug', 'decided_version', 'decided_engine', 'outcome', 'decided_at', 'override_outcome', 'override_at'] as const;

type Mapped = { sourceId: string; at: string; values: Record<string, unknown>; key: string };

/**
 * Climbers' steering (`ladder_climber`, #29–#54) and verdicts (`ladder_outcome` before #55,
 * `ladder_dispatch_outcome` from it, the dispatch era translated) under our climber keys, one
 * transaction a ladder. A fan-out (one original key, two of ours) writes under both; a
 * collision (two original keys on one of ours) keeps the newest steering and the first
 * verdict (D5), each reported with both keys. A row already here is equal (imported) or a
 * conflict (refused, never overwritten).
 */
export async function importLadderStanding(deps: { source: SourceDb; shape: SourceShape; store: BackendStore; dryRun: boolean; ledger(table: string): TableLedger }): Promise<void> {
  const { source, shape, store } = deps;
  const climbers = shape.has('ladder_climber') ? deps.ledger('ladder_climber').digests(CLIMBER_DIGEST) : null;
  const outcomeTable = shape.has('ladder_outcome') ? 'ladder_outcome' : shape.has('ladder_dispatch_outcome') ? 'ladder_dispatch_outcome' : null;
  const verdicts = outcomeTable ? deps.ledger(outcomeTable).digests(VERDICT_DIGEST) : null;
  const imported = new Set((await store.db.selectFrom('ladders').select('id').execute()).map((row) => row.id));
  const ladderIds = (await source.all('SELECT id FROM ladder ORDER BY id')).map((row) => text(row.id)!);
  for (const ladderId of ladderIds) {
    const climberRows = climbers ? await source.all('SELECT * FROM ladder_climber WHERE ladder_id = ? ORDER BY combination_key', [ladderId]) : [];
    const outcomeRows = outcomeTable === 'ladder_outcome'
      ? await source.all('SELECT * FROM ladder_outcome WHERE ladder_id = ? ORDER BY decided_at, rung_id, combination_key', [ladderId])
      : outcomeTable === 'ladder_dispatch_outcome'
        ? await source.all('SELECT o.*, o.climber_key AS combination_key, d.ladder_id FROM ladder_dispatch_outcome o JOIN ladder_dispatch d ON d.id = o.dispatch_id WHERE d.ladder_id = ? ORDER BY o.decided_at, o.rung_id, o.climber_key', [ladderId])
        : [];
    if (climbers) climbers.read += climberRows.length;
    if (verdicts) verdicts.read += outcomeRows.length;
    if (!imported.has(ladderId) && !deps.dryRun) {
      climberRows.forEach((r) => climbers!.refuse(`its ladder ${ladderId} is not in the store (never imported, or refused)`, `${ladderId}/${text(r.combination_key)}`));
      outcomeRows.forEach((r) => verdicts!.refuse(`its ladder ${ladderId} is not in the store (never imported, or refused)`, `${ladderId}/${text(r.rung_id)}/${text(r.combination_key)}`));
      continue;
    }
    const keys = await keysOf(source, store, shape, ladderId);
    const rungs = new Map((await source.all('SELECT * FROM ladder_rung WHERE ladder_id = ?', [ladderId])).map((r) => [text(r.id)!, r]));

    // D5: of two original keys on one climber here, the newest steering stands.
    const steering = new Map<string, Mapped>();
    const resolved: Array<{ sourceId: string; keys: string[] }> = [];
    for (const row of climberRows) {
      const original = text(row.combination_key)!;
      const sourceId = `${ladderId}/${original}`;
      const ours = keys.ours(original);
      if (ours.length === 0) { climbers!.refuse('no member of the ladder resolves this climber key, and it has no harness|model|provider parts', sourceId); continue; }
      if (ours.length > 1) climbers!.notes.push(`climber ${sourceId}: fans out to ${ours.join(' and ')} here, steering written under both`);
      resolved.push({ sourceId, keys: ours });
      const at = utcColumn(row.updated_at) ?? '';
      const held = row.held !== undefined ? flag(row.held) : flag(row.paused);
      for (const key of ours) {
        const found = steering.get(key);
        if (found) {
          const newer = found.at >= at ? found.sourceId : sourceId;
          climbers!.notes.push(`D5: climbers ${found.sourceId} and ${sourceId} are both ${key} here; kept the newer, ${newer}`);
          if (found.at >= at) continue;
        }
        steering.set(key, { sourceId, at, key, values: { ladder_id: ladderId, key, priority: Number(row.priority ?? 0), focused: flag(row.focused) ? 1 : 0, held: held ? 1 : 0, updated_at: at } });
      }
    }
    const winners = new Set([...steering.values()].map((m) => m.sourceId));
    for (const { sourceId } of resolved) {
      if (winners.has(sourceId)) climbers!.imported += 1;
      else climbers!.skip('D5: another original key maps onto the same climber here, and its steering is newer', sourceId);
    }

    const decided = new Map<string, Mapped>();
    for (const row of outcomeRows) {
      const original = text(row.combination_key)!;
      const rungId = text(row.rung_id)!;
      const sourceId = `${ladderId}/${rungId}/${original}`;
      const rung = rungs.get(rungId);
      if (!rung) { verdicts!.refuse(`its rung ${rungId} is not a rung of the ladder`, sourceId); continue; }
      const outcome = mapOutcome(text(row.outcome));
      if (!outcome) { verdicts!.refuse(`outcome ${JSON.stringify(text(row.outcome))} is not a verdict of the original`, sourceId); continue; }
      const ours = keys.ours(original);
      if (ours.length === 0) { verdicts!.refuse('no member of the ladder resolves this climber key, and it has no harness|model|provider parts', sourceId); continue; }
      const version = text(row.decided_version) ?? text(rung.version)!;
      const at = utcColumn(row.decided_at) ?? '';
      const override = row.override_outcome === undefined || row.override_outcome === null ? null : mapOutcome(text(row.override_outcome));
      let kept = false;
      for (const key of ours) {
        const id = `${key}\u0000${rungId}\u0000${text(rung.slug)}\u0000${version}`;
        const found = decided.get(id);
        if (found) { verdicts!.notes.push(`D5: verdicts ${found.sourceId} and ${sourceId} are one verdict here; kept the first, ${found.sourceId}`); continue; }
        decided.set(id, {
          sourceId, at, key,
          values: {
            ladder_id: ladderId, climber_key: key, rung_id: rungId, decided_slug: text(rung.slug), decided_version: version, decided_engine: text(rung.engine) ?? 'none',
            outcome, decided_at: at, override_outcome: override, override_at: override ? utcColumn(row.override_at) : null,
          },
        });
        kept = true;
      }
      if (kept) verdicts!.imported += 1;
      else verdicts!.skip('D5: another original key maps onto the same verdict here, decided earlier', sourceId);
    }

    await writeStanding(deps, ladderId, climbers, [...steering.values()], verdicts, [...decided.values()]);
  }
}

const mapOutcome = (value: string | null) => (value === 'advanced' || value === 'passed' ? 'advanced' : value === 'walled' || value === 'failed' ? 'walled' : null);

async function writeStanding(
  deps: { store: BackendStore; dryRun: boolean },
  ladderId: string,
  climbers: TableLedger | null,
  steering: Mapped[],
  verdicts: TableLedger | null,
  decided: Mapped[],
): Promise<void> {
  const { store } = deps;
  const heldClimbers = new Map((await store.db.selectFrom('ladder_climbers').select(CLIMBER_DIGEST).where('ladder_id', '=', ladderId).execute()).map((r) => [r.key, r as Record<string, unknown>]));
  const verdictId = (r: Record<string, unknown>) => [r.climber_key, r.rung_id, r.decided_slug, r.decided_version].join('\u0000');
  const heldVerdicts = new Map((await store.db.selectFrom('ladder_verdicts').select(VERDICT_DIGEST).where('ladder_id', '=', ladderId).execute()).map((r) => [verdictId(r), r as Record<string, unknown>]));
  const same = (a: Record<string, unknown>, b: Record<string, unknown>, columns: readonly string[]) => columns.every((c) => String(a[c] ?? '\u0001') === String(b[c] ?? '\u0001'));
  const fresh = <T extends Mapped>(rows: T[], held: Map<string, Record<string, unknown>>, idOf: (m: T) => string, columns: readonly string[], ledger: TableLedger) =>
    rows.filter((m) => {
      const found = held.get(idOf(m));
      if (found && !same(found, m.values, columns)) {
        ledger.imported -= 1;
        ledger.refuse('conflict: the store already holds a different row under this key (never overwritten)', m.sourceId);
        return false;
      }
      ledger.mapped!.source.add(columns.map((c) => m.values[c]));
      return !found;
    });
  const newClimbers = climbers ? fresh(steering, heldClimbers, (m) => m.key, CLIMBER_DIGEST, climbers) : [];
  const newVerdicts = verdicts ? fresh(decided, heldVerdicts, (m) => verdictId(m.values), VERDICT_DIGEST, verdicts) : [];
  if (deps.dryRun) return;
  if (newClimbers.length + newVerdicts.length > 0) {
    await writeTransaction(store, async (trx: Kysely<StoreSchema>) => {
      for (const m of newClimbers) await trx.insertInto('ladder_climbers').values(m.values as never).execute();
      for (const m of newVerdicts) await trx.insertInto('ladder_verdicts').values(m.values as never).execute();
    });
    if (climbers) climbers.written += newClimbers.length;
    if (verdicts) verdicts.written += newVerdicts.length;
  }
  const keptClimbers = new Set(steering.map((m) => m.key));
  const keptVerdicts = new Set(decided.map((m) => verdictId(m.values)));
  if (climbers) {
    for (const row of await store.db.selectFrom('ladder_climbers').select(CLIMBER_DIGEST).where('ladder_id', '=', ladderId).execute()) {
      if (keptClimbers.has(row.key)) climbers.mapped!.target.add(CLIMBER_DIGEST.map((c) => row[c]));
    }
  }
  if (verdicts) {
    for (const row of await store.db.selectFrom('ladder_verdicts').select(VERDICT_DIGEST).where('ladder_id', '=', ladderId).execute()) {
      if (keptVerdicts.has(verdictId(row))) verdicts.mapped!.target.add(VERDICT_DIGEST.map((c) => row[c]));
    }
  }
}
