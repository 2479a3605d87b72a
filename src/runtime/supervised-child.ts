import { SECOND } from '../time.js';

/** A started child process, ready to serve. */
export interface RunningChild {
  pid: number;
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Asks it to stop and resolves once it has (bounded: it is killed when it takes too long). */
  stop(): Promise<void>;
}

export interface SupervisorLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface ChildSpec {
  name: string;
  /** Starts the process and resolves once it serves; rejects when it cannot. */
  start(): Promise<RunningChild>;
  /** Called with each new process (pid files). */
  onStarted?(child: RunningChild): void;
}

export interface RestartPolicy {
  /** First delay before a restart (ms, default 500); doubles with each failure in a row. */
  initialDelayMs: number;
  /** Longest delay between restarts (ms, default 30 s). */
  maxDelayMs: number;
  /** A child that served this long before it died restarts after the initial delay again (ms, default 30 s). */
  stableAfterMs: number;
}

const DEFAULT_POLICY: RestartPolicy = { initialDelayMs: 500, maxDelayMs: 30 * SECOND, stableAfterMs: 30 * SECOND };

/**
 * Keeps one child process running: starts it, and whenever it exits without being asked to,
 * logs how and restarts it after a backoff that doubles while it keeps failing.
 */
export class SupervisedChild {
  private current: RunningChild | null = null;
  private stopping = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Restarts so far (the chaos scenarios read it from the log, tests from here). */
  restarts = 0;

  constructor(private readonly spec: ChildSpec, private readonly log: SupervisorLog, private readonly policy: RestartPolicy = DEFAULT_POLICY) {}

  get pid(): number | null {
    return this.current?.pid ?? null;
  }

  /** The first start: a failure here is the caller's (the service cannot start). */
  async start(): Promise<void> {
    this.adopt(await this.spec.start());
  }

  /**
   * From now on an exit is expected: nothing restarts. Called on every child before any is
   * stopped, since one may exit on its own meanwhile (a signal sent to it directly).
   */
  halt(): void {
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** Stops the child and every restart still pending. */
  async stop(): Promise<void> {
    this.halt();
    await this.current?.stop();
  }

  private adopt(child: RunningChild): void {
    this.current = child;
    this.spec.onStarted?.(child);
    const startedAt = Date.now();
    void child.exited.then(({ code, signal }) => {
      if (this.current === child) this.current = null;
      if (this.stopping) return;
      if (Date.now() - startedAt >= this.policy.stableAfterMs) this.failures = 0;
      this.log.warn({ child: this.spec.name, pid: child.pid, code, signal }, `${this.spec.name} exited unexpectedly (${signal ?? `code ${code}`}); restarting`);
      this.scheduleRestart();
    });
  }

  private scheduleRestart(): void {
    const delay = Math.min(this.policy.initialDelayMs * 2 ** this.failures, this.policy.maxDelayMs);
    this.failures += 1;
    this.retryTimer = setTimeout(() => void this.restart(delay), delay);
  }

  private async restart(delay: number): Promise<void> {
    this.retryTimer = null;
    if (this.stopping) return;
    try {
      const child = await this.spec.start();
      if (this.stopping) {
        await child.stop();
        return;
      }
      this.restarts += 1;
      this.log.info({ child: this.spec.name, pid: child.pid, afterMs: delay, restarts: this.restarts }, `${this.spec.name} restarted`);
      this.adopt(child);
    } catch (error) {
      this.log.error({ child: this.spec.name, err: error }, `${this.spec.name} could not be restarted; trying again`);
      this.scheduleRestart();
    }
  }
}
