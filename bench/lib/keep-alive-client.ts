import { Client } from 'undici';

export interface BenchResponse {
  status: number;
  body: string;
}

/**
 * One keep-alive HTTP/1.1 connection, one request at a time (no pipelining), as a
 * dispatcher holds it. undici rather than `node:http`: the load generator shares this
 * machine's two cores with the server, and node's Agent spends about as much CPU per
 * request as the server does, which a real dispatcher on another machine would not.
 */
export function keepAliveClient(baseUrl: string) {
  const client = new Client(baseUrl, { pipelining: 1 });
  return {
    async send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<BenchResponse> {
      const response = await client.request({
        method: method as 'GET' | 'POST' | 'PUT' | 'DELETE',
        path,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body,
      });
      return { status: response.statusCode, body: await response.body.text() };
    },
    close: () => void client.close(),
  };
}

export type KeepAliveClient = ReturnType<typeof keepAliveClient>;
