/**
 * The one place background queue processors are registered. Each area adds a single import
 * of a module that calls `registerBackgroundProcessor` (ingest, render, publish, probes),
 * and every process that runs workers (the API process with RUN_WORKERS, `npm run worker`)
 * imports this file, so the two can never host different sets.
 *
 * Run jobs are not here: dispatchers claim them over HTTP (`POST /jobs/next`).
 */
export {};
