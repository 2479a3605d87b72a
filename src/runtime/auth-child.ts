import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SECOND } from '../time.js';

export interface AuthChild {
  url: string;
  stop(): Promise<void>;
}

/** Starts the bundled auth service as its own process (own SQLite file under DATA_DIR). */
export async function startAuthChild(env: NodeJS.ProcessEnv, port: number): Promise<AuthChild> {
  const entry = fileURLToPath(new URL('../auth/server.js', import.meta.url));
  const child = fork(entry, [], { env: { ...env, AUTH_PORT: String(port) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the auth service did not start within 15 s on port ${port}`)), 15 * SECOND);
    child.once('message', (message: { url?: string }) => {
      clearTimeout(timer);
      done(message.url ?? `http://127.0.0.1:${port}`);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the auth service exited with code ${code} before it served (is port ${port} taken? set AUTH_PORT)`));
    });
  });
  return { url, stop: () => stopChild(child) };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10 * SECOND);
  await exited;
  clearTimeout(timer);
}
