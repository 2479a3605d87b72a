import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoRoot } from '../../bench/lib/repo-root.js';

/** The compiled supervisor (`npm start` runs the same file); tests and scenarios need a build. */
export const SUPERVISOR_ENTRY = join(repoRoot(), 'dist', 'src', 'supervisor.js');

export interface ServiceOptions {
  dataDir: string;
  port: number;
  authPort: number;
  env?: Record<string, string>;
  /**
   * What is started: the compiled supervisor (default), `node scripts/bootstrap.mjs start`,
   * or `npm start` as an operator types it (npm, its shell, the bootstrap, which builds
   * first, then the supervisor).
   */
  launch?: 'supervisor' | 'bootstrap' | 'npm-start';
  /**
   * Started as a terminal starts a command: leading a process group of its own, so that
   * `interrupt()` reaches every process in it, as Ctrl-C does.
   */
  ownProcessGroup?: boolean;
}

const LAUNCH_COMMANDS = {
  supervisor: () => [process.execPath, [SUPERVISOR_ENTRY]],
  bootstrap: () => [process.execPath, [join(repoRoot(), 'scripts', 'bootstrap.mjs'), 'start']],
  'npm-start': () => ['npm', ['start']],
} satisfies Record<string, () => [string, string[]]>;

/** One `npm start` (the supervisor and its children) on its own ports and DATA_DIR, as an operator runs it. */
export class SupervisedService {
  readonly log: string[] = [];
  private child: ChildProcess | null = null;
  private exitedPromise: Promise<number | null> | null = null;

  constructor(readonly options: ServiceOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  /** The process this started: the supervisor, the bootstrap or npm (see `launch`). */
  get topPid(): number | null {
    return this.child?.pid ?? null;
  }

  get supervisorPid(): number | null {
    return (this.options.launch ?? 'supervisor') === 'supervisor' ? this.topPid : this.pid('supervisor');
  }

  /** Starts the supervisor; resolves once the API answers /healthz. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (!this.options.launch && !existsSync(SUPERVISOR_ENTRY)) throw new Error(`${SUPERVISOR_ENTRY} is missing: run \`npm run build\` first.`);
    const [program, args] = LAUNCH_COMMANDS[this.options.launch ?? 'supervisor']();
    const child = spawn(program, args, {
      cwd: repoRoot(),
      env: {
        ...process.env,
        PORT: String(this.options.port),
        AUTH_PORT: String(this.options.authPort),
        DATA_DIR: this.options.dataDir,
        LOG_LEVEL: 'info',
        REDIS_URL: '',
        AUTH_URL: '',
        ...this.options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: this.options.ownProcessGroup ?? false,
    });
    this.child = child;
    this.exitedPromise = new Promise((done) => child.once('exit', (code) => done(code)));
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop()!;
        this.log.push(...lines);
      });
    }
    await this.waitFor(() => this.healthy(), timeoutMs, 'the API to answer /healthz');
  }

  /** Resolves with the supervisor's exit code. */
  exited(): Promise<number | null> {
    return this.exitedPromise ?? Promise.resolve(null);
  }

  /** True when GET /healthz answers 200. */
  async healthy(): Promise<boolean> {
    try {
      const response = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(1000) });
      return response.ok;
    } catch {
      return false;
    }
  }

  /** The pid a child's pid file records (`api`, `auth`, `redis`, `supervisor`), or null. */
  pid(name: string): number | null {
    try {
      const pid = Number(readFileSync(join(this.options.dataDir, 'run', `${name}.pid`), 'utf8').split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  }

  /** Polls `check` every 50 ms until it holds; throws naming `what` after `timeoutMs`. */
  async waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await check()) return;
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) {
        throw new Error(`the supervisor exited (code ${this.child.exitCode}) while waiting for ${what}:\n${this.log.slice(-20).join('\n')}`);
      }
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}:\n${this.log.slice(-20).join('\n')}`);
      await sleep(50);
    }
  }

  /** Ctrl-C in the terminal: SIGINT to every process of the group (needs `ownProcessGroup`). */
  interrupt(): void {
    if (!this.options.ownProcessGroup) throw new Error('interrupt() signals a process group: start with ownProcessGroup');
    process.kill(-this.topPid!, 'SIGINT');
  }

  /** SIGTERM to the top process; resolves with how long it took to exit (ms). */
  async stop(): Promise<number> {
    const began = Date.now();
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) return 0;
    this.child.kill('SIGTERM');
    await this.exited();
    return Date.now() - began;
  }
}

/** True while a process with this pid exists (and is not a zombie). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Every live process below `pid` (children, their children, ...), from /proc. Linux only. */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // `pid (comm) state ppid ...`: comm may hold spaces, so split after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') continue;
    children.set(Number(ppid), [...(children.get(Number(ppid)) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let next = [pid]; next.length > 0; ) {
    next = next.flatMap((parent) => children.get(parent) ?? []);
    found.push(...next);
  }
  return found;
}
