/**
 * A fake model API on 127.0.0.1 that writes real-format bytes (SSE or NDJSON) the way a
 * provider does: in pieces that split lines and UTF-8 characters at arbitrary points,
 * optionally slowly, optionally breaking the connection midway. It records every
 * request so tests can check what the provider sent.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** The body, written in `pieces` pieces of random size. */
  body?: string | Buffer;
  pieces?: number;
  /** Pause between pieces. */
  delayMs?: number;
  /** Destroy the socket after writing this many bytes of the body. */
  breakAfterBytes?: number;
  /** Never answer (for timeouts and aborts). */
  hang?: boolean;
  /** Write one SSE event (or NDJSON line) at a time instead of `pieces` random pieces. */
  byEvent?: boolean;
  /** Written after `body`, each piece as the test gives it, until it ends (a test-paced stream). */
  live?: AsyncIterable<string>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  /** When each request arrived (Date.now()). */
  requestTimes: number[];
  /** Every piece written, with the time it was written. */
  writes: Array<{ at: number; text: string }>;
  /** Resolves when a request's connection closed before its reply ended (an abort reached the server). */
  closedEarly: Promise<void>;
  /** Resolves with the request at `index` (0 is the first) once it has arrived. */
  request(index: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

export const fixture = (name: string): Buffer => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** Splits bytes at `pieces - 1` deterministic pseudo-random points. */
function split(bytes: Buffer, pieces: number, seed = 7): Buffer[] {
  if (pieces <= 1 || bytes.length < 2) return [bytes];
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const cuts = new Set<number>();
  while (cuts.size < Math.min(pieces - 1, bytes.length - 1))
    cuts.add(1 + Math.floor(random() * (bytes.length - 1)));
  const sorted = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
  return sorted.slice(1).map((end, i) => bytes.subarray(sorted[i], end));
}

/** Splits SSE or NDJSON text after each event: at blank lines, or at newlines when there are none. */
function byEvent(bytes: Buffer): Buffer[] {
  const text = bytes.toString('utf8');
  const separator = text.includes('\n\n') ? '\n\n' : '\n';
  return text
    .split(separator)
    .filter((part) => part.trim())
    .map((part) => Buffer.from(part + separator));
}

export async function startFakeUpstream(
  replies: Reply[] | ((request: RecordedRequest) => Reply),
): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const requestTimes: number[] = [];
  const writes: Array<{ at: number; text: string }> = [];
  let signalClosedEarly: () => void = () => {};
  const closedEarly = new Promise<void>((resolve) => (signalClosedEarly = resolve));
  const queue = Array.isArray(replies) ? [...replies] : undefined;
  const waiting = new Set<() => void>();

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    requestTimes.push(Date.now());
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Recorded as text.
    }
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body,
    };
    requests.push(recorded);
    for (const wake of waiting) wake();
    const reply = queue
      ? (queue.shift() ?? { status: 500, body: 'no reply scripted' })
      : (replies as (r: RecordedRequest) => Reply)(recorded);

    let finished = false;
    res.on('close', () => {
      if (!finished) signalClosedEarly();
    });
    if (reply.hang) return;
    const isJsonBody =
      typeof reply.body === 'string' &&
      reply.body.trimStart().startsWith('{') &&
      (reply.status ?? 200) >= 400;
    res.writeHead(reply.status ?? 200, {
      'content-type': isJsonBody ? 'application/json' : 'text/event-stream',
      ...reply.headers,
    });
    const bytes = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(reply.body ?? '');
    const limit = reply.breakAfterBytes ?? bytes.length;
    const pieces = reply.byEvent
      ? byEvent(bytes.subarray(0, limit))
      : split(bytes.subarray(0, limit), reply.pieces ?? 1);
    for (const piece of pieces) {
      if (res.destroyed) return;
      res.write(piece);
      writes.push({ at: Date.now(), text: piece.toString('utf8') });
      if (reply.delayMs) await sleep(reply.delayMs);
    }
    if (reply.breakAfterBytes !== undefined) {
      res.socket?.destroy();
      return;
    }
    for await (const piece of reply.live ?? []) {
      if (res.destroyed) return;
      res.write(piece);
      writes.push({ at: Date.now(), text: piece });
    }
    finished = true;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    requestTimes,
    writes,
    closedEarly,
    request: (index) =>
      new Promise((resolve) => {
        const wake = () => {
          if (index >= requests.length) return;
          waiting.delete(wake);
          resolve(requests[index]!);
        };
        waiting.add(wake);
        wake();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A stream a test writes piece by piece (`push`), for a reply's `live`: it waits for each. */
export class Feed implements AsyncIterable<string> {
  readonly #queue: Array<string | null> = [];
  #wake: (() => void) | undefined;

  push(...pieces: string[]): void {
    this.#queue.push(...pieces);
    this.#wake?.();
  }

  /** Ends the reply (after what was pushed). */
  end(): void {
    this.#queue.push(null);
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string> {
    for (;;) {
      while (!this.#queue.length) await new Promise<void>((resolve) => (this.#wake = resolve));
      const piece = this.#queue.shift()!;
      if (piece === null) return;
      yield piece;
    }
  }
}

/** An SSE body from chunk objects, each event ended by a blank line, with `[DONE]` unless told not. */
export function sse(chunks: unknown[], { done = true } = {}): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
}

/** A Chat Completions chunk with one choice. */
export function completionChunk(delta: Record<string, unknown>, finishReason: string | null = null): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_764_600_000,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** A whole plain-text answer: one complete round, as a real server streams it. */
export function textAnswer(text: string, promptTokens = 5, completionTokens = 5): string {
  return sse([
    completionChunk({ role: 'assistant', content: text }),
    completionChunk({}, 'stop'),
    usageChunk(promptTokens, completionTokens),
  ]);
}

export const usageChunk = (prompt: number, completion: number): unknown => ({
  id: 'chatcmpl-test',
  object: 'chat.completion.chunk',
  created: 1_764_600_000,
  model: 'test-model',
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});
