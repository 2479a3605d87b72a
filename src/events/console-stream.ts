import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { ConsoleTopic } from './console-event-bus.js';

export interface ConsoleStreamOptions {
  /** A `heartbeat` frame after this long without a frame, and a comment keep-alive this often (ms; contract: 15 s). */
  heartbeatMs: number;
  /** Frames held for a client whose socket is not draining before it is resynced. */
  maxBuffered: number;
  /** Characters of frames held for such a client before it is resynced, whichever bound comes first (a string holds one or two bytes a character). */
  maxBufferedChars: number;
}

/**
 * One `GET /notifications` connection. Frames go straight to the socket while it drains;
 * when it pushes back they wait in a bounded buffer, and when that overflows the buffer is
 * dropped whole and the client gets `resync { dropped }` once the socket drains again, so
 * a slow console costs bounded memory and learns to re-read `GET /jobs/active`.
 */
export class ConsoleStream {
  readonly id = randomUUID();
  readonly topics: Record<ConsoleTopic, boolean> = { notifications: true, runs: false };
  private buffered: string[] = [];
  /** The characters of `buffered`'s frames: the memory they hold, within a factor of two. */
  private bufferedLength = 0;
  private dropped = 0;
  private blocked = false;
  private closed = false;
  private idleTimer: NodeJS.Timeout;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(private readonly res: ServerResponse, private readonly options: ConsoleStreamOptions, private readonly onClose: () => void) {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.on('close', () => this.close());
    res.on('drain', () => this.flush());
    // A comment only matters to a proxy on an idle socket; a backed-up one is not idle.
    this.keepAlive = setInterval(() => !this.blocked && this.write(': keep-alive\n\n'), options.heartbeatMs);
    this.idleTimer = this.armHeartbeat();
    this.frame('stream', JSON.stringify({ streamId: this.id }));
  }

  /** Delivers a topic message if the client subscribed to it; a topic change applies from the next message. */
  deliver(topic: ConsoleTopic, json: string): void {
    if (this.topics[topic]) this.frame(topic === 'runs' ? 'run' : 'notification', json);
  }

  /**
   * Tells the client to re-read `GET /jobs/active`: messages were lost upstream of this
   * stream (the Redis channel dropped), so how many is unknown and `dropped` counts only
   * the frames this stream itself discarded (usually none).
   */
  resync(): void {
    const dropped = this.dropped;
    this.dropped = 0;
    this.frame('resync', JSON.stringify({ dropped }));
  }

  setTopics(change: Partial<Record<ConsoleTopic, boolean>>): void {
    if (change.notifications !== undefined) this.topics.notifications = change.notifications;
    if (change.runs !== undefined) this.topics.runs = change.runs;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearInterval(this.keepAlive);
    this.takeBuffered();
    if (!this.res.writableEnded) this.res.end();
    this.onClose();
  }

  private frame(event: string, data: string): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = this.armHeartbeat();
    this.write(`event: ${event}\ndata: ${data}\n\n`);
  }

  private armHeartbeat(): NodeJS.Timeout {
    // An empty `data:` line: a frame with no data line is never dispatched by EventSource.
    return setTimeout(() => this.frame('heartbeat', ''), this.options.heartbeatMs);
  }

  private write(text: string): void {
    if (this.closed) return;
    if (this.blocked) {
      if (this.buffered.length >= this.options.maxBuffered || this.bufferedLength + text.length > this.options.maxBufferedChars) {
        this.dropped += this.takeBuffered().length + 1;
        return;
      }
      this.buffered.push(text);
      this.bufferedLength += text.length;
      return;
    }
    this.blocked = !this.res.write(text);
  }

  /** Empties the buffer, answering the frames it held. */
  private takeBuffered(): string[] {
    const frames = this.buffered;
    this.buffered = [];
    this.bufferedLength = 0;
    return frames;
  }

  private flush(): void {
    this.blocked = false;
    const pending = this.takeBuffered();
    if (this.dropped > 0) this.resync();
    // Frames buffered after the drop are newer than it: they follow the resync.
    for (const text of pending) this.write(text);
  }
}
