/**
 * What a socket has yet to send, with backpressure. While the socket keeps up, frames go
 * straight out. When its buffer passes the soft limit, frames queue, and a progress
 * frame replaces a queued one of the same kind that nothing else follows: a progress-only
 * `stream` frame for the same index, a `tool_execute` `progress` for the same call (both
 * are absolute, so the newest says all). Text, reasoning, `done`, usage, `tool_execute`
 * start and end, `message` and `error` are never dropped or reordered. A socket that
 * stays behind too long, or falls too far behind, is closed with 1008: its client
 * reconnects and catches up through `stream_resume`.
 */
import { CloseCode, progressOnly, type ServerFrame } from '@aalis/protocol';

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
  /** Hears each progress frame collapsed (the `collapsed` count), for metrics. */
  onCollapse?: () => void;
}

export const defaultOutboxLimits: OutboxLimits = {
  softLimitBytes: 256 * 1024,
  hardLimitBytes: 8 * 1024 * 1024,
  maxBehindMs: 15_000,
  drainIntervalMs: 20,
};

interface Entry {
  text: string;
  /** For a progress frame: what it reports on, so a newer one for the same may replace it. */
  progressKey?: string;
}

/**
 * The key of a frame that carries nothing but progress: one index's generation progress
 * (`stream`), or one call's execution progress (`tool_execute` `progress`).
 */
function progressKey(frame: ServerFrame): string | undefined {
  if (frame.type === 'tool_execute') return frame.phase === 'progress' ? `call:${frame.callId}` : undefined;
  const progress = progressOnly(frame);
  return progress && `index:${progress.index}`;
}

export class Outbox {
  /** Progress frames replaced by a newer one while queued. */
  collapsed = 0;
  readonly #queue: Entry[] = [];
  /** Queued progress entries after the last other frame, by key: the ones a newer one may replace. */
  readonly #replaceable = new Map<string, Entry>();
  #queuedBytes = 0;
  #behindSince: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly sink: OutboxSink,
    private readonly limits: OutboxLimits = defaultOutboxLimits,
    private readonly now: () => number = Date.now,
  ) {}

  push(frame: ServerFrame, text: string): void {
    if (this.#closed) return;
    if (!this.#queue.length && this.sink.bufferedAmount() < this.limits.softLimitBytes) {
      this.sink.write(text);
      return;
    }
    const key = progressKey(frame);
    const queuedTwin = key === undefined ? undefined : this.#replaceable.get(key);
    if (queuedTwin) {
      this.#queuedBytes += text.length - queuedTwin.text.length;
      queuedTwin.text = text;
      this.collapsed++;
      this.limits.onCollapse?.();
    } else {
      const entry: Entry = key === undefined ? { text } : { text, progressKey: key };
      this.#queue.push(entry);
      this.#queuedBytes += text.length;
      if (key === undefined) this.#replaceable.clear();
      else this.#replaceable.set(key, entry);
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
      if (entry.progressKey !== undefined && this.#replaceable.get(entry.progressKey) === entry) {
        this.#replaceable.delete(entry.progressKey);
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
