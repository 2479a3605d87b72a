import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { quitConnection } from '../redis/redis-connections.js';

/** A failed SUBSCRIBE is tried this many times, this far apart (ms), before a console stream is refused. */
const SUBSCRIBE_ATTEMPTS = 4;
const SUBSCRIBE_RETRY_MS = 250;

export type ConsoleTopic = 'runs' | 'notifications';
/** `control` carries topic changes for a stream another process holds. */
type Tag = ConsoleTopic | 'control';

/**
 * One console message as it crosses Redis: the topic and the frame's JSON text, never
 * re-parsed; a `runs` message on the wire may carry several frames, one per line. `gap`
 * crosses no wire: this process lost the channel for a while (Redis went away) and is
 * subscribed again, so whatever was published meanwhile never reached it.
 */
export type ConsoleListener = (topic: Tag | 'gap', json: string) => void;

const TAG: Record<Tag, string> = { runs: 'r', notifications: 'n', control: 'c' };

/** A notification as it crosses the console channel, for publishers outside the bus (background workers). */
export const encodeNotification = (notification: object) => TAG.notifications + JSON.stringify(notification);
/** A run event's JSON text as it crosses the console channel, for publishers outside the bus. */
export const encodeRunEvent = (json: string) => TAG.runs + json;
const TOPIC_OF: Record<string, Tag> = { r: 'runs', n: 'notifications', c: 'control' };

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
  /** The subscriber's connection closed while subscribed; cleared once subscribed again. */
  private lostChannel = false;

  constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      const topic = TOPIC_OF[message[0] ?? ''];
      if (!topic) return;
      // The claim script sends the run events of one call as one message, a line each
      // (JSON text holds no raw newline).
      const frames = topic === 'runs' ? message.slice(1).split('\n') : [message.slice(1)];
      for (const json of frames) for (const listener of this.listeners) listener(topic, json);
    });
    this.subscriber.on('close', () => {
      if (this.subscribed) this.lostChannel = true;
    });
    // ioredis resubscribes by itself on reconnect; this SUBSCRIBE queues behind its own, so
    // once it answers the channel is live again and listeners can recover what they missed.
    this.subscriber.on('ready', () => {
      if (!this.lostChannel || !this.subscribed) return;
      this.lostChannel = false;
      this.subscriber.subscribe(this.channel).then(() => {
        for (const listener of this.listeners) listener('gap', '');
      }, this.onError);
    });
  }

  publish(topic: Tag, json: string): void {
    this.publisher.publish(this.channel, TAG[topic] + json).catch(this.onError);
  }

  publishRun(json: string): void {
    this.publish('runs', json);
  }

  publishNotification(notification: object): void {
    this.publisher.publish(this.channel, encodeNotification(notification)).catch(this.onError);
  }

  /** Registers a stream this process holds, so a topic change made on any process can find it. */
  async registerStream(streamId: string, streamsKey: string): Promise<void> {
    await this.publisher.hset(streamsKey, streamId, '1');
  }

  unregisterStream(streamId: string, streamsKey: string): void {
    this.publisher.hdel(streamsKey, streamId).catch(this.onError);
  }

  /** Forwards a topic change to whichever process holds the stream; false when no process does. */
  async forwardTopics(streamId: string, change: object, streamsKey: string): Promise<boolean> {
    if ((await this.publisher.hexists(streamsKey, streamId)) === 0) return false;
    await this.publisher.publish(this.channel, TAG.control + JSON.stringify({ streamId, change }));
    return true;
  }

  /**
   * Resolves once this process receives the channel's messages. A SUBSCRIBE that fails
   * (Redis away) is tried again a few times within about a second, then rejects, and the
   * next call starts afresh: a failure is never cached.
   */
  async listen(listener: ConsoleListener): Promise<() => void> {
    this.listeners.add(listener);
    try {
      this.subscribed ??= this.subscribeWithRetry();
      await this.subscribed;
    } catch (error) {
      this.listeners.delete(listener);
      this.subscribed = null;
      throw error;
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.subscribed) {
        this.subscribed = null;
        this.subscriber.unsubscribe(this.channel).catch(this.onError);
      }
    };
  }

  private async subscribeWithRetry(): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.subscriber.subscribe(this.channel);
      } catch (error) {
        if (attempt >= SUBSCRIBE_ATTEMPTS) throw error;
        await sleep(SUBSCRIBE_RETRY_MS);
      }
    }
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await quitConnection(this.subscriber);
  }
}
