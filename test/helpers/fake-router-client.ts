import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createRouterClient, type RouterClientOptions } from '../../src/models/router-client.js';
import { SECOND } from '../../src/time.js';
import { startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';

/**
 * A fake routing provider that demands `key`, started for the enclosing describe block and
 * reset to its normal answers before each test, and router clients pointed at it.
 */
export function useFakeRouter(key: string) {
  let router: FakeRouter | undefined;
  const started = () => {
    if (!router) throw new Error('the fake router starts in beforeAll; use it inside a test');
    return router;
  };
  beforeAll(async () => {
    router = await startFakeRouter({ requireKey: key });
  });
  afterAll(async () => {
    await router?.close();
  });
  beforeEach(async () => {
    await started().normal();
    started().onChat(null);
    started().scriptChat(null);
    started().requests.length = 0;
  });
  return {
    get router(): FakeRouter {
      return started();
    },
    client: (overrides: Partial<RouterClientOptions> = {}) =>
      createRouterClient({ baseUrl: started().url, apiKey: key, timeoutMs: 2 * SECOND, ...overrides }),
  };
}
