import { listenOnLoopback, type LoopbackServer } from './loopback-server.js';

export interface ArtifactCall {
  method: string;
  path: string;
  authorization: string | null;
}

/**
 * The artifact service on loopback: `POST /runs/{id}/release` answers the links a release
 * made (or `releaseStatus` when set to fail, or `releaseBody` as the body when set),
 * `DELETE /runs/{id}/artifacts` answers 204.
 * Every call is recorded; a webhook receiver (snapshot deploy hook) is served on `/hook`.
 */
export async function startFakeArtifactService() {
  const calls: ArtifactCall[] = [];
  const state: { releaseStatus: number; releaseDelayMs: number; releaseBody: string | null } = { releaseStatus: 200, releaseDelayMs: 0, releaseBody: null };
  let server: LoopbackServer;
  server = await listenOnLoopback(async (request, response) => {
    const path = request.url ?? '/';
    calls.push({ method: request.method ?? '', path, authorization: request.headers.authorization ?? null });
    for await (const _ of request) void _;
    const release = /^\/runs\/([^/]+)\/release$/.exec(path);
    if (request.method === 'POST' && release) {
      if (state.releaseDelayMs > 0) await new Promise((done) => server.after(state.releaseDelayMs, () => done(undefined)));
      if (state.releaseStatus !== 200) {
        response.writeHead(state.releaseStatus).end('release failed');
        return;
      }
      const id = decodeURIComponent(release[1]!);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(state.releaseBody ?? JSON.stringify({ sourceRepo: `https://git.example/runs/${id}`, playableBuild: `https://play.example/${id}/` }));
      return;
    }
    if (request.method === 'DELETE' && /^\/runs\/[^/]+\/artifacts$/.test(path)) {
      response.writeHead(204).end();
      return;
    }
    if (request.method === 'POST' && path === '/hook') {
      response.writeHead(204).end();
      return;
    }
    response.writeHead(404).end();
  });
  return { server, origin: server.origin, calls, state };
}
