import type { ServerResponse } from 'node:http';
import type { ConsoleEventBus, ConsoleTopic } from './console-event-bus.js';
import { ConsoleStream, type ConsoleStreamOptions } from './console-stream.js';

/** The console streams this process serves, fed by the event bus. */
export class ConsoleStreams {
  private readonly streams = new Map<string, ConsoleStream>();
  private readonly unlisten: () => void;

  constructor(bus: ConsoleEventBus, private readonly options: ConsoleStreamOptions) {
    this.unlisten = bus.listen((topic, json) => {
      for (const stream of this.streams.values()) stream.deliver(topic, json);
    });
  }

  open(res: ServerResponse): ConsoleStream {
    const stream: ConsoleStream = new ConsoleStream(res, this.options, () => this.streams.delete(stream.id));
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
    this.unlisten();
    for (const stream of [...this.streams.values()]) stream.close();
  }
}
