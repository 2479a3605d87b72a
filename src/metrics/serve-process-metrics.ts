import { createServer, type Server } from 'node:http';
import { processRegistry } from './process-metrics.js';

/**
 * Serves this process's metrics at `GET /metrics` on `host:port`: how a worker process, which
 * serves no API, is scraped. Anything else answers 404.
 */
export async function serveProcessMetrics(host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is served here.\n');
      return;
    }
    processRegistry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': processRegistry.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
