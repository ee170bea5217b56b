/**
 * The conversation as providers are given it: rounds told apart by the record an answer
 * keeps when its provider gave something to send back, and tool images passed on.
 */
import { describe, expect, test } from 'vitest';
import type { ChatMessage, ToolCallPart } from '@aalis/protocol';
import { loadImages } from '../src/agent/load-images.js';
import { toModelMessages } from '../src/agent/model-messages.js';
import type { StoredMessage } from '../src/agent/stored-message.js';

const user: ChatMessage = { id: 'u1', role: 'user', createdAt: 0, parts: [{ type: 'text', text: 'go' }] };

const call = (callId: string, index: number, result: unknown = 'ok'): ToolCallPart => ({
  type: 'tool_call',
  callId,
  index,
  name: 'look',
  arguments: { q: callId },
  status: 'done',
  result,
  startedAt: 0,
});

const thinking = (n: number) => ({
  provider: 'anthropic',
  items: [{ type: 'redacted_thinking', data: `opaque-${n}` }],
});

describe('rounds', () => {
  test('two rounds of calls with no text between stay two rounds when the answer kept its record', () => {
    const answer: StoredMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 0,
      status: 'complete',
      // Round 2 started with redacted thinking only: nothing in the parts separates it.
      parts: [call('c1', 0), call('c2', 0), { type: 'text', text: 'done' }],
      rounds: [
        { callIds: ['c1'], replay: thinking(1) },
        { callIds: ['c2'], replay: thinking(2) },
        { callIds: [] },
      ],
    };
    const messages = toModelMessages([user, answer]);
    expect(messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
    const [, first, , second, , last] = messages as Array<Record<string, unknown>>;
    expect(first).toMatchObject({ replay: thinking(1), toolCalls: [{ id: 'c1' }] });
    expect(second).toMatchObject({ replay: thinking(2), toolCalls: [{ id: 'c2' }] });
    expect(last).toEqual({ role: 'assistant', content: 'done' });
  });

  test('without a record, such calls are one round, as before (Chat Completions takes that)', () => {
    const answer: ChatMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 0,
      status: 'complete',
      parts: [call('c1', 0), call('c2', 0), { type: 'text', text: 'done' }],
    };
    const roles = toModelMessages([user, answer]).map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  test('calls that started out of order (one waited for approval) stay in their round', () => {
    const answer: StoredMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 0,
      status: 'complete',
      parts: [{ type: 'text', text: 'two' }, call('c2', 1), call('c1', 0), { type: 'text', text: 'ok' }],
      rounds: [{ callIds: ['c1', 'c2'], replay: thinking(1) }, { callIds: [] }],
    };
    const messages = toModelMessages([user, answer]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(messages[1]).toMatchObject({ content: 'two', replay: thinking(1) });
  });
});

describe('tool results', () => {
  test('images go along for the providers that can show them; the text only describes them', () => {
    const png = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo' };
    const answer: ChatMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 0,
      status: 'complete',
      parts: [call('c1', 0, { content: 'a chart', images: [png] })],
    };
    const tool = toModelMessages([user, answer]).find((m) => m.role === 'tool')!;
    expect(tool).toMatchObject({ images: [{ mimeType: 'image/png', data: 'iVBORw0KGgo' }] });
    expect(tool.content).not.toContain('iVBORw0KGgo');
    expect(tool).not.toHaveProperty('isError');
  });

  test('a failed or unfinished call is marked as an error', () => {
    const failed = { ...call('c1', 0, 'boom'), status: 'error' as const };
    const unknown = { ...call('c2', 1), status: 'unknown' as const, result: undefined };
    const answer: ChatMessage = {
      id: 'a1',
      role: 'assistant',
      createdAt: 0,
      status: 'error',
      parts: [failed, unknown],
    };
    const tools = toModelMessages([user, answer]).filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.role === 'tool' && m.isError)).toEqual([true, true]);
  });
});

test("a question's images go with it, in order; one not given is mentioned in the text", () => {
  const ref = (id: string) => ({ id, mimeType: 'image/png' as const, width: 1, height: 1, bytes: 5 });
  const asked: ChatMessage = { ...user, images: [ref('img_a'), ref('img_gone'), ref('img_b')] };
  const images = new Map([
    ['img_a', { mimeType: 'image/png', data: 'AAAA' }],
    ['img_b', { mimeType: 'image/png', data: 'BBBB' }],
  ]);
  expect(toModelMessages([asked], images)).toEqual([
    {
      role: 'user',
      content: 'go\n\n(1 attached image(s), not shown to you.)',
      images: [
        { mimeType: 'image/png', data: 'AAAA' },
        { mimeType: 'image/png', data: 'BBBB' },
      ],
    },
  ]);
  expect(toModelMessages([user], images)).toEqual([{ role: 'user', content: 'go' }]);
});

test("a turn shows the model the conversation's newest images, within a count and a size", async () => {
  const ref = (id: string, bytes: number) => ({
    id,
    mimeType: 'image/png' as const,
    width: 1,
    height: 1,
    bytes,
  });
  const asked = (id: string, ...images: Array<ReturnType<typeof ref>>): ChatMessage => ({
    ...user,
    id,
    images,
  });
  const history = [
    asked('q1', ref('a', 40)),
    asked('q2', ref('b', 40), ref('c', 40)),
    asked('q3', ref('d', 40)),
  ];
  const source = async (id: string) => ({ mimeType: 'image/png', data: Buffer.alloc(40, id) });
  const keys = async (limits: { count: number; bytes: number }) => [
    ...(await loadImages(history, source, limits)).keys(),
  ];
  expect(await keys({ count: 10, bytes: 1_000 })).toEqual(['d', 'c', 'b', 'a']);
  expect(await keys({ count: 2, bytes: 1_000 })).toEqual(['d', 'c']);
  expect(await keys({ count: 10, bytes: 120 })).toEqual(['d', 'c', 'b']);
  // None for a model that reads none.
  expect((await loadImages(history, undefined)).size).toBe(0);
});
