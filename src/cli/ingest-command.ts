import { execFileSync } from 'node:child_process';
import { SingleBar } from 'cli-progress';
import { EXIT, UnusableError, wantsPlainOutput, type CliIo } from './cli-io.js';
import { bodyLines, callService, serviceUrl } from './service-client.js';
import { formatTable } from './format-table.js';

export interface IngestOptions {
  url: string;
  /** A token, `false` (--no-catalog-version), or undefined: the checkout's `git rev-parse HEAD`. */
  catalogVersion?: string | false;
  force?: boolean;
  /** --replace-catalog: a whole scan from another checkout, or pruning most of the catalog, goes ahead. */
  replaceCatalog?: boolean;
  case?: string[];
}

/** A `version` line as the service streams it; fields added by newer services are read when present. */
interface VersionLine {
  event: 'version';
  index: number;
  total: number;
  slug: string;
  version: string;
  ingested: boolean;
  renderedReferences: number;
  error?: string;
  blockedUrls?: unknown[];
  warnings?: unknown[];
}

type Line =
  | { event: 'start'; total: number }
  | VersionLine
  | { event: 'done'; total: number; ingested: number; skipped: number; failed?: number; pruned?: unknown }
  | { event: 'error'; message: string };

interface Tally {
  ingested: number;
  skipped: number;
  failed: VersionLine[];
  renderedReferences: number;
  blockedUrls: number;
  warnings: number;
}

/**
 * `eval-backend ingest`: one `POST /ingest` with NDJSON progress. A progress bar on a
 * terminal, one line per version otherwise; a summary table at the end; exit 0 when every
 * version ingested or was unchanged, 1 when one failed or the scan aborted.
 */
export async function ingestCommand(options: IngestOptions, io: CliIo): Promise<number> {
  const base = serviceUrl(options.url);
  const body = requestBody(options, io);
  const response = await callService(base, '/ingest', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
    body: JSON.stringify(body),
    signal: io.signal,
    // A full re-render can take minutes; the stream itself shows progress.
    timeoutMs: 24 * 60 * 60 * 1000,
  });

  const plain = wantsPlainOutput(io);
  const out = io.stdout;
  if (plain) out.write(`Ingesting ${describeRequest(body)} at ${base.origin}\n`);
  const bar = plain ? null : new SingleBar({ stream: out, format: ' {bar} {value}/{total} {current}', hideCursor: true, clearOnComplete: true });
  const tally: Tally = { ingested: 0, skipped: 0, failed: [], renderedReferences: 0, blockedUrls: 0, warnings: 0 };
  let done: Extract<Line, { event: 'done' }> | null = null;
  let aborted: string | null = null;

  try {
    for await (const text of bodyLines(response)) {
      if (text.trim() === '') continue;
      const line = JSON.parse(text) as Line;
      if (line.event === 'start') bar?.start(line.total, 0, { current: '' });
      else if (line.event === 'version') {
        count(tally, line);
        if (bar) bar.update(line.index + 1, { current: `${line.slug}@${line.version}` });
        else out.write(`${versionLine(line)}\n`);
      } else if (line.event === 'done') done = line;
      else if (line.event === 'error') aborted = line.message;
    }
  } finally {
    bar?.stop();
  }

  for (const line of tally.failed) io.stderr.write(`FAILED ${line.slug}@${line.version}: ${line.error ?? 'not ingested'}\n`);
  if (aborted !== null) io.stderr.write(`The scan aborted: ${aborted}\n`);
  else if (done === null) io.stderr.write('The service closed the stream before the scan finished.\n');
  out.write(`${summary(tally, done)}\n`);
  return aborted !== null || done === null || tally.failed.length > 0 ? EXIT.failed : EXIT.ok;
}

function requestBody(options: IngestOptions, io: CliIo) {
  const body: RequestBody = {};
  if (options.force) body.force = true;
  if (options.replaceCatalog) body.replaceCatalog = true;
  if (options.case && options.case.length > 0) body.testCases = options.case;
  // A partial scan leaves the marker alone, so a token would only mislead the reader.
  else if (options.catalogVersion !== false) {
    const token = options.catalogVersion ?? gitHead(io.cwd);
    if (token !== undefined) body.catalogVersion = token;
  }
  if (body.catalogVersion === '') throw new UnusableError('--catalog-version must not be empty.');
  return body;
}

/** The commit checked out in `cwd`, or undefined outside a git work tree. */
function gitHead(cwd: string): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

type RequestBody = { force?: boolean; replaceCatalog?: boolean; catalogVersion?: string; testCases?: string[] };

function describeRequest(body: RequestBody): string {
  const what = body.testCases ? body.testCases.join(', ') : 'the whole catalog';
  const how = [body.force ? 'forced' : null, body.replaceCatalog ? 'replacing the stored catalog' : null, body.catalogVersion ? `catalog version ${body.catalogVersion}` : null].filter(Boolean);
  return how.length > 0 ? `${what} (${how.join(', ')})` : what;
}

function count(tally: Tally, line: VersionLine) {
  if (line.ingested) tally.ingested += 1;
  else if (line.error !== undefined) tally.failed.push(line);
  else tally.skipped += 1;
  tally.renderedReferences += line.renderedReferences;
  tally.blockedUrls += line.blockedUrls?.length ?? 0;
  tally.warnings += line.warnings?.length ?? 0;
}

function versionLine(line: VersionLine): string {
  const name = `${line.slug}@${line.version}`;
  const position = `[${line.index + 1}/${line.total}]`;
  if (line.error !== undefined) return `${position} failed    ${name}: ${line.error}`;
  const extras = [
    line.ingested ? `${line.renderedReferences} rendered reference${line.renderedReferences === 1 ? '' : 's'}` : null,
    line.blockedUrls?.length ? `${line.blockedUrls.length} blocked URL${line.blockedUrls.length === 1 ? '' : 's'}` : null,
    line.warnings?.length ? `${line.warnings.length} warning${line.warnings.length === 1 ? '' : 's'}` : null,
  ].filter(Boolean);
  return `${position} ${line.ingested ? 'ingested' : 'unchanged'} ${name}${extras.length ? ` (${extras.join(', ')})` : ''}`;
}

function summary(tally: Tally, done: Extract<Line, { event: 'done' }> | null): string {
  const pruned = Array.isArray(done?.pruned) ? done.pruned.length : typeof done?.pruned === 'number' ? done.pruned : null;
  return formatTable(
    ['ingested', 'skipped', 'failed', 'pruned', 'rendered references', 'blocked URLs', 'warnings'],
    [[tally.ingested, tally.skipped, tally.failed.length, pruned ?? '-', tally.renderedReferences, tally.blockedUrls, tally.warnings].map(String)],
  );
}
