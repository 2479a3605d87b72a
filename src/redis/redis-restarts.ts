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
 * socket comes back the same either way. `client` must be connected already. A read that
 * fails goes to `onError`: one on a reconnect (Redis went away again) is read again on the
 * next, against the same known run, so a restart is not missed; a server that refuses INFO
 * is served all the same, unwatched.
 */
export async function watchRedisRestarts(client: Redis, onRestart: () => void, onError: (error: unknown) => void): Promise<void> {
  let known = await runIdOf(client).catch((error: unknown) => {
    onError(error);
    return null;
  });
  client.on('ready', () => {
    runIdOf(client).then((id) => {
      const restarted = known !== null && id !== known;
      known = id;
      if (restarted) onRestart();
    }, onError);
  });
}
