import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureFloors } from './floors.js';
import { benchRedis } from './lib/bench-redis.js';
import { startBenchBackend } from './lib/bench-backend.js';
import { keepAliveClient } from './lib/keep-alive-client.js';
import { repoRoot } from './lib/repo-root.js';
import { ms, printTable, timeSequential } from './lib/stats.js';

/**
 * BENCH_CATALOG, else the shared fixture catalog when it sits beside the checkout (its ~700
 * validation files make the fingerprint pass the heavy part), else the example catalog.
 */
function catalogDir(): string {
  if (process.env.BENCH_CATALOG) return process.env.BENCH_CATALOG;
  const shared = resolve(repoRoot(), '../shared/fixtures/catalog');
  return existsSync(shared) ? shared : resolve(repoRoot(), 'examples/catalog');
}
const TARGET_MS = 50;

/**
 * An unchanged re-ingest of a catalog with the same catalogVersion, over HTTP
 * (queue round trip and progress stream included), beside the no-op POST floor. Also the
 * unchanged scan without a token, which fingerprints every version folder.
 */
export default async function benchIngestRescan(): Promise<void> {
  const redis = await benchRedis();
  const backend = await startBenchBackend(redis.url, { CATALOG_DIR: catalogDir() });
  const client = keepAliveClient(backend.url);
  try {
    const scanned = backend.app.config.catalogDir;
    const first = await client.send('POST', '/ingest', JSON.stringify({ catalogVersion: 'bench-1' }));
    if (first.status !== 200) throw new Error(`first ingest of ${scanned} failed: ${first.status} ${first.body}`);
    const sameToken = await timeSequential(50, 5, () => client.send('POST', '/ingest', JSON.stringify({ catalogVersion: 'bench-1' })));
    const fingerprinted = await timeSequential(30, 3, () => client.send('POST', '/ingest', '{}'));
    const floors = await measureFloors(redis.url, 2000);
    printTable(`Unchanged re-ingest of ${scanned} over HTTP (target p50 < ${TARGET_MS} ms)`, [
      { measure: 'no-op POST floor', p50: ms(floors.noopPost.p50), p99: ms(floors.noopPost.p99), 'ratio to floor': '1.0x' },
      { measure: 'same catalogVersion', p50: ms(sameToken.p50), p99: ms(sameToken.p99), 'ratio to floor': `${(sameToken.p50 / floors.noopPost.p50).toFixed(1)}x` },
      { measure: 'no token (fingerprint scan)', p50: ms(fingerprinted.p50), p99: ms(fingerprinted.p99), 'ratio to floor': `${(fingerprinted.p50 / floors.noopPost.p50).toFixed(1)}x` },
    ]);
    console.log(`same-catalogVersion re-ingest p50 ${ms(sameToken.p50)}: ${sameToken.p50 < TARGET_MS ? 'PASS' : 'FAIL'} (target < ${TARGET_MS} ms)`);
  } finally {
    client.close();
    await backend.close();
    await redis.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchIngestRescan();
