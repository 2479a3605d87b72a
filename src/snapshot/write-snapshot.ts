import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BlobStore } from '../blob/blob-store.js';
import type { BackendStore } from '../db/dialect.js';
import { keysetPages } from '../db/keyset-pages.js';
import type { Exclusive } from './snapshot-lock.js';
import { mediaKindOf } from '../catalog/media-kind.js';
import { describeFetchFailure } from '../http/describe-fetch-failure.js';
import type { RunGrades } from '../runs/run-grades.js';
import { RUN_COLUMNS, type RunRow, type RunRows } from '../runs/run-rows.js';
import { runDetail, summaryCardJson } from '../runs/run-views.js';
import { RUN_MEDIA_AREA, runMediaKey } from '../runs/showcase-path.js';
import type { SnapshotDraft, SnapshotOutput } from './snapshot-output.js';
import { SECOND } from '../time.js';

/** Version of the snapshot's `runs.json` shape. */
export const SNAPSHOT_SCHEMA_VERSION = 1;
const HOOK_TIMEOUT = 30 * SECOND;
/**
 * Published runs read per query. Read all at once, 20,000 published runs held the event
 * loop for 250 ms (the query 220, the cards 40) and every record in memory together.
 */
const RUNS_PER_PAGE = 256;
/** Runs of a page whose files are written or carried at once: on a bucket each is a request or two, one after another per run. */
const RUN_WRITES_IN_FLIGHT = 8;
/**
 * Each version's `manifest.json`: the hash of every run's detail file, so the next refresh
 * carries unchanged ones over instead of writing them again.
 */
const MANIFEST = 'manifest.json';

export interface SnapshotDeps {
  store: BackendStore;
  rows: RunRows;
  grades: RunGrades;
  /** Holds runs' uploaded showcase media (`run-media/<id>/showcase/`), carried into the snapshot. */
  blobs: BlobStore;
  /** Where versions are written and which one readers see (`snapshotOutput`). */
  output: SnapshotOutput;
  deployHook: string | null;
  onWarning(message: string): void;
  /** Runs a refresh as the one snapshot writer of the deployment (API and workers alike). */
  exclusive: Exclusive;
  /** How long a version stays once replaced (default REPLACED_GRACE_MS). */
  replacedGraceMs?: number;
}

/**
 * A version replaced less than this long ago stays, beside the previous one: a read that
 * resolved the link to it a moment before goes on finding its files. Keeping only the
 * previous version was not enough when refreshes followed each other closely: a reader
 * stalled between the link and the file (a busy machine, 30 refreshes in a row) found the
 * file gone.
 */
const REPLACED_GRACE_MS = 10 * SECOND;
/** Version names start with their creation time, base 36, this many characters. */
const NAME_TIME_CHARS = 9;

export interface SnapshotResult {
  refreshed: boolean;
  runs: number;
  hookFired: boolean;
}

/** One showcase file in the snapshot; `key` is its path under the snapshot root. */
export interface SnapshotMedia {
  file: string;
  kind: 'image' | 'video';
  key: string;
}

/**
 * Regenerates the public snapshot: `runs.json` (published runs' summary cards, newest
 * first), `runs/<id>.json` (each published run's detail plus its `showcase` media list,
 * what a gallery page shows) and `media/<id>/showcase/<file>` (that media).
 *
 * Each refresh writes a new version, then points readers at it in one atomic step (a link
 * renamed over the old one, or a pointer object put last; see `SnapshotOutput`), so a
 * reader always finds a whole snapshot, the previous or the new. Older versions are removed
 * once replaced for REPLACED_GRACE_MS (the previous one stays in any case), so a read that
 * resolved the link to one a moment ago still finds its files. A run whose detail is the
 * same as in the version it replaces (`manifest.json` keeps each detail's hash) is carried
 * over from it rather than written again.
 * Refreshes hold a deployment-wide lock, so the API's and the workers' writers never
 * interleave; then the deploy hook, when configured, is told.
 */
export function snapshotWriter(deps: SnapshotDeps) {
  // Newest first, a page at a time after the last row of the previous page (a published run
  // always has its published_at), as a row value so each page starts with a search of
  // runs_published_order rather than a walk past every row already written. A run published
  // while a refresh runs sorts before the page it reads, so it waits for the next refresh,
  // which its publish asks for; none is written twice.
  // The first page starts after a time no ISO timestamp reaches.
  const pageAfter = (last: RunRow | undefined): Promise<RunRow[]> =>
    deps.store.db
      .selectFrom('runs')
      .select(RUN_COLUMNS)
      .where('published', '=', 1)
      .where('decode_error', 'is', null)
      .where((eb) => eb(eb.refTuple('published_at', 'id'), '<', eb.tuple(last ? last.published_at! : '\uffff', last?.id ?? '')))
      .orderBy('published_at', (ob) => ob.desc().nullsLast())
      .orderBy('id', 'desc')
      .limit(RUNS_PER_PAGE)
      .execute();
  const publishedPages = () => keysetPages<RunRow>(pageAfter, RUNS_PER_PAGE);
  /**
   * Each published run's showcase files, from one listing of the media area: a listing per
   * run cost a bucket request per published run on every refresh.
   */
  async function showcaseFiles(): Promise<Map<string, string[]>> {
    const byRun = new Map<string, string[]>();
    for (const key of await deps.blobs.list(RUN_MEDIA_AREA)) {
      const [id, area, file, ...deeper] = key.slice(RUN_MEDIA_AREA.length + 1).split('/');
      if (area !== 'showcase' || !file || deeper.length > 0) continue;
      const kind = mediaKindOf(file);
      if (kind !== 'image' && kind !== 'video') continue;
      byRun.set(id!, [...(byRun.get(id!) ?? []), file]);
    }
    return byRun;
  }

  /** The previous version's manifest: each run's detail hash, or an empty map when it has none we can read. */
  async function previousHashes(previous: string | null): Promise<Map<string, string>> {
    if (!previous) return new Map();
    try {
      const manifest = JSON.parse((await deps.output.readText(previous, MANIFEST)) ?? 'null') as { schemaVersion?: number; runs?: Record<string, string> } | null;
      if (manifest?.schemaVersion !== SNAPSHOT_SCHEMA_VERSION || !manifest.runs) return new Map();
      return new Map(Object.entries(manifest.runs));
    } catch {
      return new Map(); // unreadable: every run is written afresh, as before manifests
    }
  }

  async function write(): Promise<number> {
    await deps.grades.regradeStale();
    // Names sort by creation; the suffix keeps two writes in one millisecond apart.
    const name = `${Date.now().toString(36).padStart(NAME_TIME_CHARS, '0')}-${randomUUID().slice(0, 8)}`;
    let count = 0;
    try {
      const previous = await deps.output.current();
      const carried = await previousHashes(previous);
      const showcases = await showcaseFiles();
      const hashes: Record<string, string> = {};
      const draft = await deps.output.begin(name);
      /**
       * One run's detail file and media. A detail identical to the previous version's (same
       * hash in its manifest) is carried over from it (a hard link or a server-side copy),
       * not written again; media is always carried from the uploads, which may replace a
       * file under the same name.
       */
      async function writeRun(row: RunRow): Promise<void> {
        const showcase = await carryShowcase(row.id, showcases.get(row.id) ?? [], draft);
        const text = JSON.stringify({ ...runDetail(row, await deps.rows.reviews(row.id)), showcase });
        const hash = createHash('sha256').update(text).digest('base64url');
        hashes[row.id] = hash;
        const rel = `runs/${snapshotName(row.id)}.json`;
        if (previous && carried.get(row.id) === hash) {
          const done = await draft.carryFrom(previous, rel).then(() => true, () => false);
          if (done) return;
        }
        await draft.writeText(rel, text);
      }
      // Cards stream out a page at a time while each page's details are written beside them.
      async function* cards() {
        yield `{"schemaVersion":${SNAPSHOT_SCHEMA_VERSION},"runs":[`;
        for await (const page of publishedPages()) {
          yield `${count > 0 ? ',' : ''}${page.map(summaryCardJson).join(',')}`;
          let next = 0;
          const lane = async () => {
            while (next < page.length) await writeRun(page[next++]!);
          };
          await Promise.all(Array.from({ length: Math.min(RUN_WRITES_IN_FLIGHT, page.length) }, lane));
          count += page.length;
        }
        yield ']}';
      }
      await draft.writeStream('runs.json', Readable.from(cards()));
      await draft.writeText(MANIFEST, JSON.stringify({ schemaVersion: SNAPSHOT_SCHEMA_VERSION, runs: hashes }));
    } catch (error) {
      await deps.output.discard(name).catch(() => undefined);
      throw error;
    }
    const previous = await deps.output.publish(name).catch(async (error: unknown) => {
      await deps.output.discard(name).catch(() => undefined);
      throw error;
    });
    await removeVersionsBut([name, previous]).catch((error: unknown) =>
      deps.onWarning(`old snapshot versions were not all removed: ${error instanceof Error ? error.message : String(error)}`),
    );
    return count;
  }

  /**
   * Removes the versions other than `keep` that were replaced over the grace ago. A version
   * was replaced when the next one was made, which the next one's name tells; a folder from
   * before versions existed has no time and goes at once.
   */
  async function removeVersionsBut(keep: Array<string | null>): Promise<void> {
    const entries = await deps.output.versions();
    const madeAt = (entry: string | undefined) => (entry === undefined ? Number.NaN : parseInt(entry.slice(0, NAME_TIME_CHARS), 36));
    const graceMs = deps.replacedGraceMs ?? REPLACED_GRACE_MS;
    for (const [i, entry] of entries.entries()) {
      if (keep.includes(entry)) continue;
      const replacedAt = entry.startsWith('legacy-') ? 0 : madeAt(entries[i + 1]);
      if (Date.now() - replacedAt < graceMs) continue;
      // One version that cannot be removed now (a bucket request failing) is left for the
      // next refresh; the others still go.
      await deps.output.discard(entry).catch((error: unknown) =>
        deps.onWarning(`snapshot version ${entry} was not removed; the next refresh tries again: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
  }

  /** Carries a run's uploaded showcase images and videos into the version being written. */
  async function carryShowcase(id: string, files: string[], draft: SnapshotDraft): Promise<SnapshotMedia[]> {
    const runKey = runMediaKey(id);
    if (!runKey) return [];
    const media: SnapshotMedia[] = [];
    for (const file of files) {
      const key = `media/${snapshotName(id)}/showcase/${file}`;
      await draft.carry(`${runKey}/showcase/${file}`, key);
      media.push({ file, kind: mediaKindOf(file) as 'image' | 'video', key });
    }
    return media;
  }

  async function fireHook(runs: number): Promise<boolean> {
    if (!deps.deployHook) return false;
    try {
      const response = await fetch(deps.deployHook, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ runs, generatedAt: new Date().toISOString() }),
        signal: AbortSignal.timeout(HOOK_TIMEOUT),
      });
      await response.body?.cancel();
      if (!response.ok) deps.onWarning(`snapshot deploy hook answered HTTP ${response.status}`);
      return response.ok;
    } catch (error) {
      deps.onWarning(`snapshot deploy hook ${describeFetchFailure(error, HOOK_TIMEOUT)}`);
      return false;
    }
  }

  /** The refresh writing now, and the one that will start after it (later callers join that one). */
  let running: Promise<SnapshotResult> | null = null;
  let waiting: Promise<SnapshotResult> | null = null;
  const start = (): Promise<SnapshotResult> => {
    const refresh = (async () => {
      const runs = await deps.exclusive(write);
      return { refreshed: true, runs, hookFired: await fireHook(runs) };
    })();
    running = refresh;
    void refresh.finally(() => {
      if (running === refresh) running = null;
    }).catch(() => undefined);
    return refresh;
  };

  return {
    /**
     * Coalesces: at most one refresh runs in this process and one waits behind it. A call
     * made while one waits joins it, since a refresh that starts after the call sees
     * everything the call could ask for. Across processes the lock keeps one writer.
     */
    refresh(): Promise<SnapshotResult> {
      if (waiting) return waiting;
      if (!running) return start();
      const next = running.catch(() => undefined).then(() => {
        waiting = null;
        return start();
      });
      waiting = next;
      return next;
    },
  };
}

export type SnapshotWriter = ReturnType<typeof snapshotWriter>;

/**
 * A run id as one snapshot path segment: percent-encoded, and a leading dot too, so no id
 * makes a hidden file or a `.`/`..` segment.
 */
export const snapshotName = (id: string) => encodeURIComponent(id).replace(/^\./, '%2E');
