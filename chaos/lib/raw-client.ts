import { once } from 'node:events';
import { execFileSync } from 'node:child_process';
import { connect, type Socket } from 'node:net';

/** A raw HTTP/1.1 connection, for clients that misbehave on purpose: send slowly, never read. */
export interface RawConnection {
  socket: Socket;
  /** What the server sent so far (nothing while paused). */
  received(): string;
  /** The status of the first answer, once its status line arrived. */
  status(): number | null;
  closed: boolean;
}

/** Connects from `localAddress` (any 127.x.y.z is this machine); a `paused` connection never reads. */
export async function rawConnection(port: number, { localAddress = '127.0.0.1', paused = false } = {}): Promise<RawConnection> {
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  socket.on('error', () => {});
  await once(socket, 'connect');
  let received = '';
  const connection: RawConnection = {
    socket,
    received: () => received,
    status: () => {
      const match = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      return match ? Number(match[1]) : null;
    },
    closed: false,
  };
  socket.once('close', () => (connection.closed = true));
  if (paused) socket.pause();
  else socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  return connection;
}

/** The server side's established TCP connections on `port` (`ss`, from iproute2). */
export function serverConnections(port: number): number {
  const out = execFileSync('ss', ['-Htn', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean).length;
}
