/**
 * kill -9 of the auth service: account routes answer 502 auth_unavailable (never hang, never
 * 500) until the supervisor has restarted it, then work again with the same tokens.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LAUNCH, printFigures, startChaosService } from './lib/chaos-service.js';
import { judge, type ScenarioResult } from './lib/scenario-result.js';

export default async function authKill(): Promise<ScenarioResult> {
  // No token cache, so every request asks the auth service.
  const chaos = await startChaosService({ AUTH_CACHE_SECONDS: '0' });
  try {
    const authBefore = chaos.service.pid('auth')!;
    const counts = { badGateway: 0, other: 0 };
    let slowest502 = 0;
    const killedAt = Date.now();
    process.kill(authBefore, 'SIGKILL');
    let recoveredAt = 0;
    while (!recoveredAt && Date.now() - killedAt < 60_000) {
      const answer = await chaos.call('POST', '/jobs', chaos.operator, LAUNCH, 10_000);
      if (answer.status === 202) recoveredAt = Date.now();
      else if (answer.status === 502 && answer.body?.error?.code === 'auth_unavailable') {
        counts.badGateway++;
        slowest502 = Math.max(slowest502, answer.ms);
      } else counts.other++;
      await sleep(20);
    }
    const restarted = chaos.service.pid('auth') !== authBefore;
    const recovery = recoveredAt ? `${((recoveredAt - killedAt) / 1000).toFixed(2)} s` : 'never';
    printFigures({
      '502 auth_unavailable answers': counts.badGateway,
      'slowest 502 (ms)': slowest502.toFixed(0),
      'other answers (5xx, refused)': counts.other,
      'auth service restarted (new pid)': restarted,
      recovery,
    });
    return judge(
      { '502 auth_unavailable': counts.badGateway, 'slowest 502': `${slowest502.toFixed(0)} ms`, 'other answers': counts.other, recovered: recovery },
      {
        'the auth service was restarted': restarted,
        'account requests answered 502 auth_unavailable while it was down (no 500, no hang)': counts.other === 0,
        'account requests work again with the same token within 60 s': recoveredAt > 0,
      },
    );
  } finally {
    await chaos.close();
  }
}
