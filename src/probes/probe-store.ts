import type { Database } from '../db/open-database.js';
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

interface ProbeRow {
  id: string;
  model_slug: string;
  openrouter_slug: string;
  provider: string | null;
  language: string | null;
  samples: number;
  max_tokens: number;
  status: Probe['status'];
  error: string | null;
  verdict: Probe['verdict'];
  pass_rate: number | null;
  spend: number;
  call_count: number;
  item_count: number;
  pass_count: number;
  error_count: number;
  created_at: string;
  finished_at: string | null;
}

const PROBE_COLUMNS = `id, model_slug, openrouter_slug, provider, language, samples, max_tokens, status, error, verdict, pass_rate,
  spend, call_count, item_count, pass_count, error_count, created_at, finished_at`;

const fromRow = (row: ProbeRow): Probe => ({
  id: row.id,
  modelSlug: row.model_slug,
  openrouterSlug: row.openrouter_slug,
  provider: row.provider,
  language: row.language,
  samples: row.samples,
  maxTokens: row.max_tokens,
  status: row.status,
  error: row.error,
  verdict: row.verdict,
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

interface ItemRow {
  id: number;
  language: string;
  scenario: string;
  prompt: string;
  sample: number;
  provider: string | null;
  finish_reason: string | null;
  native_finish_reason: string | null;
  label: string | null;
  pass: number;
  program_text: string | null;
  response_text: string | null;
  reasoning_text: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost: number | null;
  duration_ms: number;
  error: string | null;
  created_at: string;
}

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

/** The `model_probes` and `model_probe_items` tables, prepared once. */
export function probeStore(db: Database) {
  const insertProbe = db.prepare(
    `INSERT INTO model_probes (id, model_slug, openrouter_slug, provider, language, samples, max_tokens, status, call_count, requests, created_at)
     VALUES (@id, @modelSlug, @openrouterSlug, @provider, @language, @samples, @maxTokens, 'running', @callCount, @requests, @createdAt)`,
  );
  const selectProbe = db.prepare<[string], ProbeRow>(`SELECT ${PROBE_COLUMNS} FROM model_probes WHERE id = ?`);
  const selectRequests = db.prepare<[string], string>('SELECT requests FROM model_probes WHERE id = ?').pluck();
  const selectRunning = db.prepare<[string], ProbeRow>(`SELECT ${PROBE_COLUMNS} FROM model_probes WHERE model_slug = ? AND status = 'running'`);
  const selectOfModel = db.prepare<[string], ProbeRow>(`SELECT ${PROBE_COLUMNS} FROM model_probes WHERE model_slug = ? ORDER BY created_at DESC, rowid DESC`);
  const selectItems = db.prepare<[string], ItemRow>('SELECT * FROM model_probe_items WHERE probe_id = ? ORDER BY id');
  const selectVerdictItems = db.prepare<[string], { language: string; scenario: string; label: string | null; pass: number }>(
    'SELECT language, scenario, label, pass FROM model_probe_items WHERE probe_id = ?',
  );
  const firstError = db.prepare<[string], string>('SELECT error FROM model_probe_items WHERE probe_id = ? AND error IS NOT NULL ORDER BY id LIMIT 1').pluck();
  // Only a running probe takes items: one failed by a restart stays as it was left.
  const insertItem = db.prepare(
    `INSERT INTO model_probe_items (probe_id, language, scenario, prompt, sample, provider, finish_reason, native_finish_reason, label, pass,
        program_text, response_text, reasoning_text, prompt_tokens, completion_tokens, cost, duration_ms, error, created_at)
     SELECT @probeId, @language, @scenario, @prompt, @sample, @provider, @finishReason, @nativeFinishReason, @label, @pass,
        @programText, @responseText, @reasoningText, @promptTokens, @completionTokens, @cost, @durationMs, @error, @createdAt
     WHERE EXISTS (SELECT 1 FROM model_probes WHERE id = @probeId AND status = 'running')`,
  );
  const countItem = db.prepare(
    `UPDATE model_probes SET item_count = item_count + 1, pass_count = pass_count + @pass, error_count = error_count + @errored,
        spend = spend + @cost WHERE id = @probeId`,
  );
  const finish = db.prepare(
    `UPDATE model_probes SET status = @status, error = @error, verdict = @verdict, pass_rate = @passRate, finished_at = @finishedAt
     WHERE id = @id AND status = 'running'`,
  );
  const setRunner = db.prepare<[string, string]>(`UPDATE model_probes SET runner = ? WHERE id = ? AND status = 'running'`);
  const selectRunners = db.prepare<[], { id: string; runner: string }>(`SELECT id, runner FROM model_probes WHERE status = 'running' AND runner IS NOT NULL`);

  return {
    /** Inserts a running probe; false when the model already has one running. */
    create(probe: Pick<Probe, 'id' | 'modelSlug' | 'openrouterSlug' | 'provider' | 'language' | 'samples' | 'maxTokens' | 'callCount' | 'createdAt'>, requests: ProbeRequest[]): boolean {
      try {
        insertProbe.run({ ...probe, requests: JSON.stringify(requests) });
        return true;
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return false;
        throw error;
      }
    },
    get: (id: string): Probe | null => {
      const row = selectProbe.get(id);
      return row ? fromRow(row) : null;
    },
    running: (modelSlug: string): Probe | null => {
      const row = selectRunning.get(modelSlug);
      return row ? fromRow(row) : null;
    },
    ofModel: (modelSlug: string): Probe[] => selectOfModel.all(modelSlug).map(fromRow),
    requests: (id: string): ProbeRequest[] => JSON.parse(selectRequests.get(id) ?? '[]') as ProbeRequest[],
    items: (id: string): ProbeItem[] => selectItems.all(id).map(itemFromRow),
    verdictItems: (id: string) => selectVerdictItems.all(id).map((row) => ({ ...row, pass: row.pass === 1 })),
    firstError: (id: string): string | null => firstError.get(id) ?? null,

    /** Stores one landed call and moves the probe's counts with it; false when the probe is no longer running. */
    addItem: db.transaction((probeId: string, item: NewProbeItem): boolean => {
      const inserted = insertItem.run({ probeId, ...item, pass: item.pass ? 1 : 0, createdAt: new Date().toISOString() }).changes > 0;
      if (inserted) countItem.run({ probeId, pass: item.pass ? 1 : 0, errored: item.error === null ? 0 : 1, cost: item.cost ?? 0 });
      return inserted;
    }),

    /** Ends a running probe; false when it had already ended (a restart failed it meanwhile). */
    finish(id: string, end: { status: 'complete' | 'failed'; error: string | null; verdict: Probe['verdict']; passRate: number | null }): boolean {
      return finish.run({ id, ...end, finishedAt: new Date().toISOString() }).changes > 0;
    },

    /** Records the process that runs a probe (see probe-runner.ts); false when the probe is no longer running. */
    takeRunner: (id: string, runner: string): boolean => setRunner.run(runner, id).changes > 0,

    /**
     * Fails the running probes whose runner `gone` says stopped; answers their ids. A probe
     * still queued (no runner yet), or run by a live process, is left alone.
     */
    failOrphaned: db.transaction((error: string, gone: (runner: string) => boolean): string[] => {
      const finishedAt = new Date().toISOString();
      return selectRunners.all()
        .filter((row) => gone(row.runner))
        .filter((row) => finish.run({ id: row.id, status: 'failed', error, verdict: null, passRate: null, finishedAt }).changes > 0)
        .map((row) => row.id);
    }),
  };
}

export type ProbeStore = ReturnType<typeof probeStore>;
