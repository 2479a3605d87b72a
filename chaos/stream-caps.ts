/**
 * More console streams than the caps allow: from one address (STREAMS_PER_CLIENT, 32) and
 * from many (STREAMS_TOTAL, 512). Proves the streams past each cap are refused at once with
 * 429 or 503 `too_many_streams` and Retry-After, that the API keeps answering with every
 * admitted stream open, and that a closed stream gives its place back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { printFigures, rssMiB, startChaosService } from './lib/chaos-service.js';
import { rawConnection, type RawConnection } from './lib/raw-client.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

const FROM_ONE = 40;
const ADDRESSES = 20;
const PER_ADDRESS = 32;
const TOTAL = 512;

export default async function streamCaps(): Promise<ScenarioResult> {
  const chaos = await startChaosService();
  const clients: RawConnection[] = [];
  try {
    const port = Number(new URL(chaos.service.url).port);
    const api = chaos.service.pid('api')!;
    const baseline = rssMiB(api);
    const openConsole = async (localAddress: string) => {
      const client = await rawConnection(port, { localAddress });
      client.socket.write('GET /notifications HTTP/1.1\r\nHost: localhost\r\n\r\n');
      clients.push(client);
      const deadline = Date.now() + 10_000;
      while (client.status() === null && Date.now() < deadline) await sleep(5);
      return client;
    };
    const tally = (batch: RawConnection[]) => {
      const count = (status: number) => batch.filter((client) => client.status() === status).length;
      return { ok: count(200), tooMany: count(429), full: count(503), withRetryAfter: batch.filter((client) => /\r\nretry-after: 5\r\n/i.test(client.received())).length };
    };

    const one = await Promise.all(Array.from({ length: FROM_ONE }, () => openConsole('127.0.0.1')));
    const many: RawConnection[] = [];
    for (let address = 1; address <= ADDRESSES; address++) {
      many.push(...(await Promise.all(Array.from({ length: PER_ADDRESS }, () => openConsole(`127.0.1.${address}`)))));
    }
    const health = await chaos.call('GET', '/healthz', undefined, undefined, 5000);
    const rss = rssMiB(api);
    // One admitted stream closes: its place is given back.
    one.find((client) => client.status() === 200)!.socket.destroy();
    await sleep(500);
    const again = await openConsole('127.0.0.1');
    const fromOne = tally(one);
    const fromMany = tally(many);
    const refusals = fromOne.tooMany + fromOne.full + fromMany.tooMany + fromMany.full;
    const admitted = fromOne.ok + fromMany.ok;
    printFigures({
      [`consoles from one address (cap ${PER_ADDRESS})`]: `${FROM_ONE}: ${fromOne.ok} admitted, ${fromOne.tooMany} × 429, ${fromOne.full} × 503`,
      [`consoles from ${ADDRESSES} more addresses (total cap ${TOTAL})`]: `${many.length}: ${fromMany.ok} admitted, ${fromMany.tooMany} × 429, ${fromMany.full} × 503`,
      'refusals with Retry-After: 5': `${fromOne.withRetryAfter + fromMany.withRetryAfter} of ${refusals}`,
      '/healthz with every admitted stream open': `${health.status} in ${health.ms.toFixed(0)} ms`,
      'API RSS before / with the streams open (MiB)': `${baseline.toFixed(0)} / ${rss.toFixed(0)}`,
      'a new console after one closed': again.status() ?? 'no answer',
    });
    return judge(
      { admitted, '429': fromOne.tooMany + fromMany.tooMany, '503': fromOne.full + fromMany.full, '/healthz': `${health.status} in ${health.ms.toFixed(0)} ms`, 'after one closed': again.status() ?? 'no answer' },
      {
        [`one address admitted ${PER_ADDRESS}, the rest 429`]: fromOne.ok === PER_ADDRESS && fromOne.tooMany === FROM_ONE - PER_ADDRESS,
        [`${TOTAL} admitted in all, the rest refused`]: admitted === TOTAL && admitted + refusals === FROM_ONE + many.length,
        'every refusal with Retry-After': fromOne.withRetryAfter + fromMany.withRetryAfter === refusals,
        '/healthz answered with every stream open': health.status === 200,
        'a closed stream gave its place back': again.status() === 200,
      },
    );
  } finally {
    for (const client of clients) client.socket.destroy();
    await chaos.close();
  }
}
