import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ProgressEntry, ScanErrorCode } from '../../../catalog/ingest-queue.js';
import { HttpError, ingestInterrupted } from '../../../errors.js';
import { NDJSON, streamNdjson } from '../../../http/ndjson-stream.js';
import { errorResponses } from '../../../contract/common.js';
import { IngestBody, IngestReportOut } from '../../../contract/ingest.js';


const ingestRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post('/ingest', {
    schema: { body: IngestBody, response: { 200: IngestReportOut, ...errorResponses(400, 404, 409, 429, 503) } },
    // The body is optional: a bare `curl -X POST /ingest` scans the whole catalog.
    preValidation: async (request) => {
      request.body ??= {};
    },
  }, async (request, reply) => {
    // Tracked from the start: shutdown or a client that leaves ends the follow, JSON answer or NDJSON.
    const signal = app.streams.track(request, reply);
    const progress = app.ingest.follow(request.body ?? {}, signal);
    // The first entry decides the status: a request naming unknown cases is refused before any 200.
    const first = (await progress.next()).value as ProgressEntry | undefined;
    if (!first) throw stopping();
    if (first.event === 'error') {
      await progress.return(undefined);
      throw scanError(first);
    }

    if (!(request.headers.accept ?? '').includes(NDJSON)) {
      let entry: ProgressEntry = first;
      for await (entry of progress) if (entry.event === 'report' || entry.event === 'error') break;
      if (entry.event === 'report') return entry.report;
      if (signal.aborted) throw stopping();
      throw entry.event === 'error' ? scanError(entry) : new HttpError('internal', 'The ingest scan failed: no report');
    }

    // Each line is flushed as its version finishes; a late failure, or the server stopping, is a closing error line.
    return streamNdjson(reply, progressLines(first, progress), signal, { stoppingLine: STOPPING_LINE });
  });
};

/** Answered, or the closing line of a progress stream, when the server shuts down before the scan's report. */
const STOPPING = 'The service is stopping, so this ingest is followed no further; send the request again once it is back.';
const STOPPING_LINE = { event: 'error', message: STOPPING } satisfies ProgressEntry;
const stopping = () => new HttpError('queue_unavailable', STOPPING);

/** The HTTP error of a scan's closing error line, before any 200 was sent: its code's, else a 500. */
function scanError(line: { message: string; code?: ScanErrorCode }): HttpError {
  if (line.code === 'ingest_interrupted') return ingestInterrupted(line.message);
  if (line.code !== undefined) return new HttpError(line.code, line.message);
  return new HttpError('internal', `The ingest scan failed: ${line.message}`);
}

/** The NDJSON lines of a scan: every progress entry but the closing report, which only the JSON answer carries. */
async function* progressLines(first: ProgressEntry, rest: AsyncGenerator<ProgressEntry>): AsyncGenerator<ProgressEntry> {
  yield first;
  for await (const entry of rest) {
    if (entry.event === 'report') return;
    yield entry;
    if (entry.event === 'error') return;
  }
}

export default ingestRoutes;
