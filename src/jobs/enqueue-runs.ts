import { randomUUID } from 'node:crypto';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { LAUNCHABLE_HARNESSES, LaunchBody, type LaunchBodyT } from '../contract/jobs.js';
import { isKnownEngine, unknownEngine } from '../catalog/known-engines.js';
import type { NewJobRow } from '../db/jobs-table.js';
import { badRequest, HttpError, notFound, queueUnavailable, unprocessable } from '../errors.js';
import { runEventJson, runSubjectJson } from '../events/run-events.js';
import { jamGroup } from '../queue/queue-keys.js';
import { COMMAND_TIMEOUT_MS } from '../redis/redis-connections.js';
import type { MovedJob, QueuedRun } from '../queue/run-queue.js';
import { bindGgModels, boundModelKey } from './bind-gg-models.js';
import { announceWaiting, type JobsContext } from './jobs-context.js';
import { canonicalModelId } from './launch-models.js';

export interface LaunchOptions {
  /** `plan:<id>`, `ladder:<id>`, or null for a direct launch. */
  origin?: string | null;
}

/** A gg launch's configuration, resolved from a saved preset or given inline. */
export interface GgLaunch {
  configId: string | null;
  /** The saved configuration's name at launch time, recorded on the job. */
  preset: string | null;
  capabilitySet: Record<string, unknown>;
  slotModels: Record<string, string>;
}

/** A validated launch, ready to insert. */
export interface PreparedLaunch {
  row: NewJobRow;
  request: object;
  jam: string;
  maxRuntimeSeconds: number;
}

/** A batch row: the enqueued job, or why the entry was refused (`error` is the message, as the console reads it). */
export type EnqueueResult = { jobId: string } | { error: string; code: string };

const launchShape = TypeCompiler.Compile(LaunchBody);
const HARNESSES = new Set<string>(LAUNCHABLE_HARNESSES);

export const launchAck = (jobId: string) => ({ jobId, statusUrl: `/jobs/${jobId}`, liveUrl: `/jobs/${jobId}/live` });

/** `POST /jobs`: validates and enqueues one launch; throws the HTTP error that refused it. */
export async function enqueueRun(ctx: JobsContext, accountId: string, body: LaunchBodyT, options: LaunchOptions = {}): Promise<string> {
  const prepared = await prepareLaunch(ctx, accountId, body, options, new Map());
  const [jobId] = await enqueuePrepared(ctx, [prepared], options.origin ?? null);
  return jobId!;
}

/** `POST /jobs/batch`: every entry validated on its own; answers are aligned by index. */
export async function enqueueRuns(ctx: JobsContext, accountId: string, entries: unknown[], options: LaunchOptions = {}): Promise<EnqueueResult[]> {
  const admissions = new Map<string, ReturnType<JobsContext['models']['admit']>>();
  const results: EnqueueResult[] = new Array(entries.length);
  const accepted: Array<{ index: number; launch: PreparedLaunch }> = [];
  for (const [index, entry] of entries.entries()) {
    try {
      const body = checkShape(entry, `runs[${index}]`);
      accepted.push({ index, launch: await prepareLaunch(ctx, accountId, body, options, admissions) });
    } catch (error) {
      if (!(error instanceof HttpError) || error.statusCode >= 500) throw error;
      results[index] = { error: error.message, code: error.code };
    }
  }
  const queued = await queuePrepared(ctx, accepted.map((item) => item.launch), options.origin ?? null);
  // Entries Redis did not take are refused one by one; the others are queued and run.
  if (queued.failed.size > 0 && queued.failed.size === accepted.length) throw queued.error;
  const refused = queueUnavailable();
  accepted.forEach((item, i) => {
    const jobId = queued.ids[i]!;
    results[item.index] = queued.failed.has(jobId) ? { error: refused.message, code: refused.code } : { jobId };
  });
  return results;
}

/** `value` as a launch body, or the 400 naming its first wrong field under `where`. */
export function checkShape(value: unknown, where: string): LaunchBodyT {
  if (launchShape.Check(value)) return value;
  const first = launchShape.Errors(value).First();
  const path = first?.path.replaceAll('/', '.') ?? '';
  throw badRequest(`${where}${path} ${first?.message.toLowerCase() ?? 'is not a launch body'}.`);
}

/** What the launch rules short of model admission read: the catalog and the account's gg configurations. */
export type LaunchChecks = Pick<JobsContext, 'catalog' | 'ggConfigs'>;

/**
 * The launch rules short of model admission (harness, catalog, engine, variant, gg
 * configuration), in that order; throws the first one's 4xx. Model admission may call the
 * routing provider, so what has no provider to ask (an import queueing waiting jobs again)
 * stops here.
 */
export async function checkLaunch(ctx: LaunchChecks, accountId: string, body: LaunchBodyT, resolvedGg?: GgLaunch) {
  if (!HARNESSES.has(body.harness)) {
    throw badRequest(`harness "${body.harness}" is not one of ${LAUNCHABLE_HARNESSES.join(', ')}.`);
  }
  const version = await ctx.catalog.version(body.testCase, body.version);
  if (!version) {
    if (!(await ctx.catalog.caseExists(body.testCase))) throw notFound(`No test case "${body.testCase}".`);
    throw notFound(`Test case ${body.testCase} has no ingested version ${body.version}.`);
  }
  const engine = body.engine ?? 'none';
  if (!isKnownEngine(engine)) throw unknownEngine(engine);
  if (engine !== 'none' && !version.engines.includes(engine)) {
    const declared = version.engines.length > 0 ? version.engines.join(', ') : 'none';
    throw badRequest(`Test case ${body.testCase} ${body.version} does not declare engine "${engine}" (it declares ${declared}).`);
  }
  if (version.variants.length > 0 && !version.variants.includes(body.variant)) {
    throw badRequest(`Test case ${body.testCase} ${body.version} has no variant "${body.variant}".`);
  }

  const request: LaunchBodyT & { ggSlotModels?: Record<string, string> } = { ...body };
  let gg: GgLaunch | null = null;
  if (body.harness === 'gg') {
    gg = resolvedGg ?? (await resolveGg(ctx, accountId, body));
    request.ggCapabilitySet = gg.capabilitySet;
    if (Object.keys(gg.slotModels).length > 0) request.ggSlotModels = gg.slotModels;
  } else if (body.presetId || body.ggCapabilitySet) {
    throw badRequest(`presetId and ggCapabilitySet apply to the gg harness only, not "${body.harness}".`);
  }
  return { version, engine, request, gg };
}

/** Applies the launch rules (harness, catalog, engine, variant, gg configuration, model) in that order. */
export async function prepareLaunch(
  ctx: JobsContext,
  accountId: string,
  body: LaunchBodyT,
  options: LaunchOptions,
  admissions: Map<string, ReturnType<JobsContext['models']['admit']>>,
  resolvedGg?: GgLaunch,
): Promise<PreparedLaunch> {
  const { version, engine, request, gg } = await checkLaunch(ctx, accountId, body, resolvedGg);
  // A provider-routed launch names `openrouter/<model>`; the catalog knows it as `<model>`.
  for (const model of new Set([body.model, ...Object.values(gg?.slotModels ?? {})].map(canonicalModelId))) {
    let admission = admissions.get(model);
    if (!admission) admissions.set(model, (admission = ctx.models.admit(model)));
    const answer = await admission;
    if (!answer.ok) throw unprocessable(answer.reason);
  }

  const id = randomUUID();
  return {
    request,
    jam: version.testType === 'game-jam' ? jamGroup(body.testCase, body.model).slice(2) : '',
    maxRuntimeSeconds: body.maxRuntimeSeconds ?? version.maxRuntimeSeconds,
    row: {
      id,
      accountId,
      origin: options.origin ?? null,
      testCaseSlug: body.testCase,
      testCaseVersion: body.version,
      variant: body.variant,
      harnessSlug: body.harness,
      modelId: body.model,
      provider: body.provider ?? null,
      engine: engine === 'none' ? null : engine,
      testType: version.testType,
      ggConfigId: gg?.configId ?? null,
      ggPreset: gg?.preset ?? null,
      ggModels: gg ? boundModelKey(gg.slotModels) : null,
      request: JSON.stringify(request),
      enqueuedAt: new Date().toISOString(),
    },
  };
}

/**
 * Enqueues prepared launches (see `queuePrepared`); throws the add's error when Redis did
 * not take every job, those it took being queued all the same.
 */
export async function enqueuePrepared(ctx: JobsContext, launches: PreparedLaunch[], origin: string | null): Promise<string[]> {
  const { ids, failed, error } = await queuePrepared(ctx, launches, origin);
  if (failed.size > 0) throw error;
  return ids;
}

/**
 * Inserts the jobs in one SQLite transaction (the durable record first), announces
 * `enqueued`, then queues them in Redis. Announcing first keeps `enqueued` ahead of the
 * `dispatched` a claim publishes the moment a job is in Redis. Rows whose jobs Redis does
 * not hold after the add and its read-back are failed (and announced so), so nothing claims
 * to be queued that is not; rows whose jobs it holds stay queued, whatever the add answered.
 * Answers every job id, those failed so, and the add's error that failed them.
 */
async function queuePrepared(ctx: JobsContext, launches: PreparedLaunch[], origin: string | null): Promise<{ ids: string[]; failed: Set<string>; error?: unknown }> {
  if (launches.length === 0) return { ids: [], failed: new Set() };
  const seqs = await ctx.jobs.insert(launches.map((launch) => launch.row));
  const runs: QueuedRun[] = launches.map(({ row, jam, request, maxRuntimeSeconds }, i) => ({
    id: row.id,
    seq: seqs[i]!,
    harness: row.harnessSlug,
    jam,
    request,
    subjectJson: runSubjectJson(row),
    origin,
    maxRuntimeSeconds,
  }));
  for (const run of runs) ctx.bus.publishRun(runEventJson('enqueued', 'queued', run.subjectJson));
  const { held, absent, error } = await addReadingBack(ctx, runs);
  if (absent.length > 0) {
    const detail = 'The job could not be queued.';
    await ctx.jobs.markAllFinished(absent.map((run) => run.id), 'failed', detail, new Date().toISOString());
    for (const run of absent) ctx.bus.publishRun(runEventJson('finished', 'failed', run.subjectJson, { recordId: null, detail }));
  }
  // Jobs whose harness is at its cap (or whose game jam is in play) wait from the start.
  await announceWaiting(ctx, held, 'pending');
  return { ids: runs.map((run) => run.id), failed: new Set(absent.map((run) => run.id)), error };
}

/** How long a failed add waits for its connection to come back before reading back what Redis queued (ms). */
const READ_BACK_WAIT_MS = COMMAND_TIMEOUT_MS;

/**
 * Queues the runs in Redis. A failed add may still have been applied, whole or in part (a
 * chunk went through before the connection was cut; Redis ran the script and its reply was
 * lost), so its outcome is read back from Redis, never guessed: jobs Redis holds stay, and
 * those it lacks are added once more (the add is idempotent by job id). Answers the jobs
 * held as they were queued and those Redis still lacks, with the add's error. When Redis
 * cannot be read back, throws that error and every row stays queued: the stranded-job pass
 * queues the jobs Redis lacks once they are past its grace.
 */
async function addReadingBack(ctx: JobsContext, runs: QueuedRun[]): Promise<{ held: MovedJob[]; absent: QueuedRun[]; error?: unknown }> {
  // While Redis is known to be away the add fails at once without sending anything: nothing to read back.
  const sent = ctx.queue.connected;
  let error: unknown;
  try {
    return { held: await ctx.queue.add(runs), absent: [] };
  } catch (failure) {
    if (!sent) return { held: [], absent: runs, error: failure };
    error = failure;
  }
  const held: MovedJob[] = [];
  let missing = runs;
  for (let retried = false; ; retried = true) {
    const states = (await ctx.queue.untilReady(READ_BACK_WAIT_MS)) ? await ctx.queue.states(missing.map((run) => run.id)).catch(() => null) : null;
    if (!states) {
      ctx.log.warn({ err: error, jobs: missing.length }, 'a Redis add failed and Redis could not be read back; its rows stay queued');
      throw error;
    }
    missing.forEach((run, i) => {
      if (states[i]?.state === 'pending') held.push({ id: run.id, subjectJson: run.subjectJson });
    });
    missing = missing.filter((_, i) => !states[i]);
    ctx.log.warn({ err: error, jobs: runs.length, absent: missing.length }, 'a Redis add failed; read back which of its jobs Redis holds');
    if (missing.length === 0 || retried) return { held, absent: missing, error };
    try {
      held.push(...(await ctx.queue.add(missing)));
      return { held, absent: [] };
    } catch {
      // Read back again: the retry too may have been applied in part.
    }
  }
}

/**
 * A gg launch through `POST /jobs`: a saved preset of the account's, or an inline capability
 * set. The launch names its listed model itself; the models the set binds (and the preset's
 * slotModels over them) are bound too, so the model rule sees each of them.
 */
async function resolveGg(ctx: Pick<JobsContext, 'ggConfigs'>, accountId: string, body: LaunchBodyT): Promise<GgLaunch> {
  if (body.presetId) {
    const config = await ctx.ggConfigs.get(accountId, body.presetId);
    if (!config) throw badRequest(`presetId "${body.presetId}" names no gg configuration of this account.`);
    const slotModels = bindGgModels(config.capabilitySet, config.slotModels, { listedModel: true });
    return { configId: config.id, preset: config.name, capabilitySet: config.capabilitySet, slotModels };
  }
  if (!body.ggCapabilitySet) throw badRequest('A gg launch needs presetId (a saved gg configuration) or ggCapabilitySet.');
  return { configId: null, preset: null, capabilitySet: body.ggCapabilitySet, slotModels: bindGgModels(body.ggCapabilitySet, {}, { listedModel: true }) };
}
