/**
 * What a tool's result becomes: cut to a size every tab and the model can take, its
 * images kept whole for the user (within their own budget) and described, not sent, to
 * the model.
 */
import { describe, expect, test } from 'vitest';
import type { ChatMessage } from '@aalis/protocol';
import { capResult } from '../src/agent/cap-result.js';
import { toModelMessages } from '../src/agent/model-messages.js';

const image = (chars: number) => ({ type: 'image', mimeType: 'image/png', data: 'A'.repeat(chars) });

describe('capResult', () => {
  test('a short result is kept as it is; a long one is cut and says so', () => {
    expect(capResult({ a: 1 }, 100)).toEqual({ a: 1 });
    const cut = capResult('x'.repeat(500), 100) as string;
    expect(cut.startsWith('x'.repeat(100))).toBe(true);
    expect(cut).toContain('the result had 500 characters');
  });

  test('images are kept whole within their own budget; the rest are left out, and the result says so', () => {
    const result = { content: 'three pictures', images: [image(600), image(600), image(300)] };
    const capped = capResult(result, 100, 1_000) as { content: string; images: unknown[] };
    // The first fits, the second would pass the budget, the third still fits.
    expect(capped.images).toEqual([image(600), image(300)]);
    expect(capped.content).toBe('three pictures\n[1 of 3 images left out: over 1000 characters]');
  });

  test('a long text next to images is cut; the images stay whole', () => {
    const result = { content: 'y'.repeat(5_000), images: [image(2_000)] };
    const capped = capResult(result, 100, 10_000) as { content: string; images: unknown[] };
    expect(capped.images).toEqual([image(2_000)]);
    expect(capped.content).toContain('[cut:');
    expect(capped.content.length).toBeLessThan(300);
  });
});

test('the model is told an image exists, never sent its data', () => {
  const assistant: ChatMessage = {
    id: 'a1',
    role: 'assistant',
    createdAt: 1,
    status: 'complete',
    parts: [
      {
        type: 'tool_call',
        callId: 'c1',
        index: 0,
        name: 'get-tiny-image',
        arguments: {},
        status: 'done',
        result: { content: 'a tiny image', images: [image(4_096)] },
        startedAt: 1,
        endedAt: 2,
      },
    ],
  };
  const user: ChatMessage = { id: 'u1', role: 'user', createdAt: 0, parts: [{ type: 'text', text: 'hi' }] };
  const tool = toModelMessages([user, assistant]).find((m) => m.role === 'tool')!;
  expect(tool.content).toContain('a tiny image');
  expect(tool.content).toContain('an image of about 3 KB, shown to the user');
  expect(tool.content).not.toContain('AAAA');
});
