import type { Redis } from 'ioredis';

/** The server's `run_id`: random per start of the process, so a new one means a restarted Redis. */
async function runIdOf(client: Redis): Promise<string> {
  const id = /^run_id:(\w+)/m.exec(await client.info('server'))?.[1];
  if (!id) throw new Error('Redis INFO server answered no run_id');
  return id;
}

/**
 * Calls `onRestart` each time `client` reconnects to a Redis server that was started again
 * since it last looked (its INFO `run_id` changed). A restarted Redis holds only what its
 * append-only file had: with no persistence nothing, and even with `appendfsync everysec`
 * the last writes before a crash can be missing. Reconnecting is not enough to notice: the
 * socket comes back the same either way. `client` must be connected already; a read that
 * fails (Redis went away again) is retried on the next reconnect, against the same known
 * run, so a restart is not missed.
 */
export async function watchRedisRestarts(client: Redis, onRestart: () => void, onError: (error: unknown) => void): Promise<void> {
  let known = await runIdOf(client);
  client.on('ready', () => {
    runIdOf(client).then((id) => {
      if (id === known) return;
      known = id;
      onRestart();
    }, onError);
  });
}
