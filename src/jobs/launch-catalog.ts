import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../db/open-database.js';

/** What enqueue needs to know about an ingested test case version. */
export interface LaunchableVersion {
  /** Engine slugs the version declares (`none` is always launchable). */
  engines: string[];
  /** Variant slugs the version declares. */
  variants: string[];
  testType: string;
  maxRuntimeSeconds: number;
}

/**
 * The catalog as the run queue sees it. The catalog area owns the real one; the default
 * below reads what ingest wrote (`test_case_versions` rows and each version's resolved.json).
 */
export interface LaunchCatalog {
  /** Null when the version was never ingested (or cannot be read by this build). */
  version(slug: string, version: string): LaunchableVersion | null;
  caseExists(slug: string): boolean;
}

interface ResolvedRecord {
  engines?: Array<{ slug: string }>;
  variants?: Array<{ slug: string }>;
  testType?: string;
  maxRuntimeSeconds?: number;
}

/** Reads `<store_dir>/resolved.json` of each ingested version, cached per store directory (a re-ingest swaps it). */
export function sqliteLaunchCatalog(db: Database): LaunchCatalog {
  const storeDir = db.prepare<[string, string], string>('SELECT store_dir FROM test_case_versions WHERE slug = ? AND version = ?').pluck();
  const anyVersion = db.prepare<[string], number>('SELECT EXISTS (SELECT 1 FROM test_case_versions WHERE slug = ?)').pluck();
  const cache = new Map<string, LaunchableVersion | null>();

  function read(dir: string): LaunchableVersion | null {
    try {
      const record = JSON.parse(readFileSync(join(dir, 'resolved.json'), 'utf8')) as ResolvedRecord;
      return {
        engines: (record.engines ?? []).map((engine) => engine.slug),
        variants: (record.variants ?? []).map((variant) => variant.slug),
        testType: record.testType ?? 'end-to-end',
        maxRuntimeSeconds: record.maxRuntimeSeconds ?? 3600,
      };
    } catch {
      return null;
    }
  }

  return {
    version(slug, version) {
      const dir = storeDir.get(slug, version);
      if (!dir) return null;
      if (!cache.has(dir)) {
        if (cache.size > 1000) cache.clear();
        cache.set(dir, read(dir));
      }
      return cache.get(dir)!;
    },
    caseExists: (slug) => anyVersion.get(slug) === 1,
  };
}
