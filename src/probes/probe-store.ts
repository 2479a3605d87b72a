import type { Kysely, Selectable } from 'kysely';
import { writeTransaction, type BackendStore } from '../db/dialect.js';
import type { ModelProbeItemsTable, ModelProbesTable, StoreSchema } from '../db/store-schema.js';
import type { Classification } from './classify-reply.js';
import type { ChatMessage } from './probe-conversations.js';

export interface ProbeRequest {
  language: string;
  scenario: string;
  prompt: string;
  messages: ChatMessage[];
}

/** A probe as the wire shows it (open-points, "Model probes"), with its progress counts. */
export interface Probe {
  id: string;
  modelSlug: string;
  openrouterSlug: string;
  provider: string | null;
  language: string | null;
  samples: number;
  maxTokens: number;
  status: 'running' | 'complete' | 'failed';
  error: string | null;
  verdict: 'ready' | 'not-ready' | null;
  passRate: number | null;
  spend: number;
  /** Calls planned (cases x samples), landed so far, passed, and voided by an error. */
  callCount: number;
  itemCount: number;
  passCount: number;
  errorCount: number;
  createdAt: string;
  finishedAt: string | null;
}

export interface ProbeItem extends Omit<Classification, 'label'> {
  id: number;
  language: string;
  scenario: string;
  prompt: string;
  sample: number;
  label: string | null;
  durationMs: number;
  createdAt: string;
}

export type NewProbeItem = Omit<ProbeItem, 'id' | 'createdAt'>;

const PROBE_COLUMNS = [
  'id', 'model_slug', 'openrouter_slug', 'provider', 'language', 'samples', 'max_tokens', 'status', 'error', 'verdict', 'pass_rate',
  'spend', 'call_count', 'item_count', 'pass_count', 'error_count', 'created_at', 'finished_at',
] as const;

type ProbeRow = Pick<Selectable<ModelProbesTable>, (typeof PROBE_COLUMNS)[number]>;

const fromRow = (row: ProbeRow): Probe => ({
  id: row.id,
  modelSlug: row.model_slug,
  openrouterSlug: row.openrouter_slug,
  provider: row.provider,
  language: row.language,
  samples: row.samples,
  maxTokens: row.max_tokens,
  status: row.status as Probe['status'],
  error: row.error,
  verdict: row.verdict as Probe['verdict'],
  passRate: row.pass_rate,
  // Summed in floating point as items land; rounded to a nano-dollar so 0.08 reads 0.08.
  spend: Math.round(row.spend * 1e9) / 1e9,
  callCount: row.call_count,
  itemCount: row.item_count,
  passCount: row.pass_count,
  errorCount: row.error_count,
  createdAt: row.created_at,
  finishedAt: row.finished_at,
});

type ItemRow = Selectable<ModelProbeItemsTable>;

const itemFromRow = (row: ItemRow): ProbeItem => ({
  id: row.id,
  language: row.language,
  scenario: row.scenario,
  prompt: row.prompt,
  sample: row.sample,
  provider: row.provider,
  finishReason: row.finish_reason,
  nativeFinishReason: row.native_finish_reason,
  label: row.label,
  pass: row.pass === 1,
  programText: row.program_text,
  responseText: row.response_text,
  reasoningText: row.reasoning_text,
  promptTokens: row.prompt_tokens,
  completionTokens: row.completion_tokens,
  cost: row.cost,
  durationMs: row.duration_ms,
  error: row.error,
  createdAt: row.created_at,
});

type ProbeEnd = { status: 'complete' | 'failed'; error: string | null; verdict: Probe['verdict']; passRate: number | null };

const endRunning = (db: Kysely<StoreSchema>, end: ProbeEnd, finishedAt: string) =>
  db.updateTable('model_probes')
    .set({ status: end.status, error: end.error, verdict: end.verdict, pass_rate: end.passRate, finished_at: finishedAt })
    .where('status', '=', 'running');

/** The `model_probes` and `model_probe_items` tables. */
export function probeStore(store: BackendStore) {
  const { db } = store;
  const probes = () => db.selectFrom('model_probes').select(PROBE_COLUMNS);

  return {
    /** Inserts a running probe; false when the model already has one running. */
    async create(probe: Pick<Probe, 'id' | 'modelSlug' | 'openrouterSlug' | 'provider' | 'language' | 'samples' | 'maxTokens' | 'callCount' | 'createdAt'>, requests: ProbeRequest[]): Promise<boolean> {
      // The one conflict a new id can meet is the model's running probe (model_probes_one_running).
      const inserted = await db.insertInto('model_probes').values({
        id: probe.id, model_slug: probe.modelSlug, openrouter_slug: probe.openrouterSlug, provider: probe.provider, language: probe.language,
        samples: probe.samples, max_tokens: probe.maxTokens, status: 'running', call_count: probe.callCount, requests: JSON.stringify(requests),
        created_at: probe.createdAt,
      }).onConflict((oc) => oc.doNothing()).executeTakeFirst();
      return inserted.numInsertedOrUpdatedRows !== 0n;
    },
    async get(id: string): Promise<Probe | null> {
      const row = await probes().where('id', '=', id).executeTakeFirst();
      return row ? fromRow(row) : null;
    },
    async running(modelSlug: string): Promise<Probe | null> {
      const row = await probes().where('model_slug', '=', modelSlug).where('status', '=', 'running').executeTakeFirst();
      return row ? fromRow(row) : null;
    },
    /** Newest first; probes started in the same millisecond by id, so the order is the same on every read. */
    async ofModel(modelSlug: string): Promise<Probe[]> {
      return (await probes().where('model_slug', '=', modelSlug).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()).map(fromRow);
    },
    async requests(id: string): Promise<ProbeRequest[]> {
      const row = await db.selectFrom('model_probes').select('requests').where('id', '=', id).executeTakeFirst();
      return JSON.parse(row?.requests ?? '[]') as ProbeRequest[];
    },
    async items(id: string): Promise<ProbeItem[]> {
      return (await db.selectFrom('model_probe_items').selectAll().where('probe_id', '=', id).orderBy('id').execute()).map(itemFromRow);
    },
    async verdictItems(id: string) {
      const rows = await db.selectFrom('model_probe_items').select(['language', 'scenario', 'label', 'pass']).where('probe_id', '=', id).execute();
      return rows.map((row) => ({ ...row, pass: row.pass === 1 }));
    },
    async firstError(id: string): Promise<string | null> {
      const row = await db.selectFrom('model_probe_items').select('error')
        .where('probe_id', '=', id).where('error', 'is not', null).orderBy('id').limit(1).executeTakeFirst();
      return row?.error ?? null;
    },

    /**
     * Stores one landed call and moves the probe's counts with it; false when the probe is no
     * longer running (a restart failed it), which then takes no item. The count moves first:
     * on PostgreSQL its row lock holds a concurrent `finish` until the item is in.
     */
    async addItem(probeId: string, item: NewProbeItem): Promise<boolean> {
      const pass = item.pass ? 1 : 0;
      return writeTransaction(store, async (trx) => {
        const counted = await trx.updateTable('model_probes')
          .set((eb) => ({
            item_count: eb('item_count', '+', 1),
            pass_count: eb('pass_count', '+', pass),
            error_count: eb('error_count', '+', item.error === null ? 0 : 1),
            spend: eb('spend', '+', item.cost ?? 0),
          }))
          .where('id', '=', probeId).where('status', '=', 'running')
          .executeTakeFirst();
        if (counted.numUpdatedRows === 0n) return false;
        await trx.insertInto('model_probe_items').values({
          probe_id: probeId, language: item.language, scenario: item.scenario, prompt: item.prompt, sample: item.sample, provider: item.provider,
          finish_reason: item.finishReason, native_finish_reason: item.nativeFinishReason, label: item.label, pass,
          program_text: item.programText, response_text: item.responseText, reasoning_text: item.reasoningText, prompt_tokens: item.promptTokens,
          completion_tokens: item.completionTokens, cost: item.cost, duration_ms: item.durationMs, error: item.error, created_at: new Date().toISOString(),
        }).execute();
        return true;
      });
    },

    /** Ends a running probe; false when it had already ended (a restart failed it meanwhile). */
    async finish(id: string, end: ProbeEnd): Promise<boolean> {
      const ended = await endRunning(db, end, new Date().toISOString()).where('id', '=', id).executeTakeFirst();
      return ended.numUpdatedRows > 0n;
    },

    /** Records the process that runs a probe (see probe-runner.ts); false when the probe is no longer running. */
    async takeRunner(id: string, runner: string): Promise<boolean> {
      const taken = await db.updateTable('model_probes').set({ runner }).where('id', '=', id).where('status', '=', 'running').executeTakeFirst();
      return taken.numUpdatedRows > 0n;
    },

    /**
     * Fails the running probes whose runner `gone` says stopped; answers their ids. A probe
     * still queued (no runner yet), or run by a live process, is left alone.
     */
    async failOrphaned(error: string, gone: (runner: string) => boolean): Promise<string[]> {
      return writeTransaction(store, async (trx) => {
        const rows = await trx.selectFrom('model_probes').select(['id', 'runner']).where('status', '=', 'running').where('runner', 'is not', null).execute();
        const orphaned = rows.filter((row) => gone(row.runner!)).map((row) => row.id);
        if (orphaned.length === 0) return [];
        const failed = await endRunning(trx, { status: 'failed', error, verdict: null, passRate: null }, new Date().toISOString())
          .where('id', 'in', orphaned).returning('id').execute();
        return failed.map((row) => row.id);
      });
    },
  };
}

export type ProbeStore = ReturnType<typeof probeStore>;
