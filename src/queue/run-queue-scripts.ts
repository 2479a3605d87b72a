import type { Redis } from 'ioredis';
import { loadLuaScript } from './load-lua-script.js';
import type { MovedJob } from './run-queue-types.js';

/**
 * The run queue's Lua scripts: which file each is, how many keys it takes, and the callers
 * defined on a connection. Every script takes the shared context's keys first, then its own.
 */
export type RunQueueScript = 'addJobs' | 'claimNextJob' | 'reportJobStatus' | 'cancelJobs' | 'setHarnessCap' | 'appendLive' | 'sweepStaleJobs' | 'confirmCopied';
const SCRIPTS: Record<RunQueueScript, string> = {
  addJobs: 'add-jobs.lua',
  appendLive: 'append-live.lua',
  claimNextJob: 'claim-next-job.lua',
  reportJobStatus: 'report-job-status.lua',
  cancelJobs: 'cancel-jobs.lua',
  setHarnessCap: 'set-harness-cap.lua',
  sweepStaleJobs: 'sweep-stale-jobs.lua',
  confirmCopied: 'confirm-copied.lua',
};

/** Keys of the context every script takes first: wait, active, completed, failed, caps, pending groups, orphans, not yet copied. */
const CONTEXT_KEYS = 8;
/** Keys a script takes after the shared context's. */
const EXTRA_KEYS: Partial<Record<RunQueueScript, number>> = { setHarnessCap: 1, claimNextJob: 1, cancelJobs: 1 };

export type ScriptCaller = (keysAndArgs: Array<string | number>) => Promise<unknown>;

/** Defines each script on `redis` once (connections are shared) and answers its callers. */
export function defineRunQueueScripts(redis: Redis): Record<RunQueueScript, ScriptCaller> {
  const scripts = {} as Record<RunQueueScript, ScriptCaller>;
  for (const [name, file] of Object.entries(SCRIPTS) as Array<[RunQueueScript, string]>) {
    if (!(name in redis)) redis.defineCommand(name, { numberOfKeys: CONTEXT_KEYS + (EXTRA_KEYS[name] ?? 0), lua: loadLuaScript(file) });
    const command = (redis as unknown as Record<RunQueueScript, (...args: Array<string | number>) => Promise<unknown>>)[name];
    scripts[name] = (keysAndArgs) => command.apply(redis, keysAndArgs);
  }
  return scripts;
}

/** Decodes a script's flat `id, subjectJson, …` reply of moved jobs. */
export function moved(flat: string[]): MovedJob[] {
  return pairs(flat).map(([id, subjectJson]) => ({ id, subjectJson }));
}

/** Pairs up a flat `a, b, a, b, …` reply. */
export function pairs(flat: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
}
