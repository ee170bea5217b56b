/**
 * What a socket has yet to send, with backpressure. While the socket keeps up, frames go
 * straight out. When its buffer passes the soft limit, frames queue, and a progress-only
 * `stream` frame replaces a queued one for the same index that nothing else follows (the
 * count is absolute, so the newest says all). Text, reasoning, `done`, usage,
 * `tool_execute`, `message` and `error` are never dropped or reordered. A socket that
 * stays behind too long, or falls too far behind, is closed with 1008: its client
 * reconnects and catches up through `stream_resume`.
 */
import { CloseCode, type ServerFrame } from '@aalis/protocol';

export interface OutboxSink {
  write(text: string): void;
  /** Bytes written but not yet handed to the network. */
  bufferedAmount(): number;
  close(code: number, reason: string): void;
}

export interface OutboxLimits {
  /** Above this many buffered bytes, frames queue (and progress collapses). */
  softLimitBytes: number;
  /** Buffered plus queued bytes above this close the socket. */
  hardLimitBytes: number;
  /** A socket that has had frames queued this long without catching up is closed. */
  maxBehindMs: number;
  /** How often a queue is retried while the socket drains. */
  drainIntervalMs: number;
}

export const defaultOutboxLimits: OutboxLimits = {
  softLimitBytes: 256 * 1024,
  hardLimitBytes: 8 * 1024 * 1024,
  maxBehindMs: 15_000,
  drainIntervalMs: 20,
};

interface Entry {
  text: string;
  /** The tool index, for a progress-only stream frame. */
  progressIndex?: number;
}

/** A stream frame that carries nothing but one index's progress. */
function progressOnlyIndex(frame: ServerFrame): number | undefined {
  if (frame.type !== 'stream' || !frame.toolCallProgress) return undefined;
  if (frame.contentDelta || frame.reasoningDelta || frame.done || frame.usage) return undefined;
  return frame.toolCallProgress.index;
}

export class Outbox {
  /** Progress frames replaced by a newer one while queued. */
  collapsed = 0;
  readonly #queue: Entry[] = [];
  /** Queued progress entries after the last other frame, by index: the ones a newer one may replace. */
  readonly #replaceable = new Map<number, Entry>();
  #queuedBytes = 0;
  #behindSince: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly sink: OutboxSink,
    private readonly limits: OutboxLimits = defaultOutboxLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get queued(): number {
    return this.#queue.length;
  }

  push(frame: ServerFrame, text: string): void {
    if (this.#closed) return;
    if (!this.#queue.length && this.sink.bufferedAmount() < this.limits.softLimitBytes) {
      this.sink.write(text);
      return;
    }
    const index = progressOnlyIndex(frame);
    const queuedTwin = index === undefined ? undefined : this.#replaceable.get(index);
    if (queuedTwin) {
      this.#queuedBytes += text.length - queuedTwin.text.length;
      queuedTwin.text = text;
      this.collapsed++;
    } else {
      const entry: Entry = index === undefined ? { text } : { text, progressIndex: index };
      this.#queue.push(entry);
      this.#queuedBytes += text.length;
      if (index === undefined) this.#replaceable.clear();
      else this.#replaceable.set(index, entry);
    }
    this.#behindSince ??= this.now();
    if (this.#overLimit()) return;
    this.#timer ??= setInterval(() => this.#drain(), this.limits.drainIntervalMs);
  }

  dispose(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#queue.length = 0;
    this.#replaceable.clear();
  }

  #drain(): void {
    while (this.#queue.length && this.sink.bufferedAmount() < this.limits.softLimitBytes) {
      const entry = this.#queue.shift()!;
      this.#queuedBytes -= entry.text.length;
      if (entry.progressIndex !== undefined && this.#replaceable.get(entry.progressIndex) === entry) {
        this.#replaceable.delete(entry.progressIndex);
      }
      this.sink.write(entry.text);
    }
    if (!this.#queue.length) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.#behindSince = undefined;
      return;
    }
    this.#overLimit();
  }

  #overLimit(): boolean {
    const tooMuch = this.sink.bufferedAmount() + this.#queuedBytes > this.limits.hardLimitBytes;
    const tooLong =
      this.#behindSince !== undefined && this.now() - this.#behindSince > this.limits.maxBehindMs;
    if (!tooMuch && !tooLong) return false;
    this.dispose();
    this.sink.close(CloseCode.PolicyViolation, 'too far behind: reconnect to resume');
    return true;
  }
}
