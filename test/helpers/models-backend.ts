import { afterAll, beforeAll } from 'vitest';
import { startFakeLogoServer, type FakeLogoServer } from '../fakes/fake-logo-server.js';
import { startFakeRouter, type FakeRouter } from '../fakes/fake-router.js';
import { startTestBackend, type TestBackend } from './test-backend.js';

/**
 * For a model catalog test file: a fake routing provider, a fake logo library and the real
 * backend pointed at both, with one account's token, started for the file.
 */
export function useModelsBackend() {
  const state: { backend?: TestBackend; router?: FakeRouter; logos?: FakeLogoServer; token?: string } = {};
  beforeAll(async () => {
    state.router = await startFakeRouter();
    state.logos = await startFakeLogoServer();
    state.backend = await startTestBackend({ ROUTER_BASE_URL: state.router.url, ROUTER_API_KEY: 'sk-test', LOGO_BASE_URL: state.logos.url });
    state.token = (await state.backend.auth.register('curator')).token;
  });
  afterAll(async () => {
    await state.backend?.close();
    await state.router?.close();
    await state.logos?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the models backend starts in beforeAll; use it inside a test');
    return value;
  };
  return {
    get backend() { return started(state.backend); },
    get router() { return started(state.router); },
    get logos() { return started(state.logos); },
    get token() { return started(state.token); },
  };
}
