import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { storeLayout, type StoredVersion } from '../../src/catalog/definition-store.js';
import { RESOLVED_RECORD_FORMAT } from '../../src/catalog/record-format.js';
import type { ResolvedVersion } from '../../src/catalog/resolved-version.js';
import type { BackendStore } from '../../src/db/dialect.js';

export interface SeedVersion {
  slug: string;
  version: string;
  engines?: string[];
  variants?: string[];
  testType?: string;
  maxRuntimeSeconds?: number;
  experimental?: boolean;
  /** Functional domain ids a review rates (none by default). */
  domains?: string[];
  /**
   * Makes the version engine-format (validator-rated) with these checklist items, each capping
   * the domains it names at `failureCap` when it fails.
   */
  validatorChecklist?: Array<{ id: string; domains: string[]; failureCap: string }>;
}

/**
 * Writes ingested versions the way ingest leaves them: a typed `StoredVersion` in the store
 * layout and its `test_case_versions` row, so a change to either shape breaks this at compile time.
 */
export async function seedCatalog(store: BackendStore, dataDir: string, versions: SeedVersion[]): Promise<void> {
  for (const v of versions) {
    const dir = join(dataDir, 'store', v.slug, v.version);
    mkdirSync(dir, { recursive: true });
    const stored: StoredVersion = {
      recordFormat: RESOLVED_RECORD_FORMAT,
      slug: v.slug,
      version: v.version,
      contentHash: 'h',
      fingerprint: 'f',
      resolved: seededVersion(v),
      referencesToRender: [],
      staticReferences: [],
      showcaseDirs: {},
    };
    writeFileSync(storeLayout(dir).resolvedJson, JSON.stringify(stored));
    const row = { record_format: RESOLVED_RECORD_FORMAT, store_dir: dir, experimental: v.experimental === true ? 1 : 0, ingested_at: new Date().toISOString() };
    await store.db.insertInto('test_case_versions').values({ slug: v.slug, version: v.version, fingerprint: 'f', content_hash: 'h', ...row })
      .onConflict((oc) => oc.columns(['slug', 'version']).doUpdateSet(row)).execute();
  }
}

function seededVersion(v: SeedVersion): ResolvedVersion {
  return {
    slug: v.slug, version: v.version, name: v.slug, difficulty: 'easy', summary: '', testType: v.testType ?? 'end-to-end',
    assetKind: null, tags: [], description: '', changelog: '', experimental: v.experimental === true, maxRuntimeSeconds: v.maxRuntimeSeconds ?? 1800,
    engines: ['none', ...(v.engines ?? [])].map((slug) => ({ slug })), build: null, init: null, workspaces: [], workspace: {}, packages: [],
    promptTemplate: '', commonSpecs: [], assets: [], engineFormat: v.validatorChecklist !== undefined,
    domains: (v.domains ?? []).map((id) => ({ id, name: id, description: '' })), commonReferences: [], commonProofs: [],
    checks: [], errata: [],
    commonReviewItems: (v.validatorChecklist ?? []).map((item) => ({ id: item.id, title: item.id, text: '', weight: 1, subItems: [], domains: item.domains, failureCap: item.failureCap })),
    variants: (v.variants ?? ['base']).map((slug) => ({
      slug, name: slug, description: null, prompt: '', specs: [], references: [], proofs: [], reviewItems: [], domains: [],
      workspaces: null, workspace: {}, showcase: null,
    })),
  };
}

export interface SseClient {
  frames: EventSourceMessage[];
  /** SSE comment lines (keep-alives). */
  comments: string[];
  /** Resolves with the first frame (already received or upcoming) that matches. */
  next(match: (frame: EventSourceMessage) => boolean, timeoutMs?: number): Promise<EventSourceMessage>;
  streamId: Promise<string>;
  close(): void;
}

/** `GET /notifications` over a real socket, parsed with eventsource-parser. */
export async function openConsole(baseUrl: string): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}/notifications`, { signal: controller.signal });
  if (response.status !== 200) throw new Error(`GET /notifications answered ${response.status}`);
  const frames: EventSourceMessage[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const parser = createParser({
    onComment: (comment) => comments.push(comment),
    onEvent(frame) {
      frames.push(frame);
      for (const wake of waiters) wake();
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // aborted by close()
    }
  })();
  const next = (match: (frame: EventSourceMessage) => boolean, timeoutMs = 5000) =>
    new Promise<EventSourceMessage>((resolve, reject) => {
      let seen = 0;
      const check = () => {
        for (; seen < frames.length; seen++) {
          if (match(frames[seen]!)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(frames[seen]!);
            return;
          }
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${frames.map((f) => `${f.event}:${f.data}`).join(' | ')}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return {
    frames,
    comments,
    next,
    streamId: next((frame) => frame.event === 'stream').then((frame) => (JSON.parse(frame.data) as { streamId: string }).streamId),
    close: () => controller.abort(),
  };
}

/** Run events of one job, in arrival order, as `kind:state`. */
export function transitionsOf(client: SseClient, jobId: string): string[] {
  return client.frames
    .filter((frame) => frame.event === 'run')
    .map((frame) => JSON.parse(frame.data) as { kind: string; state: string; runId: string })
    .filter((event) => event.runId === jobId)
    .map((event) => `${event.kind}:${event.state}`);
}
