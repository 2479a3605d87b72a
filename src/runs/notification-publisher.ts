import type { Redis } from 'ioredis';

/** A console notification (open-points.md, Console stream). */
export interface Notification {
  kind: 'run-completed' | 'publish-failed';
  jobId: string;
  outcome: 'completed' | 'failed';
  recordId?: string;
  message?: string;
  testCaseSlug: string;
  testCaseVersion: string;
  variant: string;
  harnessSlug: string;
  modelId: string;
  engine?: string;
}

export interface NotificationPublisher {
  publish(notification: Notification): Promise<void>;
}

/** The console stream's Redis channel; the console stream (queue branch) subscribes to it. */
export const consoleChannel = (prefix: string) => `${prefix}:console`;

/** Publishes notifications on the console channel; consoles see them live, nothing is replayed. */
export function redisNotificationPublisher(redis: Redis, prefix: string): NotificationPublisher {
  return {
    async publish(notification) {
      await redis.publish(consoleChannel(prefix), JSON.stringify(notification));
    },
  };
}
