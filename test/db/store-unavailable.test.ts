import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { storeUnavailableReason } from '../../src/db/store-unavailable.js';

const serverError = (code: string) => Object.assign(new pg.DatabaseError('terminating connection', 0, 'error'), { code });

describe('storeUnavailableReason', () => {
  it('takes the server ending or refusing sessions, and statement timeouts, for an outage', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300', '57014']) expect(storeUnavailableReason(serverError(code)), code).toBe(code);
  });

  it('takes pg\'s own connection failures, which carry no code, for an outage', () => {
    for (const message of ['timeout exceeded when trying to connect', 'Connection terminated unexpectedly', 'Query read timeout']) {
      expect(storeUnavailableReason(new Error(message)), message).toBe(message);
    }
  });

  it('takes a refused or missing server socket for an outage', async () => {
    const refused = await new pg.Client({ host: '127.0.0.1', port: 9, connectionTimeoutMillis: 1000 }).connect().catch((error: unknown) => error);
    expect(storeUnavailableReason(refused)).toBe('ECONNREFUSED');
    const missing = await new pg.Client({ host: '/nonexistent-socket-folder', connectionTimeoutMillis: 1000 }).connect().catch((error: unknown) => error);
    expect(storeUnavailableReason(missing)).toBe('ENOENT');
  });

  it('leaves alone query errors, file errors and other services\' connection errors', async () => {
    for (const code of ['23505', '42P01', '22P02']) expect(storeUnavailableReason(serverError(code)), code).toBeNull();
    expect(storeUnavailableReason(await readFile('/nonexistent-file').catch((error: unknown) => error))).toBeNull();
    // fetch wraps the socket's error in its cause: an upstream HTTP service down is no store outage.
    expect(storeUnavailableReason(await fetch('http://127.0.0.1:9/').catch((error: unknown) => error))).toBeNull();
    expect(storeUnavailableReason('ECONNREFUSED')).toBeNull();
  });
});
