import type { Redis } from 'ioredis';
import { encodeNotification } from '../events/console-event-bus.js';
import { runQueueKeys } from '../queue/queue-keys.js';

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

/** Publishes notifications on the console channel; consoles see them live, nothing is replayed. */
export function redisNotificationPublisher(redis: Redis, prefix: string): NotificationPublisher {
  return {
    async publish(notification) {
      await redis.publish(runQueueKeys(prefix).consoleChannel, encodeNotification(notification));
    },
  };
}
