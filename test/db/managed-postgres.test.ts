import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestPostgres, stopTestPostgres } from '../helpers/postgres.js';
import { until } from '../helpers/until.js';

const dir = mkdtempSync(join(tmpdir(), 'evb-pg-owner-'));
afterAll(async () => {
  await stopTestPostgres();
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));

describe('the throwaway PostgreSQL cluster', () => {
  it('serves on its unix socket only, as a user other than root', async () => {
    const server = await startTestPostgres();
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ listen: string; role: string }>("SELECT current_setting('listen_addresses') AS listen, current_user AS role");
      expect(rows).toEqual([{ listen: '', role: 'postgres' }]);
    } finally {
      await client.end();
    }
    const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]);
    // PostgreSQL refuses to run as root; the cluster takes the `postgres` (or `nobody`) user instead.
    expect(uid).not.toBe(0);
    if (process.getuid?.() !== 0) expect(uid).toBe(process.getuid?.());
  });

  it('stops when the process that started it dies, however it dies', async () => {
    const module = new URL('../../dist/src/db/managed-postgres.js', import.meta.url).href;
    const script = `
      const { startManagedPostgres } = await import(${JSON.stringify(module)});
      const server = await startManagedPostgres({ dir: process.env.DIR });
      process.stdout.write(server.pid + '\\n');
      setInterval(() => {}, 1000);`;
    // Its own folder under tmpdir(): the server's user must be able to reach it.
    const owner = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, DIR: dir }, stdio: ['ignore', 'pipe', 'inherit'] });
    const started = await Promise.race([once(owner.stdout, 'data'), once(owner, 'exit').then(() => null)]);
    if (!started) throw new Error('the owner process exited before its cluster started');
    const pid = Number(String(started[0]).trim());
    expect(alive(pid)).toBe(true);
    owner.kill('SIGKILL');
    await until(() => !alive(pid), 20_000, `postgres ${pid} to stop after its owner was killed`);
  });
});
