/**
 * Every environment variable a process of this repository reads, as data: docs/configuration.md
 * is generated from this table (`npm run docs`), and test/docs/config-variables.test.ts checks it
 * against the code: every variable loadConfig reads has an entry and every entry is read, and
 * setting a variable to its `default` here changes nothing in what loadConfig yields.
 * A new variable goes into loadConfig (src/config.ts) and here.
 */

/** The processes that read a variable: the API, `npm run worker`, the auth service, `npm start`'s supervisor, the `eval-backend` command, or the test suite and benchmarks. */
export type Reader = 'api' | 'worker' | 'auth' | 'supervisor' | 'cli' | 'tests' | 'benchmarks';

export type VariableGroup =
  | 'Addresses and folders'
  | 'Store'
  | 'Redis'
  | 'Accounts and access'
  | 'Files on several machines'
  | 'Outside services and public addresses'
  | 'Run jobs and uploads'
  | 'Model probes'
  | 'Catalog and rendering'
  | 'Background work'
  | 'Connections and streams'
  | 'Logs and metrics'
  | 'Command line'
  | 'Tests and benchmarks';

export interface EnvVariable {
  name: string;
  /** The value the process uses when the variable is unset, written as one would set it; null when unset means something no value says (see `unset`). */
  default: string | null;
  /** What unset means when `default` is null, in a few words. */
  unset?: string;
  readers: readonly Reader[];
  group: VariableGroup;
  /** What it does, for docs/configuration.md (Markdown, one short paragraph). */
  does: string;
  /** Where the variable is read when it is not read by loadConfig (checked by the test to mention it). */
  readIn?: string;
}

const SERVICES: readonly Reader[] = ['api', 'worker'];

export const ENV_VARIABLES: readonly EnvVariable[] = [
  // Addresses and folders
  { name: 'HOST', default: '127.0.0.1', readers: ['api', 'worker'], group: 'Addresses and folders', does: 'Address the API listens on (and a worker serves its metrics on).' },
  { name: 'PORT', default: '8787', readers: ['api'], group: 'Addresses and folders', does: 'Port the API listens on.' },
  { name: 'DATA_DIR', default: './data', readers: ['api', 'worker', 'auth', 'supervisor', 'cli'], group: 'Addresses and folders', does: 'Local folder of the process: the SQLite files, the managed Redis, pid files, the definition store and the snapshot (without `BLOB_STORE_URL`). Relative paths are read from the working directory.' },
  { name: 'CATALOG_DIR', default: null, unset: '`./examples/catalog`, the bundled example catalog', readers: SERVICES, group: 'Addresses and folders', does: 'The catalog checkout `POST /ingest` scans. Only the processes that run the `ingest` queue need it. On a shared store (`DATABASE_URL` or `BLOB_STORE_URL` set) setting it is what makes a process run the `ingest` queue by default. A whole scan from another checkout than the store was ingested from is refused unless told `replaceCatalog`.' },

  // Store
  { name: 'DATABASE_URL', default: null, unset: 'SQLite in `DATA_DIR/backend.sqlite`', readers: ['api', 'worker', 'auth', 'cli'], group: 'Store', does: 'Moves the store to PostgreSQL (13 or newer): `postgres://user:password@host:port/database`, `postgresql://` too, a unix socket as `postgres://user@/database?host=/run/postgresql`. The API and workers migrate it at boot. The database must exist; `npm start` does not start PostgreSQL. The auth service keeps its accounts in the schema `auth_service` of the same database unless `AUTH_DATABASE_URL` is set. Never logged unmasked.' },
  { name: 'DATABASE_POOL_SIZE', default: '10', readers: ['api', 'worker', 'auth'], group: 'Store', does: 'With a PostgreSQL store: connections each API, worker and auth service process keeps open at most (1 to 1000). A request that finds them all busy waits for one. Add them up over every process, with 2 more per API and worker process for its statistics thread: the sum must stay under the server\'s `max_connections` (100 by default), with room for admin sessions. See [scaling out](scaling-out.md#connections-to-postgresql).' },
  { name: 'DISCARD_REDIS_OF_STORE', default: null, unset: 'a boot that finds another store\'s jobs in Redis is refused', readers: ['api'], group: 'Store', does: 'The store id (32 hex digits, or `none`) a refused boot named. When the Redis prefix belongs to that store, the boot deletes every key under the prefix and takes it for the present store. Good for one start. See [operations](operations.md#a-store-redis-does-not-know).' },

  // Redis
  { name: 'REDIS_URL', default: null, unset: '`npm start` runs a managed `redis-server` under `DATA_DIR/redis`', readers: ['api', 'worker', 'supervisor'], group: 'Redis', does: '`redis://host:port/db`, `rediss://…` or `redis+unix:///path.sock`. Required on every machine of a several-machine deployment. Set `hash-max-ziplist-value 512` on a Redis of your own (the managed one has it): a queued job then takes about half the memory.' },
  { name: 'REDIS_PREFIX', default: 'evb', readers: SERVICES, group: 'Redis', does: 'Prefix of every queue and key this deployment writes in Redis (letters, digits, `_ . -`, at most 64). One value for the whole deployment.' },

  // Accounts and access
  { name: 'AUTH_URL', default: null, unset: '`npm start` runs the bundled auth service on `AUTH_PORT`', readers: ['api', 'supervisor'], group: 'Accounts and access', does: 'Base URL of the auth service.' },
  { name: 'AUTH_HOST', default: '127.0.0.1', readers: ['auth'], group: 'Accounts and access', does: 'Address the auth service listens on.', readIn: 'src/auth/server.ts' },
  { name: 'AUTH_PORT', default: '8789', readers: ['auth', 'supervisor'], group: 'Accounts and access', does: 'Port the auth service listens on.' },
  { name: 'AUTH_DATABASE_URL', default: null, unset: 'see the text', readers: ['auth', 'cli'], group: 'Accounts and access', does: 'A PostgreSQL database of the auth service\'s own (never the backend\'s: the auth service refuses a database the backend migrated). Unset with `DATABASE_URL` set: the schema `auth_service` of that database, unless `DATA_DIR/auth.sqlite` already exists (accounts made before the switch stay there). Unset otherwise: `DATA_DIR/auth.sqlite`. The auth service logs which it uses.' },
  { name: 'AUTH_CACHE_SECONDS', default: '5', readers: ['api'], group: 'Accounts and access', does: 'How long the API reuses a positive token check (0 to 3600). A logout takes effect within this bound; `0` asks every time.' },
  { name: 'AUTH_TOKEN_LIFETIME_HOURS', default: null, unset: 'tokens do not expire', readers: ['auth'], group: 'Accounts and access', does: 'Lifetime of the tokens the auth service issues, in hours (fractions allowed).' },
  { name: 'AUTH_RELAY_TOKEN', default: null, unset: '`npm start` mints one for each start of the bundled auth service', readers: ['api', 'auth', 'supervisor'], group: 'Accounts and access', does: 'Secret the API and the auth service share. With it, a queue-dashboard login is throttled by the browser\'s address instead of the API\'s. With `AUTH_URL` set, give both services the same value.' },
  { name: 'SERVICE_TOKEN', default: null, unset: 'every claim is refused with 401', readers: ['api'], group: 'Accounts and access', does: 'Bearer token dispatchers present to `POST /jobs/next`.' },
  { name: 'REGISTRATION', default: 'open', readers: ['auth'], group: 'Accounts and access', does: '`open`: anyone who reaches the auth service may make an account. `closed`: `POST /auth/register` answers 403 and accounts are made with `eval-backend accounts add`.' },
  { name: 'OPERATOR_ACCOUNTS', default: null, unset: 'every account may do operator actions', readers: ['api'], group: 'Accounts and access', does: 'Comma-separated usernames (matched without case) that alone may do operator actions; others get 403 `forbidden`. The list of actions is in [the HTTP API page](http-api.md#access).' },

  // Files on several machines
  { name: 'BLOB_STORE_URL', default: null, unset: 'files under `DATA_DIR` (and `SNAPSHOT_DIR`)', readers: SERVICES, group: 'Files on several machines', does: '`s3://<bucket>/<prefix>`: ingested versions, rendered references, showcase uploads and the snapshot live in that bucket, which every machine shares. The bucket must exist. See [scaling out](scaling-out.md#the-blob-store).' },
  { name: 'AWS_ENDPOINT_URL', default: null, unset: 'AWS itself', readers: SERVICES, group: 'Files on several machines', does: 'With `BLOB_STORE_URL`: the address of an S3-compatible server (MinIO, s3rver), addressed path-style.' },
  { name: 'AWS_REGION', default: 'us-east-1', readers: SERVICES, group: 'Files on several machines', does: 'With `BLOB_STORE_URL`: the bucket\'s region.' },
  { name: 'AWS_ACCESS_KEY_ID', default: null, unset: 'the AWS SDK\'s default chain (profile, instance or task role)', readers: SERVICES, group: 'Files on several machines', does: 'With `BLOB_STORE_URL` and `AWS_SECRET_ACCESS_KEY`: the bucket\'s credentials. Never logged.' },
  { name: 'AWS_SECRET_ACCESS_KEY', default: null, unset: 'the AWS SDK\'s default chain', readers: SERVICES, group: 'Files on several machines', does: 'The secret of `AWS_ACCESS_KEY_ID`. Never logged.' },
  { name: 'AWS_SESSION_TOKEN', default: null, unset: 'none', readers: SERVICES, group: 'Files on several machines', does: 'A session token to go with the two keys above.' },

  // Outside services and public addresses
  { name: 'ARTIFACTS_URL', default: null, unset: 'publishing is local, with the record\'s own links', readers: SERVICES, group: 'Outside services and public addresses', does: 'Artifact service base URL, reported by `/config`. A publish then releases through `POST /runs/{id}/release` there, and its links become the run\'s.' },
  { name: 'ARTIFACTS_SERVICE_TOKEN', default: null, unset: 'a run delete prunes nothing there', readers: SERVICES, group: 'Outside services and public addresses', does: 'Token presented to the artifact service. With it, a run delete also prunes `DELETE /runs/{id}/artifacts`.' },
  { name: 'ARENA_URL', default: null, unset: 'not reported', readers: ['api'], group: 'Outside services and public addresses', does: 'Public address of the arena service, reported by `/config`.' },
  { name: 'DASHBOARD_URL', default: null, unset: 'not reported', readers: ['api'], group: 'Outside services and public addresses', does: 'Public dashboard address, reported by `/config` as `dashboardUrl`.' },
  { name: 'SNAPSHOT_URL', default: null, unset: 'not reported, not served', readers: ['api'], group: 'Outside services and public addresses', does: 'Public address of the snapshot, reported by `/config`. When its path is not `/` (`http://host:8787/snapshot/`), the API also serves the snapshot read-only under that path.' },
  { name: 'SNAPSHOT_DIR', default: null, unset: '`DATA_DIR/snapshot`', readers: SERVICES, group: 'Outside services and public addresses', does: 'Where the public snapshot is written when files live under `DATA_DIR`. See [the snapshot](http-api.md#the-public-snapshot).' },
  { name: 'SNAPSHOT_DEPLOY_HOOK', default: null, unset: 'nothing is called', readers: SERVICES, group: 'Outside services and public addresses', does: 'URL POSTed `{ runs, generatedAt }` after each snapshot refresh.' },
  { name: 'ROUTER_BASE_URL', default: 'https://openrouter.ai', readers: SERVICES, group: 'Outside services and public addresses', does: 'The OpenRouter-compatible routing provider: rates, endpoints, probes.' },
  { name: 'ROUTER_API_KEY', default: null, unset: 'probes answer 503 `router_key_missing`', readers: SERVICES, group: 'Outside services and public addresses', does: 'The deployment\'s routing-provider key (rate lookups, probes).' },
  { name: 'LOGO_BASE_URL', default: null, unset: 'logo fetches are refused', readers: ['api'], group: 'Outside services and public addresses', does: 'The public logo library `POST /models/logo` and an entry\'s `providerLogoUrl` fetch from.' },

  // Run jobs and uploads
  { name: 'DISPATCH_LEASE_SECONDS', default: '300', readers: SERVICES, group: 'Run jobs and uploads', does: 'A claimed job with no driver report within this many seconds is failed, freeing its harness-cap and game-jam slots. `0` turns the lease off.' },
  { name: 'RUNTIME_GRACE_SECONDS', default: '600', readers: SERVICES, group: 'Run jobs and uploads', does: 'A starting or running job is failed once it runs this many seconds past its `maxRuntimeSeconds` (the launch\'s, else its version\'s), counted from the driver\'s first report.' },
  { name: 'REAP_ORPHANED_JOBS', default: 'false', readers: ['api'], group: 'Run jobs and uploads', does: 'At boot, fail every job a previous process left dispatched, starting or running. Only for a single box whose dispatchers and drivers die with the backend; never with several API processes or drivers that outlive the API.' },
  { name: 'SHOWCASE_UPLOAD_MAX_MIB', default: '256', readers: ['api'], group: 'Run jobs and uploads', does: 'Largest showcase file a driver may upload, in MiB (fractions allowed); larger bodies get 413.' },
  { name: 'SHOWCASE_JOB_MAX_FILES', default: '100', readers: ['api'], group: 'Run jobs and uploads', does: 'Showcase uploads one job may make in all (1 to 100,000); a replaced file counts too.' },
  { name: 'SHOWCASE_JOB_MAX_MIB', default: '1024', readers: ['api'], group: 'Run jobs and uploads', does: 'Showcase bytes one job may upload in all, in MiB; an upload that would pass it gets 413 and is not kept.' },

  // Model probes
  { name: 'PROBE_CONCURRENCY', default: '4', readers: SERVICES, group: 'Model probes', does: 'Calls one model probe keeps in flight at the routing provider (1 to 64).' },
  { name: 'PROBE_CALL_TIMEOUT_SECONDS', default: '300', readers: SERVICES, group: 'Model probes', does: 'Budget of one probe call, in seconds; a call over it is voided.' },
  { name: 'PROBE_MAX_RETRIES', default: '5', readers: SERVICES, group: 'Model probes', does: 'Retries of a probe call answered 429, each after its `Retry-After` (at most 60 s; 1 s, 2 s, 4 s … without one).' },

  // Catalog and rendering
  { name: 'CHROMIUM_PATH', default: null, unset: '`/usr/bin/chromium`, `chromium-browser`, `google-chrome` and `google-chrome-stable` are probed', readers: ['api', 'worker', 'supervisor'], group: 'Catalog and rendering', does: 'Chromium binary that renders mockups. The bootstrap skips installing Chromium when it is set.' },
  { name: 'RENDER_THREADS', default: '2', readers: SERVICES, group: 'Catalog and rendering', does: 'Worker threads that render mockups, each with one Chromium.' },
  { name: 'ALLOW_EXPERIMENTAL', default: 'false', readers: ['api'], group: 'Catalog and rendering', does: 'Serve and launch test-case versions marked experimental.' },

  // Background work
  { name: 'RUN_WORKERS', default: 'true', readers: ['api'], group: 'Background work', does: 'Run the background queue workers inside the API process. Set `false` when `npm run worker` processes take that work.' },
  { name: 'WORKER_QUEUES', default: null, unset: '`ingest,publish,probes,snapshot,billed-rates,stale-jobs`, without `ingest` on a shared store when `CATALOG_DIR` is unset', readers: SERVICES, group: 'Background work', does: 'The background queues this process runs workers for (with `RUN_WORKERS`, and in `npm run worker`): a comma-separated list, each once. A queue no process lists keeps its jobs waiting. A shared store is one with `DATABASE_URL` or `BLOB_STORE_URL` set.' },

  // Connections and streams
  { name: 'TRUST_PROXY', default: 'false', readers: ['api'], group: 'Connections and streams', does: 'Whose `X-Forwarded-For` names the client, for per-client limits (`STREAMS_PER_CLIENT`) and request logs. `false`: nobody\'s, the client is whoever opened the connection. Behind a load balancer set its addresses or CIDRs (`10.0.0.0/8,fd00::/8`), or the number of proxies in front (`1`); `true` trusts any peer, so only where nothing else can reach the API. Unset behind a balancer, every client counts as the balancer and shares one limit.' },
  { name: 'CORS_ORIGINS', default: '*', readers: ['api', 'auth'], group: 'Connections and streams', does: 'Origins whose pages may call the API and the auth service from a browser: `*` or a comma-separated list of bare origins (`https://console.example,http://localhost:5173`).' },
  { name: 'REQUEST_TIMEOUT_SECONDS', default: '60', readers: ['api'], group: 'Connections and streams', does: 'A request not received whole within this many seconds is answered 408 `request_timeout` and closed (headers alone get at most 60 s). Raise it for large uploads over slow links.' },
  { name: 'WRITE_STALL_TIMEOUT_SECONDS', default: '30', readers: ['api'], group: 'Connections and streams', does: 'A connection whose client has taken none of what was written for this many seconds is closed (a console, an NDJSON follower, a large answer nobody reads). A request that is only slow to compute is not affected.' },
  { name: 'STREAMS_PER_CLIENT', default: '32', readers: ['api'], group: 'Connections and streams', does: 'Open streams one client address may hold (`GET /notifications`, the NDJSON follows, `POST /ingest` while it follows); one more answers 429 with `Retry-After: 5`. Behind a load balancer set `TRUST_PROXY` so each client is counted by the address the balancer names.' },
  { name: 'STREAMS_TOTAL', default: '512', readers: ['api'], group: 'Connections and streams', does: 'Open streams one API process holds in all; one more answers 503 `too_many_streams` with `Retry-After: 5`.' },
  { name: 'PUBLIC_BLOB_STREAMS', default: '64', readers: ['api'], group: 'Connections and streams', does: 'Public media downloads (`GET /runs/{id}/showcase/{file}`, snapshot files) one API process streams at once, each over a bucket socket of a pool of its own, so slow readers never take the sockets driver uploads and definition fetches use. They also count against `STREAMS_PER_CLIENT` and `STREAMS_TOTAL`; one more answers 503 `too_many_streams` with `Retry-After: 5`. A `HEAD` reads only metadata and holds no stream.' },

  // Logs and metrics
  { name: 'LOG_LEVEL', default: 'info', readers: ['api', 'worker', 'auth', 'supervisor'], group: 'Logs and metrics', does: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. At `info` every request is logged except `POST /jobs/next`, which logs only its failures.' },
  { name: 'METRICS_PORT', default: null, unset: 'a worker serves no metrics', readers: ['worker'], group: 'Logs and metrics', does: '`npm run worker` only: serve that process\'s Prometheus metrics at `http://HOST:METRICS_PORT/metrics`. The API always serves `GET /metrics`.' },
  { name: 'QUEUE_DASHBOARD', default: 'false', readers: ['api'], group: 'Logs and metrics', does: 'Mount the BullMQ dashboard at `/admin/queues`, behind HTTP Basic checked by the auth service.' },

  // Command line
  { name: 'EVAL_BACKEND_URL', default: 'http://127.0.0.1:8787', readers: ['cli'], group: 'Command line', does: 'The service `eval-backend` talks to, unless `--url` is given.', readIn: 'src/cli/main.ts' },
  { name: 'CI', default: null, unset: 'a progress bar on a terminal', readers: ['cli'], group: 'Command line', does: 'Set to anything but `false` or `0`: `eval-backend ingest` prints one plain line per version even on a terminal.', readIn: 'src/cli/cli-io.ts' },

  // Tests and benchmarks
  { name: 'TEST_STORE', default: 'sqlite', readers: ['tests'], group: 'Tests and benchmarks', does: 'The engine a vitest run uses, `sqlite` or `postgres`. `npm test` sets it for each half; `--store` picks one half.', readIn: 'test/helpers/test-backend.ts' },
  { name: 'TEST_FAILURES_FILE', default: null, unset: 'failed tests are only printed', readers: ['tests'], group: 'Tests and benchmarks', does: 'A file the test summary appends one line per failed test to; `npm test` sets one per engine and repeats both at the end of its log.', readIn: 'test/helpers/summary-reporter.ts' },
  { name: 'FUZZ_RUNS', default: '500', readers: ['tests'], group: 'Tests and benchmarks', does: 'Requests the route fuzzer sends to the backend.', readIn: 'test/api/route-fuzz.test.ts' },
  { name: 'FUZZ_SEED', default: null, unset: 'a fresh seed, printed on failure', readers: ['tests'], group: 'Tests and benchmarks', does: 'Replays a route-fuzz run with the seed a failure printed.', readIn: 'test/api/route-fuzz.test.ts' },
  { name: 'UPDATE_STORE_SCHEMA', default: null, unset: 'the test only compares', readers: ['tests'], group: 'Tests and benchmarks', does: '`UPDATE_STORE_SCHEMA=1 npm test -- test/db/store-schema.test.ts` rewrites the store\'s TypeScript schema from the migrations.', readIn: 'test/db/store-schema.test.ts' },
  { name: 'BENCH_CATALOG', default: null, unset: '`../shared/fixtures/catalog` when present, else `examples/catalog`', readers: ['benchmarks'], group: 'Tests and benchmarks', does: 'The catalog checkout the `ingest-rescan` benchmark scans.', readIn: 'bench/ingest-rescan.ts' },
  { name: 'PROFILE_DISPATCHERS', default: '1', readers: ['benchmarks'], group: 'Tests and benchmarks', does: 'Dispatchers of the `claim-profile` benchmark.', readIn: 'bench/claim-profile.ts' },
];

export const ENV_VARIABLE_NAMES: ReadonlySet<string> = new Set(ENV_VARIABLES.map((variable) => variable.name));
