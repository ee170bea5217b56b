/**
 * Server-Sent Events from a response body, as the HTML standard reads them: lines ended
 * by LF, CRLF or CR (split anywhere across the body's pieces, UTF-8 characters too), `data`
 * lines joined by newlines, an event dispatched at a blank line, comments (`: ping`, the
 * keep-alives agents send while a tool runs) skipped, an event not ended by a blank line
 * dropped. Bounded: a line or an event longer than the limits ends the run as
 * `too_large` rather than growing without end in memory.
 */
import type { SseEvent } from './agent-event.js';
import { AgentRunError } from './agent-errors.js';

export interface SseLimits {
  /** Longest line, in characters. */
  maxLineChars: number;
  /** Longest event's data, in characters. */
  maxEventChars: number;
}

/** 8 Mi characters each: a whole file in a tool result fits, a runaway stream does not. */
export const DEFAULT_SSE_LIMITS: SseLimits = {
  maxLineChars: 8 * 1024 * 1024,
  maxEventChars: 8 * 1024 * 1024,
};

/** `heard` is told of every piece of the body, keep-alives included: the agent is alive. */
export async function* sseEvents(
  body: AsyncIterable<Uint8Array>,
  agent: string,
  limits: SseLimits = DEFAULT_SSE_LIMITS,
  heard: () => void = () => {},
): AsyncGenerator<SseEvent> {
  const tooLarge = (what: string, max: number) =>
    new AgentRunError('too_large', `the ${agent} agent sent ${what} longer than ${max} characters`);
  const decoder = new TextDecoder();
  let buffered = '';
  let data: string[] = [];
  let dataChars = 0;
  let name: string | undefined;
  /** How much of `buffered` is known to hold no line end: a long line is searched once. */
  let scanned = 0;
  /** One line read: the event it dispatches (a blank line after data), if any. */
  const take = (line: string): SseEvent | undefined => {
    if (line.length > limits.maxLineChars) throw tooLarge('a line', limits.maxLineChars);
    if (line === '') {
      const event = data.length
        ? { ...(name === undefined ? {} : { event: name }), data: data.join('\n') }
        : undefined;
      data = [];
      dataChars = 0;
      name = undefined;
      return event;
    }
    const colon = line.indexOf(':');
    // A line that starts with a colon is a comment.
    if (colon === 0) return undefined;
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      dataChars += value.length + 1;
      if (dataChars > limits.maxEventChars) throw tooLarge('an event', limits.maxEventChars);
      data.push(value);
    } else if (field === 'event') name = value;
    // `id` and `retry` serve reconnecting EventSources; a run is never reconnected.
    return undefined;
  };
  for await (const piece of body) {
    heard();
    buffered += decoder.decode(piece, { stream: true });
    let start = 0;
    for (;;) {
      const end = lineEnd(buffered, start, scanned);
      if (end === undefined) break;
      scanned = 0;
      const event = take(buffered.slice(start, end.at));
      start = end.next;
      if (event) yield event;
    }
    buffered = buffered.slice(start);
    scanned = buffered.endsWith('\r') ? buffered.length - 1 : buffered.length;
    // A line still without its end is refused as soon as it is too long, not read on.
    if (buffered.length > limits.maxLineChars) throw tooLarge('a line', limits.maxLineChars);
  }
  // A CR that ended the body ended its line: no LF can follow it now.
  if (buffered.endsWith('\r')) {
    const event = take(buffered.slice(0, -1));
    if (event) yield event;
  }
}

/**
 * Where the line that starts at `from` ends, and where the next begins; undefined while
 * its end has not arrived. The first `scanned` characters are known to hold none. A CR last in the buffer waits: an LF may follow in the next piece.
 */
function lineEnd(text: string, from: number, scanned: number): { at: number; next: number } | undefined {
  for (let i = Math.max(from, scanned); i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 10) return { at: i, next: i + 1 };
    if (char === 13) {
      if (i + 1 === text.length) return undefined;
      return { at: i, next: text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1 };
    }
  }
  return undefined;
}
