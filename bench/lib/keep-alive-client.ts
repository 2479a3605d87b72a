import { Agent, request } from 'node:http';

export interface BenchResponse {
  status: number;
  body: string;
}

/**
 * A minimal HTTP/1.1 client over keep-alive sockets, so a benchmark measures the server
 * and not connection set-up or a heavyweight client.
 */
export function keepAliveClient(baseUrl: string, sockets = 1) {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  const url = new URL(baseUrl);
  return {
    send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<BenchResponse> {
      return new Promise((done, fail) => {
        const req = request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method,
            path,
            headers: body === undefined ? headers : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
            res.on('error', fail);
          },
        );
        req.on('error', fail);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
