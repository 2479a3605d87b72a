import { readFileSync } from 'node:fs';
import { storeLayout, type StoredVersion } from '../catalog/definition-store.js';
import { RESOLVED_RECORD_FORMAT } from '../catalog/record-format.js';
import type { Database } from '../db/open-database.js';

/** What enqueue needs to know about an ingested test case version. */
export interface LaunchableVersion {
  /** Engine slugs the version declares (`none` is always launchable). */
  engines: string[];
  /** Variant slugs the version declares. */
  variants: string[];
  testType: string;
  /** The version's run time limit; a launch may set its own. */
  maxRuntimeSeconds: number;
}

/** The catalog as the run queue sees it. */
export interface LaunchCatalog {
  /**
   * Null when the version was never ingested, its stored record is in a format this build
   * cannot read, or it is experimental and the deployment does not offer those: exactly the
   * versions a runner could not resolve.
   */
  version(slug: string, version: string): LaunchableVersion | null;
  caseExists(slug: string): boolean;
}

/**
 * Reads what ingest stored: the `test_case_versions` index and each version's
 * `resolved.json`, cached per store directory. A directory is never rewritten once
 * committed (a re-ingest writes a new one and moves the index), so the cache cannot go
 * stale; a read that fails (a transient I/O error, too many open files) is not cached, so
 * the next launch reads again. Reads are synchronous: they happen once per directory, and
 * enqueue stays one straight pass over its batch.
 */
export function sqliteLaunchCatalog(db: Database, options: { includeExperimental: boolean }): LaunchCatalog {
  const storeDir = db.prepare<[string, string], string>('SELECT store_dir FROM test_case_versions WHERE slug = ? AND version = ?').pluck();
  const anyVersion = db.prepare<[string], number>('SELECT EXISTS (SELECT 1 FROM test_case_versions WHERE slug = ?)').pluck();
  const cache = new Map<string, LaunchableVersion | null>();

  /** Undefined when the file could not be read this time. */
  function read(dir: string): LaunchableVersion | null | undefined {
    let text: string;
    try {
      text = readFileSync(storeLayout(dir).resolvedJson, 'utf8');
    } catch {
      return undefined;
    }
    let stored: StoredVersion;
    try {
      stored = JSON.parse(text) as StoredVersion;
    } catch {
      return null;
    }
    if (stored.recordFormat !== RESOLVED_RECORD_FORMAT) return null;
    const { resolved } = stored;
    if (resolved.experimental && !options.includeExperimental) return null;
    return {
      engines: resolved.engines.map((engine) => engine.slug),
      variants: resolved.variants.map((variant) => variant.slug),
      testType: resolved.testType,
      maxRuntimeSeconds: resolved.maxRuntimeSeconds,
    };
  }

  return {
    version(slug, version) {
      const dir = storeDir.get(slug, version);
      if (!dir) return null;
      if (cache.has(dir)) return cache.get(dir)!;
      const launchable = read(dir);
      if (launchable === undefined) return null;
      if (cache.size > 1000) cache.clear();
      cache.set(dir, launchable);
      return launchable;
    },
    caseExists: (slug) => anyVersion.get(slug) === 1,
  };
}
