import type { ServerResponse } from 'node:http';
import type { ConsoleEventBus, ConsoleTopic } from './console-event-bus.js';
import { ConsoleStream, type ConsoleStreamOptions } from './console-stream.js';

type TopicChange = Partial<Record<ConsoleTopic, boolean>>;

/**
 * The console streams this process serves, fed by the event bus while any is open. Stream
 * ids are registered in Redis so a topic change that reaches another API process is
 * forwarded to the one holding the stream.
 */
export class ConsoleStreams {
  private readonly streams = new Map<string, ConsoleStream>();
  private unlisten: Promise<() => void> | null = null;

  constructor(
    private readonly bus: ConsoleEventBus,
    private readonly options: ConsoleStreamOptions,
    private readonly registryKey: string,
    private readonly onError: (error: unknown) => void = () => {},
  ) {}

  /**
   * Subscribes this process to the console channel (once, shared by every stream); rejects
   * when Redis cannot be had, before the caller commits to a response, and a later call
   * tries again.
   */
  async subscribe(): Promise<void> {
    const listening = (this.unlisten ??= this.bus.listen((topic, json) => {
      if (topic === 'control') return this.applyForwarded(json);
      for (const stream of this.streams.values()) {
        if (topic === 'gap') stream.resync();
        else stream.deliver(topic, json);
      }
    }));
    try {
      await listening;
    } catch (error) {
      if (this.unlisten === listening) this.unlisten = null;
      throw error;
    }
  }

  /** Opens a stream once this process is subscribed, so its first frame precedes anything it could miss. */
  async open(res: ServerResponse): Promise<ConsoleStream> {
    await this.subscribe();
    const stream: ConsoleStream = new ConsoleStream(res, this.options, () => {
      this.streams.delete(stream.id);
      this.bus.unregisterStream(stream.id, this.registryKey);
      if (this.streams.size === 0 && this.unlisten) {
        void this.unlisten.then((stop) => stop());
        this.unlisten = null;
      }
    });
    this.streams.set(stream.id, stream);
    // Without the registration only topic changes sent through another API process miss it.
    await this.bus.registerStream(stream.id, this.registryKey).catch(this.onError);
    return stream;
  }

  /** False when no process holds such a stream (a normal outcome after a reconnect). */
  async setTopics(streamId: string, change: TopicChange): Promise<boolean> {
    const stream = this.streams.get(streamId);
    if (stream) {
      stream.setTopics(change);
      return true;
    }
    return this.bus.forwardTopics(streamId, change, this.registryKey);
  }

  private applyForwarded(json: string): void {
    const { streamId, change } = JSON.parse(json) as { streamId: string; change: TopicChange };
    this.streams.get(streamId)?.setTopics(change);
  }

  get size(): number {
    return this.streams.size;
  }

  closeAll(): void {
    for (const stream of [...this.streams.values()]) stream.close();
  }
}
