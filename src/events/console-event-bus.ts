import type { Redis } from 'ioredis';

export type ConsoleTopic = 'runs' | 'notifications';

/** One console message as it crosses Redis: the topic and the frame's JSON text, never re-parsed. */
export type ConsoleListener = (topic: ConsoleTopic, json: string) => void;

const TAG: Record<ConsoleTopic, string> = { runs: 'r', notifications: 'n' };

/**
 * Fans run events and notifications out to every process over Redis pub/sub, so a
 * transition made by any process reaches every console. Publishing does not wait for
 * Redis: the command is written to the socket before the caller's HTTP answer, which keeps
 * per-job order, and a failure is logged.
 */
export class ConsoleEventBus {
  private readonly listeners = new Set<ConsoleListener>();

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const topic: ConsoleTopic = message[0] === 'r' ? 'runs' : 'notifications';
      const json = message.slice(1);
      for (const listener of this.listeners) listener(topic, json);
    });
    await this.subscriber.subscribe(this.channel);
  }

  publish(topic: ConsoleTopic, json: string): void {
    this.publisher.publish(this.channel, TAG[topic] + json).catch(this.onError);
  }

  publishRun(json: string): void {
    this.publish('runs', json);
  }

  publishNotification(notification: object): void {
    this.publish('notifications', JSON.stringify(notification));
  }

  listen(listener: ConsoleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
