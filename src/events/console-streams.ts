import type { ServerResponse } from 'node:http';
import type { ConsoleEventBus, ConsoleTopic } from './console-event-bus.js';
import { ConsoleStream, type ConsoleStreamOptions } from './console-stream.js';

/** The console streams this process serves, fed by the event bus while any is open. */
export class ConsoleStreams {
  private readonly streams = new Map<string, ConsoleStream>();
  private unlisten: Promise<() => void> | null = null;

  constructor(private readonly bus: ConsoleEventBus, private readonly options: ConsoleStreamOptions) {}

  /** Opens a stream once this process is subscribed, so its first frame precedes anything it could miss. */
  async open(res: ServerResponse): Promise<ConsoleStream> {
    this.unlisten ??= this.bus.listen((topic, json) => {
      for (const stream of this.streams.values()) stream.deliver(topic, json);
    });
    await this.unlisten;
    const stream: ConsoleStream = new ConsoleStream(res, this.options, () => {
      this.streams.delete(stream.id);
      if (this.streams.size === 0 && this.unlisten) {
        void this.unlisten.then((stop) => stop());
        this.unlisten = null;
      }
    });
    this.streams.set(stream.id, stream);
    return stream;
  }

  /** False when no such stream is connected here (a normal outcome after a reconnect). */
  setTopics(streamId: string, change: Partial<Record<ConsoleTopic, boolean>>): boolean {
    const stream = this.streams.get(streamId);
    if (!stream) return false;
    stream.setTopics(change);
    return true;
  }

  get size(): number {
    return this.streams.size;
  }

  closeAll(): void {
    for (const stream of [...this.streams.values()]) stream.close();
  }
}
