import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CatalogIndex, IndexedVersion, VersionId } from './catalog-index.js';
import { readStoredVersion, type DefinitionStore, type RenderTarget } from './definition-store.js';
import { readGroups } from './read-groups.js';
import { readVersion } from './read-version.js';
import { RESOLVED_RECORD_FORMAT } from './record-format.js';
import { scanCheckout, type FoundVersion, type ScanProblem } from './scan-checkout.js';
import { selectVersions } from './select-versions.js';
import { toPosix } from './version-folder.js';
import { contentHash, statFingerprint } from './version-hash.js';
import type { KeyWarning } from './toml-fields.js';
import type { StoreMeta } from '../db/store-meta.js';
import { guardWholeScan } from './ingest-guard.js';

export interface IngestRequest {
  force?: boolean;
  /** A whole scan from another checkout, or one pruning most of the catalog, goes ahead (src/catalog/ingest-guard.ts). */
  replaceCatalog?: boolean;
  catalogVersion?: string;
  testCases?: string[];
}

/** One line of the NDJSON progress stream. */
export type IngestEvent =
  | { event: 'start'; total: number }
  | ({ event: 'version'; index: number; total: number } & VersionLine)
  | { event: 'done'; total: number; ingested: number; skipped: number; failed: number; pruned: VersionId[] }
  | { event: 'error'; message: string };

/** What became of one version. */
export interface VersionLine {
  slug: string;
  version: string;
  ingested: boolean;
  renderedReferences: number;
  /** Why the version could not be ingested; its previous stored copy is kept. */
  error?: string;
  /** What its mockups asked for and were refused (network, files outside the version), per mockup, when any. */
  blockedUrls?: BlockedUrl[];
  /** Keys its manifest or variant files hold that the format does not define (ignored), when any. */
  warnings?: KeyWarning[];
}

/** One refused request of one mockup: the reference's view, its HTML file and the URL. */
export interface BlockedUrl {
  view: string;
  file: string;
  url: string;
}

/** `ingested + skipped + failed = total`: a failed version is not also a skipped one. */
export interface IngestReport {
  testCaseVersions: VersionLine[];
  total: number;
  ingested: number;
  skipped: number;
  failed: number;
  pruned: VersionId[];
}

/** Selectors that name nothing in the checkout: the request is wrong, not the catalog. */
export class UnknownSelectorError extends Error {
  constructor(readonly selectors: string[]) {
    super(`testCases names nothing in the catalog: ${selectors.join(', ')}.`);
    this.name = 'UnknownSelectorError';
  }
}

export interface IngestDeps {
  catalogDir: string;
  index: CatalogIndex;
  meta: StoreMeta;
  store: DefinitionStore;
  /**
   * Renders one mockup into `target.outFile`; `rootDir` bounds what the page may load.
   * Resolves with the URLs the page asked for and was refused.
   */
  render(target: RenderTarget, rootDir: string): Promise<string[]>;
  /** Called once when the scan re-ingested anything (queues the snapshot refresh). */
  onReingested(): Promise<void>;
}

/**
 * One ingest scan, as the contract's Ingest rules say: copy new or changed versions into the
 * store and render their references, prune what a whole-catalog scan no longer finds (unless
 * a run references it), keep the `catalogVersion` marker, and promote a scan over a store of
 * another record format to a forced whole-catalog scan.
 */
export async function runIngestScan(deps: IngestDeps, request: IngestRequest, emit: (event: IngestEvent) => void): Promise<IngestReport> {
  const { index, meta, store } = deps;
  const stamped = await meta.get('record_format');
  const otherFormat = (stamped !== null && Number(stamped) !== RESOLVED_RECORD_FORMAT) || (await index.hasOtherFormats(RESOLVED_RECORD_FORMAT));
  const whole = otherFormat || !request.testCases;
  const marker = await meta.get('catalog_version');
  const tokenGiven = whole && request.catalogVersion !== undefined;
  let force = Boolean(request.force) || otherFormat;

  if (tokenGiven && !force && request.catalogVersion === marker) return reuseStore(await index.all(), emit);
  // A changed or first-seen token means a different catalog: re-ingest all of it.
  if (tokenGiven && request.catalogVersion !== marker) force = true;

  // Scans run one at a time, so no staging folder is in use: any there is a crashed scan's.
  await store.sweepStaging();
  // Everything that can fail for the whole catalog is read before anything is changed.
  const scan = await scanCheckout(deps.catalogDir);
  const groups = whole ? (await readGroups(deps.catalogDir)).groups : null;
  let selected: FoundVersion[] = scan.versions;
  let problems: ScanProblem[] = scan.problems;
  if (!whole) {
    const selection = selectVersions(scan.versions, request.testCases!);
    problems = scan.problems.filter((problem) => request.testCases!.some((selector) => selects(selector, problem)));
    const unknown = selection.unknown.filter((selector) => !problems.some((problem) => selects(selector, problem)));
    if (unknown.length > 0) throw new UnknownSelectorError(unknown);
    selected = selection.selected;
  }
  // A whole scan from another checkout, or one pruning most of the catalog, stops here unless told.
  const prune = whole ? await pruneCandidates(deps, new Set(scan.versions.map((found) => `${found.slug}@${found.version}`)), problems) : [];
  const checkout = whole ? await guardWholeScan(deps, prune, request.replaceCatalog === true) : null;

  const total = selected.length + problems.length;
  emit({ event: 'start', total });
  const report: IngestReport = { testCaseVersions: [], total, ingested: 0, skipped: 0, failed: 0, pruned: [] };
  const record = (line: VersionLine) => {
    if (line.error !== undefined) report.failed++;
    else if (line.ingested) report.ingested++;
    else report.skipped++;
    emit({ event: 'version', index: report.testCaseVersions.length, total, ...line });
    report.testCaseVersions.push(line);
  };
  for (const found of selected) {
    try {
      const rendered = await ingestVersion(deps, found, force);
      const line: VersionLine = { slug: found.slug, version: found.version, ingested: rendered !== null, renderedReferences: rendered?.references ?? 0 };
      if (rendered && rendered.blockedUrls.length > 0) line.blockedUrls = rendered.blockedUrls;
      if (rendered && rendered.warnings.length > 0) line.warnings = rendered.warnings;
      record(line);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      record({ slug: found.slug, version: found.version, ingested: false, renderedReferences: 0, error: message });
    }
  }
  for (const problem of problems) {
    record({ slug: problem.slug, version: problem.version, ingested: false, renderedReferences: 0, error: problem.error.message });
  }

  const format = ['record_format', String(RESOLVED_RECORD_FORMAT)] as const;
  if (whole) {
    const recorded = ['catalog_checkout', JSON.stringify(checkout)] as const;
    const markers = request.catalogVersion === undefined ? [format, recorded] : [['catalog_version', request.catalogVersion] as const, format, recorded];
    report.pruned = await index.endScan({ prune, groups, meta: markers });
    // Their rows are gone: a crash from here leaves directories nothing points at, never the reverse.
    for (const version of report.pruned) await store.removeVersion(version.slug, version.version);
  } else if (stamped === null) {
    await meta.set(...format);
  }
  if (report.ingested > 0 || report.pruned.length > 0) await deps.onReingested();
  emit({ event: 'done', total, ingested: report.ingested, skipped: report.skipped, failed: report.failed, pruned: report.pruned });
  return report;
}

/**
 * A refused file URL is reported relative to the mockup's folder (`../../secrets.css`), as
 * its author wrote it: the absolute path is one inside the store's staging folder, which
 * means nothing to the author and says where DATA_DIR is.
 */
function asWritten(url: string, htmlFile: string): string {
  if (!url.startsWith('file:')) return url;
  try {
    return toPosix(relative(dirname(htmlFile), fileURLToPath(url)));
  } catch {
    return url;
  }
}

/** Whether an ingest selector (`id` or `id@version`) names a version folder the scan could not use. */
function selects(selector: string, problem: ScanProblem): boolean {
  const at = selector.lastIndexOf('@');
  const id = at === -1 ? selector : selector.slice(0, at);
  return id === problem.slug && (at === -1 || selector.slice(at + 1) === problem.version);
}

/** Ingests one version; null when it was unchanged (a no-op), else what rendering its references found. */
async function ingestVersion(
  deps: IngestDeps,
  found: FoundVersion,
  force: boolean,
): Promise<{ references: number; blockedUrls: BlockedUrl[]; warnings: KeyWarning[] } | null> {
  const { index, store } = deps;
  const stored = await index.get(found.slug, found.version);
  const current = stored !== null && stored.recordFormat === RESOLVED_RECORD_FORMAT;
  const fingerprint = await statFingerprint(found.dir, deps.catalogDir);
  if (!force && current && stored.fingerprint === fingerprint) return null;
  const hash = await contentHash(found.dir, deps.catalogDir);
  if (!force && current && stored.contentHash === hash) {
    // Touched but not changed (a fresh checkout resets mtimes): remember the new fingerprint.
    await index.setFingerprint(found.slug, found.version, fingerprint);
    return null;
  }

  const read = await readVersion(deps.catalogDir, found.dir);
  const staged = await store.stage({ read, sourceDir: found.dir, sourceRelDir: found.relDir, checkoutRoot: deps.catalogDir, contentHash: hash, fingerprint });
  let dir: string;
  let blocked: BlockedUrl[][];
  try {
    blocked = await Promise.all(staged.renderTargets.map(async (target) => {
      const urls = await deps.render(target, staged.dir);
      return [...new Set(urls.map((url) => asWritten(url, target.htmlFile)))].sort().map((url) => ({ view: target.view, file: target.source, url }));
    }));
    dir = await staged.commit();
  } catch (error) {
    await staged.discard();
    throw error;
  }
  await index.put({
    slug: read.record.slug,
    version: read.record.version,
    recordFormat: RESOLVED_RECORD_FORMAT,
    storeDir: dir,
    fingerprint,
    contentHash: hash,
    experimental: read.record.experimental === true,
    ingestedAt: new Date().toISOString(),
  });
  await store.removeStaleDirs(read.record.slug, read.record.version, dir);
  return { references: staged.renderTargets.length, blockedUrls: blocked.flat(), warnings: read.warnings };
}

/**
 * Rule 2: the stored versions the checkout no longer declares, unless the scan found their
 * folder but could not read it (`problems`): an unreadable manifest or a duplicate
 * slug@version is a broken checkout, not a deletion. One a run references is kept by `endScan`.
 */
async function pruneCandidates(deps: IngestDeps, declared: Set<string>, problems: ScanProblem[]): Promise<VersionId[]> {
  const unusable = new Set(problems.map((problem) => `${problem.slug}@${problem.version}`));
  const unusableDirs = new Set(problems.flatMap((problem) => problem.relDirs));
  const candidates: VersionId[] = [];
  for (const version of await deps.index.all()) {
    const key = `${version.slug}@${version.version}`;
    if (declared.has(key) || unusable.has(key)) continue;
    if (unusableDirs.size > 0) {
      const stored = await readStoredVersion(version.storeDir).catch(() => null);
      if (stored?.sourceRelDir !== undefined && unusableDirs.has(stored.sourceRelDir)) continue;
    }
    candidates.push({ slug: version.slug, version: version.version });
  }
  return candidates;
}

/** Rule 3: the marker says the store already holds this catalog; answer from the index alone. */
function reuseStore(versions: IndexedVersion[], emit: (event: IngestEvent) => void): IngestReport {
  const total = versions.length;
  emit({ event: 'start', total });
  const lines = versions.map((version, position) => {
    const line: VersionLine = { slug: version.slug, version: version.version, ingested: false, renderedReferences: 0 };
    emit({ event: 'version', index: position, total, ...line });
    return line;
  });
  emit({ event: 'done', total, ingested: 0, skipped: total, failed: 0, pruned: [] });
  return { testCaseVersions: lines, total, ingested: 0, skipped: total, failed: 0, pruned: [] };
}
