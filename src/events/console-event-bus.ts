import type { Redis } from 'ioredis';

export type ConsoleTopic = 'runs' | 'notifications';

/** One console message as it crosses Redis: the topic and the frame's JSON text, never re-parsed. */
export type ConsoleListener = (topic: ConsoleTopic, json: string) => void;

const TAG: Record<ConsoleTopic, string> = { runs: 'r', notifications: 'n' };

/**
 * Fans run events and notifications out to every process over Redis pub/sub, so a
 * transition made by any process reaches every console. Publishing does not wait for
 * Redis: the command is written to the socket before the caller's HTTP answer, which keeps
 * per-job order, and a failure is logged. A process subscribes only while it has listeners
 * (open console streams), so a busy queue costs nothing in processes no console watches.
 */
export class ConsoleEventBus {
  private readonly listeners = new Set<ConsoleListener>();
  private subscribed: Promise<unknown> | null = null;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const topic: ConsoleTopic = message[0] === 'r' ? 'runs' : 'notifications';
      const json = message.slice(1);
      for (const listener of this.listeners) listener(topic, json);
    });
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

  /** Resolves once this process receives the channel's messages. */
  async listen(listener: ConsoleListener): Promise<() => void> {
    this.listeners.add(listener);
    this.subscribed ??= this.subscriber.subscribe(this.channel);
    await this.subscribed;
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.subscribed) {
        this.subscribed = null;
        this.subscriber.unsubscribe(this.channel).catch(this.onError);
      }
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
