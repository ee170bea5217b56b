import { expect, test } from 'vitest';
import { emptyView, reduce, snapshot, withoutArgumentText } from '../src/index.js';
import { ready, stream, userMessage } from './frames.js';

const fragment = (argumentsDelta: string, charsAccumulated: number, callId?: string) =>
  stream({
    toolCallProgress: {
      index: 0,
      name: 'write_file',
      charsAccumulated,
      argumentsDelta,
      ...(callId ? { callId } : {}),
    },
  });

test('the server keeps a written call’s id and its argument text so far, and a snapshot carries them', () => {
  let view = reduce(reduce(emptyView, ready(), 900), userMessage('q1', 'write it'), 1_000);
  view = reduce(view, fragment('{"pa', 4, 'call_7'), 1_100);
  view = reduce(view, fragment('th":"a"}', 12), 1_200);
  const resume = snapshot(view, 1_300)!;
  expect(resume.toolCallsProgress).toEqual([
    {
      index: 0,
      name: 'write_file',
      charsAccumulated: 12,
      callId: 'call_7',
      arguments: '{"path":"a"}',
      startedAt: 1_100,
      updatedAt: 1_200,
    },
  ]);
  // What a WebSocket client is sent instead: the count, never the text.
  const lean = withoutArgumentText(resume);
  expect(lean).not.toBe(resume);
  expect(lean.type === 'stream_resume' && lean.toolCallsProgress[0]).not.toHaveProperty('arguments');
  expect(withoutArgumentText(fragment('x', 1))).toEqual(
    stream({ toolCallProgress: { index: 0, name: 'write_file', charsAccumulated: 1 } }),
  );
});

test('a frame without argument text is passed on as the same object', () => {
  const frame = stream({ contentDelta: 'hi' });
  expect(withoutArgumentText(frame)).toBe(frame);
});
