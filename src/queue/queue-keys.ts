/**
 * Every queue name and Redis key this service writes, in one place. BullMQ lays a queue
 * out as `<prefix>:<queue>:<suffix>` and a job hash as `<prefix>:<queue>:<jobId>`; the
 * run queue's own bookkeeping (state machine, holds, live backlogs) sits beside it under
 * `<prefix>:run…`, outside BullMQ's namespace so BullMQ's `obliterate`/`clean` never
 * trip over it.
 */
export const RUN_QUEUE = 'runs';

/** Background queues register under these names (probes: reserved for the model probes). */
export const BACKGROUND_QUEUES = {
  ingest: 'ingest',
  publish: 'publish',
  probes: 'probes',
  snapshot: 'snapshot',
  billedRates: 'billed-rates',
  staleJobs: 'stale-jobs',
} as const;

export type BackgroundQueue = (typeof BACKGROUND_QUEUES)[keyof typeof BACKGROUND_QUEUES];

export interface RunQueueKeys {
  /** BullMQ's key prefix for this queue's job hashes: `<prefix>:runs:` + job id. */
  bullJobPrefix: string;
  wait: string;
  active: string;
  completed: string;
  failed: string;
  /** Our state hash per run: `runPrefix + id`. */
  runPrefix: string;
  /** The driver-relayed event backlog per run (a capped stream): `runPrefix + id + ':live'`. */
  live(id: string): string;
  run(id: string): string;
  /** Hash harness slug -> maxParallelism. */
  caps: string;
  /** Hash harness slug -> revision of the cap applied (orders concurrent writes). */
  capRevisions: string;
  /** Set of in-flight job ids per hold group (`h:<harness>`, `j:<slug>|<model>`): `inflightPrefix + group`. */
  inflightPrefix: string;
  /** Sorted set (score = enqueue sequence) of held job ids per hold group: `pendingPrefix + group`. */
  pendingPrefix: string;
  /** Set of hold groups that currently hold jobs. */
  pendingGroups: string;
  /** Jobs found in the wait list without a state hash; reconcile looks at them. */
  orphans: string;
  /** Sorted set (score = when it finished, ms) of finished jobs whose outcome the store's row may not hold yet. */
  uncopied: string;
  /** Set of ids whose wait-list entries a cancel left in place, for the claims to drop (cancel-jobs.lua). */
  leftBehind: string;
  /** Pub/sub channel every process's console streams listen on. */
  consoleChannel: string;
  /** Hash streamId -> owning process, for topic changes that land on another process. */
  consoleStreams: string;
}

export function runQueueKeys(prefix: string): RunQueueKeys {
  const queue = `${prefix}:${RUN_QUEUE}:`;
  const runPrefix = `${prefix}:run:`;
  return {
    bullJobPrefix: queue,
    wait: `${queue}wait`,
    active: `${queue}active`,
    completed: `${queue}completed`,
    failed: `${queue}failed`,
    runPrefix,
    run: (id) => `${runPrefix}${id}`,
    live: (id) => `${runPrefix}${id}:live`,
    caps: `${prefix}:run-caps`,
    capRevisions: `${prefix}:run-cap-revisions`,
    inflightPrefix: `${prefix}:run-inflight:`,
    pendingPrefix: `${prefix}:run-pending:`,
    pendingGroups: `${prefix}:run-pending-groups`,
    orphans: `${prefix}:run-orphans`,
    uncopied: `${prefix}:run-uncopied`,
    leftBehind: `${prefix}:run-left-behind`,
    consoleChannel: `${prefix}:console`,
    consoleStreams: `${prefix}:console-streams`,
  };
}

/** The id of the store whose jobs this prefix holds (src/runtime/store-identity.ts). */
export const storeIdKey = (prefix: string) => `${prefix}:store-id`;

/** Keys of the background areas, beside the run queue's. */
export const backgroundKeys = (prefix: string) => ({
  /** A capped stream of one ingest scan's progress lines, for the request that asked for it. */
  ingestProgress: (jobId: string) => `${prefix}:ingest-progress:${jobId}`,
  /** Present while the process running ingest scan `jobId` lives: it renews the key's short TTL. */
  ingestAlive: (jobId: string) => `${prefix}:ingest-alive:${jobId}`,
  /** A capped stream of one publish job's progress lines. */
  publishLive: (publishJobId: string) => `${prefix}:publish-live:${publishJobId}`,
});

/** Hold group of a harness parallelism cap. */
export const harnessGroup = (harness: string) => `h:${harness}`;
/** Hold group of a game jam played by one model: at most one such run in flight. */
export const jamGroup = (slug: string, model: string) => `j:${slug}|${model}`;

/**
 * The claim that serializes top-ups of one schedule owner (`plan:<id>`, `ladder:<id>`) across
 * processes: a string holding the holder's random token, with a TTL the holder keeps renewing.
 */
export const scheduleLockKey = (prefix: string, owner: string) => `${prefix}:schedule-lock:${owner}`;

/**
 * The mark a review's follow-up leaves when it finds the owner's lock busy: the holder clears
 * it and tops up again before it lets go (`schedule-lock-release.lua`), so the follow-up's
 * top-up is never dropped.
 */
export const scheduleAgainKey = (prefix: string, owner: string) => `${prefix}:schedule-again:${owner}`;
