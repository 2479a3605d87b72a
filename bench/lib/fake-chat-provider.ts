import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A routing provider that answers every chat completion after `delayMs` with one
 * `submit_program` call, and counts the calls it holds at once.
 */
export async function startFakeChatProvider(delayMs: number) {
  let inFlight = 0;
  let peak = 0;
  let calls = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      // Only chat completions are counted; the billed-rate refresh also asks for listings.
      if (request.method !== 'POST') {
        response.writeHead(404).end();
        return;
      }
      calls++;
      peak = Math.max(peak, ++inFlight);
      setTimeout(() => {
        inFlight--;
        const body = JSON.stringify({
          provider: 'BenchProvider',
          choices: [{ finish_reason: 'tool_calls', message: { content: '', tool_calls: [{ function: { name: 'submit_program', arguments: JSON.stringify({ program: 'files.writeFile("PLAN.md", "1. router")' }) } }] } }],
          usage: { prompt_tokens: 1200, completion_tokens: 20, cost: 0.0001 },
        });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats: () => ({ calls, peak }),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
