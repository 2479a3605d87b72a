import { Queue, type ConnectionOptions } from 'bullmq';
import { BACKGROUND_QUEUES } from '../queue/queue-keys.js';

export const SNAPSHOT_QUEUE = BACKGROUND_QUEUES.snapshot;
/** One fixed job id: requests made while a refresh is waiting coalesce into it. */
const REFRESH_JOB_ID = 'refresh';

export function createSnapshotQueue(connection: ConnectionOptions, prefix: string) {
  return new Queue(SNAPSHOT_QUEUE, { connection, prefix });
}

/** Asks for a public snapshot regeneration; a no-op while one is already waiting. */
export async function requestSnapshotRefresh(queue: Queue): Promise<void> {
  await queue.add('refresh', {}, { jobId: REFRESH_JOB_ID, removeOnComplete: true, removeOnFail: true });
}
