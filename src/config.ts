import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { USERNAME_MAX_LENGTH, USERNAME_PATTERN } from './auth/schemas.js';
import type { S3BlobOptions } from './blob/s3-blob-store.js';
import { BACKGROUND_QUEUES, type BackgroundQueue } from './queue/queue-keys.js';

export type BlobStoreConfig = { driver: 'fs' } | ({ driver: 's3' } & S3BlobOptions);

/**
 * The service's configuration: one schema over the environment, read once at boot.
 * Tests build a Config with `loadConfig({...})` and pass it explicitly.
 */
export interface Config {
  host: string;
  port: number;
  /** Absolute folder for SQLite files, the definition store, the managed Redis and the snapshot. */
  dataDir: string;
  /** DATABASE_URL: the PostgreSQL store (`postgres://…`); null (the default): SQLite under `dataDir`. May hold a password: never log it unmasked. */
  databaseUrl: string | null;
  /** DATABASE_POOL_SIZE: connections one process's PostgreSQL pool keeps at most (default 10; the auth service's too). */
  databasePoolSize: number;
  /** Absolute path of the catalog checkout `POST /ingest` scans. */
  catalogDir: string;
  /** Null: `npm start` runs a managed redis-server under `dataDir/redis`. */
  redisUrl: string | null;
  /** Key prefix for every BullMQ queue and Redis key of this deployment. */
  redisPrefix: string;
  /** Null: `npm start` runs the bundled auth service on `authPort`. */
  authUrl: string | null;
  authPort: number;
  /** How long a verified token is trusted without asking the auth service again (ms). */
  authCacheMs: number;
  /** Null: tokens never expire. */
  authTokenLifetimeMs: number | null;
  /** AUTH_DATABASE_URL: the auth service's own PostgreSQL database (never logged); null: its SQLite file `dataDir/auth.sqlite`. */
  authDatabaseUrl: string | null;
  serviceToken: string | null;
  /** AUTH_RELAY_TOKEN: shared by the backend and the auth service; a dashboard login relayed with it is throttled by the browser's address. */
  authRelayToken: string | null;
  /** REGISTRATION: `closed` leaves account making to the operator command (default `open`, as the contract has it). */
  registration: Registration;
  /** OPERATOR_ACCOUNTS: usernames that alone may do operator actions; empty (the default): every account may. */
  operatorAccounts: ReadonlySet<string>;
  artifactsUrl: string | null;
  artifactsServiceToken: string | null;
  arenaUrl: string | null;
  dashboardUrl: string | null;
  snapshotUrl: string | null;
  snapshotDir: string;
  snapshotDeployHook: string | null;
  /** Where ingested versions, references, showcase uploads and the snapshot live (BLOB_STORE_URL; default `fs` under DATA_DIR). */
  blobStore: BlobStoreConfig;
  /** Largest showcase file a driver may upload (bytes; SHOWCASE_UPLOAD_MAX_MIB, default 256 MiB). */
  showcaseUploadMaxBytes: number;
  /** Showcase uploads one job may make in all (SHOWCASE_JOB_MAX_FILES, default 100). */
  showcaseJobMaxFiles: number;
  /** Showcase bytes one job may upload in all (bytes; SHOWCASE_JOB_MAX_MIB, default 1024 MiB). */
  showcaseJobMaxBytes: number;
  routerBaseUrl: string;
  routerApiKey: string | null;
  logoBaseUrl: string | null;
  /** Calls one model probe keeps in flight at the routing provider (PROBE_CONCURRENCY). */
  probeConcurrency: number;
  /** Budget of one probe call, in ms (PROBE_CALL_TIMEOUT_SECONDS). */
  probeCallTimeoutMs: number;
  /** Retries of a probe call the routing provider answered 429 (PROBE_MAX_RETRIES). */
  probeMaxRetries: number;
  /** Null: auto-detected at first render. */
  chromiumPath: string | null;
  renderThreads: number;
  allowExperimental: boolean;
  /** Fail jobs left dispatched/starting/running by a previous process at boot (single-box deployments). */
  reapOrphanedJobs: boolean;
  /** The store id (or `none`) whose jobs a boot may drop from Redis, as a refused boot named it (src/runtime/store-identity.ts). */
  discardRedisOfStore: string | null;
  /** A dispatched job with no driver report for this long is failed (ms; DISPATCH_LEASE_SECONDS, default 300 s; 0: never). */
  dispatchLeaseMs: number;
  /** A starting or running job is failed this long past its maxRuntimeSeconds (ms; RUNTIME_GRACE_SECONDS, default 600 s). */
  runtimeGraceMs: number;
  /** Run the background queue workers (those `workerQueues` lists) inside the API process. */
  runWorkers: boolean;
  /** WORKER_QUEUES: the background queues this process runs workers for, with RUN_WORKERS and in `npm run worker` (default: all; on a shared store `ingest` only with CATALOG_DIR set). */
  workerQueues: readonly BackgroundQueue[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Origins whose pages may call this service and the auth service from a browser (`*`: any). */
  corsOrigins: CorsOrigins;
  /**
   * TRUST_PROXY, Fastify's `trustProxy`: whose X-Forwarded-For names the client, for
   * per-client limits and logs. false (the default): nobody's, the client is the socket's
   * peer; true: any peer's; a number: that many hops; addresses and CIDRs: those peers'.
   */
  trustProxy: TrustProxy;
  /** Port on which `npm run worker` serves its Prometheus metrics on `host` (null: not served). */
  metricsPort: number | null;
  /** Mount the BullMQ dashboard at /admin/queues, behind HTTP Basic auth checked by the auth service. */
  queueDashboard: boolean;
  /** A request (headers and body) not received whole within this long is answered 408 and closed (ms; REQUEST_TIMEOUT_SECONDS, default 60 s). */
  requestTimeoutMs: number;
  /** A connection whose client has not taken what was written for this long is closed (ms; WRITE_STALL_TIMEOUT_SECONDS, default 30 s). */
  writeStallTimeoutMs: number;
  /** Open streams (console SSE, NDJSON follows) one client address may hold (STREAMS_PER_CLIENT, default 32). */
  streamsPerClient: number;
  /** Open streams this process holds in all (STREAMS_TOTAL, default 512). */
  streamsTotal: number;
  /** Public media downloads (showcase, snapshot files) this process streams at once, each one bucket socket of a pool of its own (PUBLIC_BLOB_STREAMS, default 64). */
  publicBlobStreams: number;
}

export type CorsOrigins = '*' | string[];

export type Registration = 'open' | 'closed';
export type TrustProxy = boolean | number | string[];

export type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const MIB = 1024 * 1024;
const BACKGROUND_QUEUE_NAMES: readonly BackgroundQueue[] = Object.values(BACKGROUND_QUEUES);
const USERNAME = new RegExp(USERNAME_PATTERN);
const POSTGRES_PROTOCOLS = ['postgres:', 'postgresql:'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment; throws ConfigError naming every bad variable. */
export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const read = new EnvReader(env, problems);
  const dataDir = read.path('DATA_DIR', './data', cwd);
  const authPort = read.port('AUTH_PORT', 8789);
  const databaseUrl = read.databaseUrl('DATABASE_URL');
  const blobStore = readBlobStore(read);
  const config: Config = {
    host: read.string('HOST', '127.0.0.1'),
    port: read.port('PORT', 8787),
    dataDir,
    databaseUrl,
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, { min: 1, max: 1000 }),
    catalogDir: read.path('CATALOG_DIR', './examples/catalog', cwd),
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:', 'redis+unix:', 'unix:']),
    redisPrefix: read.pattern('REDIS_PREFIX', 'evb', /^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . - (at most 64)'),
    authUrl: read.url('AUTH_URL', ['http:', 'https:']),
    authPort,
    authCacheMs: read.number('AUTH_CACHE_SECONDS', 5, { min: 0, max: 3600 }) * 1000,
    authTokenLifetimeMs: nullableHours(read.optionalNumber('AUTH_TOKEN_LIFETIME_HOURS', { min: 0.01, max: 24 * 365 * 10 })),
    authDatabaseUrl: read.secretUrl('AUTH_DATABASE_URL', ['postgres:', 'postgresql:']),
    serviceToken: read.optionalString('SERVICE_TOKEN'),
    authRelayToken: read.optionalString('AUTH_RELAY_TOKEN'),
    registration: read.oneOf('REGISTRATION', 'open', ['open', 'closed'] as const),
    operatorAccounts: read.usernames('OPERATOR_ACCOUNTS'),
    artifactsUrl: read.url('ARTIFACTS_URL', ['http:', 'https:']),
    artifactsServiceToken: read.optionalString('ARTIFACTS_SERVICE_TOKEN'),
    arenaUrl: read.url('ARENA_URL', ['http:', 'https:']),
    dashboardUrl: read.url('DASHBOARD_URL', ['http:', 'https:']),
    snapshotUrl: read.url('SNAPSHOT_URL', ['http:', 'https:']),
    snapshotDir: read.path('SNAPSHOT_DIR', resolve(dataDir, 'snapshot'), cwd),
    snapshotDeployHook: read.url('SNAPSHOT_DEPLOY_HOOK', ['http:', 'https:']),
    blobStore,
    showcaseUploadMaxBytes: Math.round(read.number('SHOWCASE_UPLOAD_MAX_MIB', 256, { min: 0.001, max: 64 * 1024 }) * MIB),
    showcaseJobMaxFiles: read.integer('SHOWCASE_JOB_MAX_FILES', 100, { min: 1, max: 100_000 }),
    showcaseJobMaxBytes: Math.round(read.number('SHOWCASE_JOB_MAX_MIB', 1024, { min: 0.001, max: 1024 * 1024 }) * MIB),
    routerBaseUrl: read.url('ROUTER_BASE_URL', ['http:', 'https:']) ?? 'https://openrouter.ai',
    routerApiKey: read.optionalString('ROUTER_API_KEY'),
    logoBaseUrl: read.url('LOGO_BASE_URL', ['http:', 'https:']),
    probeConcurrency: read.integer('PROBE_CONCURRENCY', 4, { min: 1, max: 64 }),
    probeCallTimeoutMs: read.number('PROBE_CALL_TIMEOUT_SECONDS', 300, { min: 1, max: 3600 }) * 1000,
    probeMaxRetries: read.integer('PROBE_MAX_RETRIES', 5, { min: 0, max: 50 }),
    chromiumPath: read.optionalString('CHROMIUM_PATH'),
    renderThreads: read.integer('RENDER_THREADS', 2, { min: 1, max: 64 }),
    allowExperimental: read.boolean('ALLOW_EXPERIMENTAL', false),
    reapOrphanedJobs: read.boolean('REAP_ORPHANED_JOBS', false),
    discardRedisOfStore: read.pattern('DISCARD_REDIS_OF_STORE', '', /^(?:[0-9a-f]{32}|none)$/, 'a store id (32 hex digits) or none, as a refused boot names it') || null,
    dispatchLeaseMs: read.number('DISPATCH_LEASE_SECONDS', 300, { min: 0, max: 7 * 24 * 3600 }) * 1000,
    runtimeGraceMs: read.number('RUNTIME_GRACE_SECONDS', 600, { min: 0, max: 7 * 24 * 3600 }) * 1000,
    runWorkers: read.boolean('RUN_WORKERS', true),
    workerQueues: read.subset('WORKER_QUEUES', BACKGROUND_QUEUE_NAMES, defaultQueues(read, databaseUrl !== null || blobStore.driver === 's3')),
    logLevel: read.oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    corsOrigins: read.origins('CORS_ORIGINS'),
    trustProxy: read.trustProxy('TRUST_PROXY'),
    metricsPort: read.optionalNumber('METRICS_PORT', { min: 1, max: 65535 }),
    queueDashboard: read.boolean('QUEUE_DASHBOARD', false),
    requestTimeoutMs: Math.round(read.number('REQUEST_TIMEOUT_SECONDS', 60, { min: 0.1, max: 24 * 3600 }) * 1000),
    writeStallTimeoutMs: Math.round(read.number('WRITE_STALL_TIMEOUT_SECONDS', 30, { min: 0.1, max: 24 * 3600 }) * 1000),
    streamsPerClient: read.integer('STREAMS_PER_CLIENT', 32, { min: 1, max: 100_000 }),
    streamsTotal: read.integer('STREAMS_TOTAL', 512, { min: 1, max: 1_000_000 }),
    publicBlobStreams: read.integer('PUBLIC_BLOB_STREAMS', 64, { min: 1, max: 100_000 }),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * The background queues a process runs when WORKER_QUEUES is unset: all of them, except that
 * on a shared store (DATABASE_URL or BLOB_STORE_URL set) `ingest` runs only where CATALOG_DIR
 * is set on purpose. Otherwise a machine started without its env file would scan the example
 * catalog beside the code and prune the deployment's real one.
 */
function defaultQueues(read: EnvReader, sharedStore: boolean): readonly BackgroundQueue[] {
  if (!sharedStore || read.isSet('CATALOG_DIR')) return BACKGROUND_QUEUE_NAMES;
  return BACKGROUND_QUEUE_NAMES.filter((queue) => queue !== BACKGROUND_QUEUES.ingest);
}

/**
 * `fs` (files under DATA_DIR) unless BLOB_STORE_URL names a bucket; then the AWS SDK's usual
 * variables say where and as whom. Without AWS_ACCESS_KEY_ID the SDK's default chain
 * (profile, instance role) supplies the credentials.
 */
function readBlobStore(read: EnvReader): BlobStoreConfig {
  const bucket = read.bucketUrl('BLOB_STORE_URL');
  if (!bucket) return { driver: 'fs' };
  const accessKeyId = read.optionalString('AWS_ACCESS_KEY_ID');
  const secretAccessKey = read.optionalString('AWS_SECRET_ACCESS_KEY');
  const sessionToken = read.optionalString('AWS_SESSION_TOKEN');
  return {
    driver: 's3',
    ...bucket,
    endpoint: read.url('AWS_ENDPOINT_URL', ['http:', 'https:']),
    region: read.string('AWS_REGION', 'us-east-1'),
    credentials:
      accessKeyId && secretAccessKey ? () => ({ accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) }) : null,
  };
}

function nullableHours(hours: number | null): number | null {
  return hours === null ? null : Math.round(hours * 3600 * 1000);
}

class EnvReader {
  constructor(private readonly env: Env, private readonly problems: string[]) {}

  private raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  private fail<T>(name: string, value: string, expected: string, fallback: T): T {
    this.problems.push(`${name}=${JSON.stringify(value)} is not valid: expected ${expected}.`);
    return fallback;
  }

  /** Whether the variable is set to something (an empty value counts as unset). */
  isSet(name: string): boolean {
    return this.raw(name) !== undefined;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalString(name: string): string | null {
    return this.raw(name) ?? null;
  }

  pattern(name: string, fallback: string, pattern: RegExp, expected: string): string {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    return pattern.test(value) ? value : this.fail(name, value, expected, fallback);
  }

  path(name: string, fallback: string, cwd: string): string {
    const value = this.raw(name) ?? fallback;
    return isAbsolute(value) ? value : resolve(cwd, value);
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, { min: 0, max: 65535 });
  }

  integer(name: string, fallback: number, bounds: { min: number; max: number }): number {
    const value = this.number(name, fallback, bounds);
    const raw = this.raw(name);
    return Number.isInteger(value) || raw === undefined ? value : this.fail(name, raw, 'a whole number', fallback);
  }

  number(name: string, fallback: number, bounds: { min: number; max: number }): number {
    return this.optionalNumber(name, bounds) ?? fallback;
  }

  optionalNumber(name: string, { min, max }: { min: number; max: number }): number | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min || parsed > max) {
      return this.fail(name, value, `a number from ${min} to ${max}`, null);
    }
    return parsed;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const lowered = value.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
    if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
    return this.fail(name, value, 'true or false', fallback);
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    return (allowed as readonly string[]).includes(value) ? (value as T) : this.fail(name, value, `one of ${allowed.join(', ')}`, fallback);
  }

  /** A comma-separated list of account usernames (compared without case, as the auth service does); unset: none. */
  usernames(name: string): ReadonlySet<string> {
    const value = this.raw(name);
    if (value === undefined) return new Set();
    const names = value.split(',').map((username) => username.trim()).filter((username) => username !== '');
    const bad = names.find((username) => !USERNAME.test(username) || username.length > USERNAME_MAX_LENGTH);
    if (bad !== undefined || names.length === 0) {
      return this.fail(name, value, `comma-separated usernames of letters, digits, _ . - (${bad === undefined ? 'none given' : `${JSON.stringify(bad)} is not one`})`, new Set());
    }
    return new Set(names.map((username) => username.toLowerCase()));
  }

  /** A comma-separated list of names from `allowed`, each once; unset: `fallback` (all of them unless told). */
  subset<T extends string>(name: string, allowed: readonly T[], fallback: readonly T[] = allowed): readonly T[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const names = value.split(',').map((item) => item.trim());
    const unknown = names.find((item) => item !== '' && !(allowed as readonly string[]).includes(item));
    const twice = names.find((item, index) => names.indexOf(item) !== index);
    const problem = names.includes('') ? 'an empty item'
      : unknown !== undefined ? `${JSON.stringify(unknown)} is not one`
      : twice !== undefined ? `${JSON.stringify(twice)} is listed twice`
      : null;
    if (problem !== null) return this.fail(name, value, `comma-separated names from ${allowed.join(', ')}, each once (${problem})`, allowed);
    return names as T[];
  }

  /** `*` (the default) or a comma-separated list of origins such as `https://console.example`. */
  origins(name: string): CorsOrigins {
    const value = this.raw(name);
    if (value === undefined || value === '*') return '*';
    const origins = value.split(',').map((origin) => origin.trim()).filter((origin) => origin !== '');
    const bad = origins.find((origin) => !isOrigin(origin));
    if (bad !== undefined || origins.length === 0) {
      return this.fail(name, value, `* or comma-separated origins like https://console.example (${bad === undefined ? 'none given' : `${JSON.stringify(bad)} is not one`})`, '*');
    }
    return origins;
  }

  /** `false`, `true`, a hop count, or comma-separated addresses and CIDRs (`10.0.0.0/8`). */
  trustProxy(name: string): TrustProxy {
    const value = this.raw(name)?.trim();
    if (value === undefined || value === '' || value === 'false') return false;
    if (value === 'true') return true;
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      return hops >= 1 && hops <= 100 ? hops : this.fail(name, value, 'a hop count from 1 to 100', false);
    }
    const peers = value.split(',').map((peer) => peer.trim()).filter((peer) => peer !== '');
    const bad = peers.find((peer) => !isAddressOrCidr(peer));
    return bad === undefined ? peers : this.fail(name, value, `true, false, a hop count, or comma-separated addresses and CIDRs like 10.0.0.0/8 (${JSON.stringify(bad)} is not one)`, false);
  }

  /**
   * A PostgreSQL connection URL. Its host may be empty (`postgres://user@/db?host=/run/postgresql`,
   * a unix socket), which WHATWG URLs refuse, so a placeholder host stands in while the rest is
   * checked. A bad value is named without being echoed: it may hold a password.
   */
  databaseUrl(name: string): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const withHost = value.replace(/^(postgres(?:ql)?:\/\/(?:[^@/?#]*@)?)(?=[/?#]|$)/i, '$1localhost');
    try {
      if (!POSTGRES_PROTOCOLS.includes(new URL(withHost).protocol)) throw new Error('protocol');
      return value;
    } catch {
      this.problems.push(`${name} is not valid (its value is not shown: it may hold a password): expected postgres://user:password@host:port/database.`);
      return null;
    }
  }

  /** `s3://bucket/prefix`: a bucket name S3 accepts and a prefix of plain segments. */
  bucketUrl(name: string): { bucket: string; prefix: string } | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])((?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)*)\/?$/.exec(value);
    if (!match) return this.fail(name, value, 's3://<bucket>/<prefix>, a lowercase bucket name and a prefix of letters, digits, ".", "_" and "-" segments', null);
    return { bucket: match[1]!, prefix: match[2]!.slice(1) };
  }

  url(name: string, protocols: string[]): string | null {
    const value = this.raw(name);
    if (value === undefined) return null;
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
      return value.replace(/\/+$/, '');
    } catch {
      return this.fail(name, value, `a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`, null);
    }
  }

  /**
   * A connection URL that may carry a password: a bad one is reported without its value. Only
   * its scheme is checked, since a PostgreSQL URL may name no host (a socket folder in `?host=`),
   * which WHATWG URLs refuse; the driver reports the rest when it connects.
   */
  secretUrl(name: string, protocols: string[]): string | null {
    const value = this.raw(name);
    if (value === undefined || protocols.some((protocol) => value.startsWith(`${protocol}//`) && !/\s/.test(value))) return value ?? null;
    this.problems.push(`${name} is not valid: expected a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')} (its value is not shown).`);
    return null;
  }
}

/** A bare origin: http(s) scheme, host and optional port, nothing after it. */
function isOrigin(value: string): boolean {
  try {
    const parsed = new URL(value);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === value;
  } catch {
    return false;
  }
}

/** The configuration a running service uses: the bundled services' addresses resolved. */
export type ServiceConfig = Config & { authUrl: string; redisUrl: string };

/** An IPv4 or IPv6 address, alone or with a prefix length (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrCidr(text: string): boolean {
  const [address, prefix, ...rest] = text.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
