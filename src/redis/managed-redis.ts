import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { diesWithParent } from '../runtime/dies-with-parent.js';
import { SECOND } from '../time.js';

/** A redis-server child process owned by this process: data and append-only file under `dir`. */
export interface ManagedRedis {
  /** `redis+unix:///path/to.sock` or `redis://127.0.0.1:port`, accepted by `redisOptionsFromUrl`. */
  url: string;
  pid: number;
  /** TCP port when the socket path is too long for a unix socket, else 0; pass it back to restart on the same address. */
  port: number;
  /** Resolves when the server exits, for whatever reason. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

export interface ManagedRedisOptions {
  /** Folder for the socket, the RDB and the append-only file. Created when missing. */
  dir: string;
  /** Keep the append-only file so queued jobs survive a restart (default true). */
  persistent?: boolean;
  /** How long to wait for the server to answer PING (default 10 s). */
  startTimeoutMs?: number;
  redisServerPath?: string;
  /** TCP port to listen on when the socket path is too long (default: a free one). */
  port?: number;
  /**
   * Start the server as the leader of a process group of its own (default false), so a
   * terminal's Ctrl-C reaches only its owner, which stops it last (the supervisor).
   */
  ownProcessGroup?: boolean;
}

// sockaddr_un.sun_path holds 108 bytes; leave room for the terminator.
const MAX_UNIX_SOCKET_PATH = 100;

export async function startManagedRedis(options: ManagedRedisOptions): Promise<ManagedRedis> {
  const dir = resolve(options.dir);
  mkdirSync(dir, { recursive: true });
  const socketPath = join(dir, 'redis.sock');
  const useSocket = socketPath.length <= MAX_UNIX_SOCKET_PATH;
  const port = useSocket ? 0 : (options.port || (await freeLoopbackPort()));
  const url = useSocket ? `redis+unix://${socketPath}` : `redis://127.0.0.1:${port}`;
  if (useSocket && existsSync(socketPath)) {
    // A live server on this folder (one no pid file knew of): a second would share its files.
    if (await answersPing(url)) throw new Error(`a redis-server already serves ${socketPath}; stop it before starting another on ${dir}`);
    rmSync(socketPath);
  }

  const persistent = options.persistent ?? true;
  const args = [
    '--dir', dir,
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--protected-mode', 'yes',
    '--appendonly', persistent ? 'yes' : 'no',
    '--save', persistent ? '60 1' : '',
    // BullMQ requires that Redis never evicts its keys.
    '--maxmemory-policy', 'noeviction',
    // A queued run job is two small hashes (BullMQ's job, the run state) whose longest values,
    // the launch body and the run-event subject, pass Redis's default 64 bytes; under this
    // bound they stay in the compact encoding, under half the memory (see the claim bench).
    // The ziplist spelling is the one Redis 6 and 7 both accept.
    '--hash-max-ziplist-value', '512',
    '--daemonize', 'no',
    '--loglevel', 'warning',
    ...(useSocket ? ['--unixsocket', socketPath, '--unixsocketperm', '700'] : []),
  ];
  const server = options.redisServerPath ?? 'redis-server';
  const detached = options.ownProcessGroup ?? false;
  const child = spawn(...diesWithParent(server, args), { stdio: ['ignore', 'ignore', 'pipe'], detached });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
  const exited = ended.then(({ code }) => code);
  const spawnError = new Promise<Error>((done) => child.once('error', done));

  const deadline = Date.now() + (options.startTimeoutMs ?? 10 * SECOND);
  for (;;) {
    const failure = await Promise.race([
      exited.then((code) => new Error(`redis-server exited with code ${code}: ${stderr.trim()}`)),
      spawnError.then((error) => new Error(`redis-server could not be started: ${error.message}`, { cause: error })),
      sleep(50).then(() => undefined),
    ]);
    if (failure) throw failure;
    if (await answersPing(url)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer within ${options.startTimeoutMs ?? 10 * SECOND} ms: ${stderr.trim()}`);
    }
  }
  return { url, pid: child.pid!, port, exited: ended, stop: () => stopChild(child, exited) };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  // SIGTERM makes redis-server flush the append-only file before it exits.
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10 * SECOND);
  await exited;
  clearTimeout(timer);
}

async function answersPing(url: string): Promise<boolean> {
  const client = new Redis({ ...redisOptionsFromUrl(url), lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/** ioredis options for `redis://`, `rediss://` and `redis+unix:///socket` URLs. */
export function redisOptionsFromUrl(url: string): { path?: string; host?: string; port?: number; username?: string; password?: string; db?: number; tls?: object } {
  if (url.startsWith('redis+unix://') || url.startsWith('unix://')) {
    const parsed = new URL(url);
    const db = parsed.searchParams.get('db');
    return { path: decodeURIComponent(parsed.pathname), ...(db ? { db: Number(db) } : {}) };
  }
  const parsed = new URL(url);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined;
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db !== undefined && Number.isInteger(db) ? { db } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/** The URL with its password (if any) replaced by `***`, for logs and messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}

/** Reconnect forever, never more than a second apart, so a process resumes soon after Redis is back. */
export const reconnectDelay = (attempt: number) => Math.min(attempt * 100, SECOND);

/**
 * BullMQ worker connection options: its blocking commands need `maxRetriesPerRequest: null`
 * (wait out an outage rather than fail), and the capped reconnect delay resumes the
 * workers within a second of Redis coming back (BullMQ's own default backs off to 20 s).
 */
export function bullConnection(url: string) {
  return { ...redisOptionsFromUrl(url), maxRetriesPerRequest: null, retryStrategy: reconnectDelay };
}
