import type { ServerFrame } from '@aalis/protocol';
import { describe, expect, test, vi } from 'vitest';
import { Outbox, type OutboxSink } from '../src/transport/outbox.js';

/** A socket whose buffer the test fills and empties by hand. */
function sink() {
  const written: ServerFrame[] = [];
  const state = { buffered: 0, closed: undefined as undefined | { code: number; reason: string } };
  const s: OutboxSink = {
    write: (text) => void written.push(JSON.parse(text)),
    bufferedAmount: () => state.buffered,
    close: (code, reason) => (state.closed = { code, reason }),
  };
  return { s, written, state };
}
const progress = (index: number, chars: number): ServerFrame => ({
  type: 'stream',
  sessionId: 's',
  toolCallProgress: { index, name: 't', charsAccumulated: chars },
});
const text = (contentDelta: string): ServerFrame => ({ type: 'stream', sessionId: 's', contentDelta });
const push = (box: Outbox, frame: ServerFrame) => box.push(frame, JSON.stringify(frame));
const limits = { softLimitBytes: 100, hardLimitBytes: 10_000, maxBehindMs: 1_000, drainIntervalMs: 5 };

describe('the outbox', () => {
  test('a socket that keeps up gets every frame at once', () => {
    const { s, written } = sink();
    const box = new Outbox(s, limits);
    for (let i = 0; i < 5; i++) push(box, progress(0, i));
    expect(written).toHaveLength(5);
  });

  test('behind: progress collapses to the newest per index; text and its order are kept', async () => {
    vi.useFakeTimers();
    const { s, written, state } = sink();
    const box = new Outbox(s, limits);
    state.buffered = 500;
    push(box, text('a'));
    push(box, progress(0, 1));
    push(box, progress(1, 1));
    push(box, progress(0, 2));
    push(box, progress(0, 3));
    push(box, text('b'));
    push(box, progress(0, 4));
    push(box, progress(0, 5));
    expect(written).toEqual([]);
    expect(box.collapsed).toBe(3);
    state.buffered = 0;
    await vi.advanceTimersByTimeAsync(10);
    expect(written).toEqual([text('a'), progress(0, 3), progress(1, 1), text('b'), progress(0, 5)]);
    vi.useRealTimers();
  });

  test("behind: a tool's execution progress collapses to the newest per call; start and end are kept", async () => {
    vi.useFakeTimers();
    const { s, written, state } = sink();
    const box = new Outbox(s, limits);
    const tool = (phase: 'start' | 'progress' | 'end', callId: string, progress?: number): ServerFrame => ({
      type: 'tool_execute',
      sessionId: 's',
      phase,
      callId,
      index: 0,
      name: 'crawl',
      ...(progress === undefined ? {} : { progress, total: 10 }),
    });
    state.buffered = 500;
    push(box, tool('start', 'a'));
    push(box, tool('progress', 'a', 1));
    push(box, tool('progress', 'b', 1));
    push(box, tool('progress', 'a', 2));
    push(box, progress(0, 7));
    push(box, tool('progress', 'a', 3));
    push(box, tool('end', 'a'));
    push(box, tool('progress', 'b', 2));
    expect(box.collapsed).toBe(2);
    state.buffered = 0;
    await vi.advanceTimersByTimeAsync(10);
    expect(written).toEqual([
      tool('start', 'a'),
      tool('progress', 'a', 3),
      tool('progress', 'b', 1),
      progress(0, 7),
      tool('end', 'a'),
      tool('progress', 'b', 2),
    ]);
    vi.useRealTimers();
  });

  test('a progress frame never jumps over text queued after it', async () => {
    vi.useFakeTimers();
    const { s, written, state } = sink();
    const box = new Outbox(s, limits);
    state.buffered = 500;
    push(box, progress(0, 1));
    push(box, text('x'));
    push(box, progress(0, 2));
    state.buffered = 0;
    await vi.advanceTimersByTimeAsync(10);
    expect(written).toEqual([progress(0, 1), text('x'), progress(0, 2)]);
    vi.useRealTimers();
  });

  test('a socket that stays behind too long is closed with 1008', async () => {
    vi.useFakeTimers();
    const { s, state } = sink();
    const box = new Outbox(s, limits, () => Date.now());
    state.buffered = 500;
    push(box, text('a'));
    await vi.advanceTimersByTimeAsync(1_100);
    expect(state.closed).toEqual({ code: 1008, reason: 'too far behind: reconnect to resume' });
    vi.useRealTimers();
  });

  test('a socket too far behind in bytes is closed at once', () => {
    const { s, state } = sink();
    const box = new Outbox(s, limits);
    state.buffered = 9_990;
    push(box, text('x'.repeat(100)));
    expect(state.closed?.code).toBe(1008);
  });
});
