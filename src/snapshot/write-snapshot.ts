import { randomUUID } from 'node:crypto';
import { copyFile, link, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Database } from '../db/open-database.js';
import { mediaKindOf } from '../catalog/media-kind.js';
import { describeFetchFailure } from '../http/describe-fetch-failure.js';
import type { RunGrades } from '../runs/run-grades.js';
import { LISTED_COLUMNS, type RunRow, type RunRows } from '../runs/run-rows.js';
import { runDetail, summaryCardJson } from '../runs/run-views.js';
import { SECOND } from '../time.js';

/** Version of the snapshot's `runs.json` shape. */
export const SNAPSHOT_SCHEMA_VERSION = 1;
const HOOK_TIMEOUT = 30 * SECOND;

export interface SnapshotDeps {
  db: Database;
  rows: RunRows;
  grades: RunGrades;
  /** `DATA_DIR/run-media`: published runs' showcase media is carried into the snapshot. */
  mediaDir: string;
  /** Where the snapshot lives; replaced whole on each refresh. */
  dir: string;
  deployHook: string | null;
  onWarning(message: string): void;
}

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
 * It is written to a sibling temp folder and renamed into place, so a reader never sees
 * half a snapshot; then the deploy hook, when configured, is told.
 */
export function snapshotWriter(deps: SnapshotDeps) {
  const published = deps.db.prepare<[], RunRow>(
    `SELECT ${LISTED_COLUMNS}, record FROM runs WHERE published = 1 AND decode_error IS NULL ORDER BY published_at DESC, id DESC`,
  );
  let running: Promise<SnapshotResult> = Promise.resolve({ refreshed: false, runs: 0, hookFired: false });

  async function write(): Promise<SnapshotResult> {
    await deps.grades.regradeStale();
    const rows = published.all();
    const temp = `${deps.dir}.tmp-${randomUUID().slice(0, 8)}`;
    await mkdir(join(temp, 'runs'), { recursive: true });
    try {
      await writeFile(join(temp, 'runs.json'), `{"schemaVersion":${SNAPSHOT_SCHEMA_VERSION},"runs":[${rows.map(summaryCardJson).join(',')}]}`);
      for (const row of rows) {
        const showcase = await carryShowcase(row.id, temp);
        await writeFile(join(temp, 'runs', `${encodeURIComponent(row.id)}.json`), JSON.stringify({ ...runDetail(row, deps.rows.reviews(row.id)), showcase }));
      }
      await mkdir(dirname(deps.dir), { recursive: true });
      await swapInto(temp, deps.dir);
    } catch (error) {
      await rm(temp, { recursive: true, force: true });
      throw error;
    }
    return { refreshed: true, runs: rows.length, hookFired: await fireHook(rows.length) };
  }

  /**
   * Hard-links (copies across file systems) a run's uploaded showcase images and videos
   * into the snapshot being written. Uploads replace files by rename, so a link never
   * changes under a published snapshot.
   */
  async function carryShowcase(id: string, temp: string): Promise<SnapshotMedia[]> {
    const from = join(deps.mediaDir, id, 'showcase');
    const entries = await readdir(from, { withFileTypes: true }).catch(() => []);
    const media: SnapshotMedia[] = [];
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const kind = mediaKindOf(entry.name);
      if (!entry.isFile() || (kind !== 'image' && kind !== 'video')) continue;
      const key = `media/${encodeURIComponent(id)}/showcase/${entry.name}`;
      await mkdir(join(temp, dirname(key)), { recursive: true });
      await link(join(from, entry.name), join(temp, key)).catch(() => copyFile(join(from, entry.name), join(temp, key)));
      media.push({ file: entry.name, kind, key });
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

  return {
    /** One refresh at a time in this process: a forced refresh waits for a running one, then writes afresh. */
    refresh(): Promise<SnapshotResult> {
      const next = running.catch(() => undefined).then(write);
      running = next;
      return next;
    },
  };
}

export type SnapshotWriter = ReturnType<typeof snapshotWriter>;

// Attempts at the swap below; each one loses only to a writer that finished in between.
const SWAP_ATTEMPTS = 20;

/**
 * Moves the finished folder `temp` to `dir`, replacing what is there. Another writer (the
 * queued refresh beside a forced one, or another process's) may put its own folder in
 * place between moving the old one aside and renaming ours in; the rename then fails
 * with ENOTEMPTY or EEXIST and the swap is tried again, so the last writer wins whole.
 */
async function swapInto(temp: string, dir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const old = `${dir}.old-${randomUUID().slice(0, 8)}`;
    await rename(dir, old).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    try {
      await rename(temp, dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== 'ENOTEMPTY' && code !== 'EEXIST') || attempt === SWAP_ATTEMPTS) throw error;
    } finally {
      await rm(old, { recursive: true, force: true });
    }
  }
}
