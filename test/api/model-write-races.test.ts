/**
 * Model catalog writes that threw on PostgreSQL (issue 39 item 11): an update racing a
 * delete of the same entry, and a logo URL holding a stray `%`. Each is a client's answer
 * (404, 422, 400 naming the field), never a 500.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestBackend, type TestBackend } from '../helpers/test-backend.js';

let backend: TestBackend;
let token: string;

beforeAll(async () => {
  // Nothing listens there: a URL refused before any fetch never needs it.
  backend = await startTestBackend({ LOGO_BASE_URL: 'http://127.0.0.1:9/logos/' });
  token = (await backend.auth.register('curator')).token;
});
afterAll(() => backend?.close());

const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  backend.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

describe('a model update racing a delete', () => {
  it('answers 404 naming the entry once the delete commits first, and leaves nothing behind', async () => {
    expect((await send('POST', '/models', { slug: 'vendor/raced', name: 'Raced' })).statusCode).toBe(201);
    let update: ReturnType<typeof send> | undefined;
    // The delete holds its transaction open while the update starts, then commits.
    await backend.store.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('models').where('slug', '=', 'vendor/raced').execute();
      update = send('PUT', '/models/vendor/raced', { name: 'Renamed' });
      await sleep(500);
    });
    const answer = await update!;
    expect(answer.statusCode, answer.body).toBe(404);
    expect(answer.json().error.message).toContain('vendor/raced');
    expect(await backend.store.db.selectFrom('models').select('slug').where('slug', '=', 'vendor/raced').execute()).toEqual([]);
  });
});

describe('a logo URL with a stray %', () => {
  it('is 422 naming providerLogoUrl on a model write, and 400 naming url on POST /models/logo', async () => {
    const write = await send('POST', '/models', { slug: 'vendor/logo', providerLogoUrl: 'http://127.0.0.1:9/logos/bad%zz.svg' });
    expect(write.statusCode, write.body).toBe(422);
    expect(write.json().error).toMatchObject({ code: 'unprocessable', message: expect.stringContaining('providerLogoUrl holds malformed percent-encoding') });
    const logo = await send('POST', '/models/logo', { url: 'http://127.0.0.1:9/logos/100%.svg' });
    expect(logo.statusCode, logo.body).toBe(400);
    expect(logo.json().error).toMatchObject({ code: 'bad_request', message: expect.stringContaining('url holds malformed percent-encoding') });
  });
});
