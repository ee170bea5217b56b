/**
 * The upstream core on its own: SSE read as the standard reads it (any line ending, pieces
 * split anywhere, comments, bounded lines and events), and the order each protocol holds a
 * run to, each violation a clear error on the turn, never a hang and never a call shown
 * run that was not written whole.
 */
import type { ChatMessage } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import type { ToolExecuteEvent } from '../src/agent/turn-agent.js';
import { Workspaces } from '../src/tools/workspace.js';
import { createUpstreamAgent, type UpstreamProtocolName } from '../src/upstream/registry.js';
import { sseEvents } from '../src/upstream/core/sse-events.js';
import { startFakeUpstream, sse, type FakeUpstream } from './fake-upstream.js';

async function read(pieces: Array<string | Uint8Array>, limits = { maxLineChars: 100, maxEventChars: 100 }) {
  const body = (async function* () {
    for (const piece of pieces) yield typeof piece === 'string' ? new TextEncoder().encode(piece) : piece;
  })();
  const events = [];
  for await (const event of sseEvents(body, 'test', limits)) events.push(event);
  return events;
}

describe('Server-Sent Events', () => {
  test('LF, CRLF and CR line ends, split anywhere, UTF-8 split inside a character', async () => {
    const text = 'data: {"a":"é"}\r\n\r\nevent: named\ndata: one\ndata: two\n\n: keep-alive\r\rdata:x\r\r';
    const bytes = new TextEncoder().encode(text);
    const whole = await read([bytes]);
    expect(whole).toEqual([{ data: '{"a":"é"}' }, { event: 'named', data: 'one\ntwo' }, { data: 'x' }]);
    // Every split point gives the same events (a CR at a piece's end waits for its LF).
    for (let at = 1; at < bytes.length; at++)
      expect(await read([bytes.subarray(0, at), bytes.subarray(at)])).toEqual(whole);
  });

  test('an event not ended by a blank line is dropped', async () => {
    expect(await read(['data: a\n\ndata: b\n'])).toEqual([{ data: 'a' }]);
  });

  test('a line or an event past its limit ends the stream as too_large', async () => {
    await expect(read([`data: ${'x'.repeat(200)}`])).rejects.toMatchObject({ kind: 'too_large' });
    await expect(read([`data: ${'x'.repeat(60)}\ndata: ${'y'.repeat(60)}\n\n`])).rejects.toMatchObject({
      kind: 'too_large',
    });
  });
});

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const question: ChatMessage = {
  id: 'q1',
  role: 'user',
  parts: [{ type: 'text', text: 'hi' }],
  createdAt: 1,
};

/** One turn of an agent that streams `body`: the result, and the tool events it emitted. */
async function turnOn(protocol: UpstreamProtocolName, body: string) {
  upstream = await startFakeUpstream([{ body }]);
  const errors: string[] = [];
  const agent = createUpstreamAgent(
    { protocol, url: upstream.url, retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } },
    { error: (object) => errors.push(String((object as { err?: Error }).err?.message)) },
  );
  const tools: ToolExecuteEvent[] = [];
  agent.on('tool:execute', (event) => tools.push(event));
  const result = await agent.runTurn({
    sessionId: 's1',
    history: [question],
    signal: new AbortController().signal,
    workspace: new Workspaces().for('s1'),
  });
  return { result, tools, logged: errors.join('\n') };
}

const agUi = (...events: object[]) =>
  sse([{ type: 'RUN_STARTED', threadId: 's1', runId: 'r' }, ...events], { done: false });
const finished = { type: 'RUN_FINISHED', threadId: 's1', runId: 'r' };

describe('the order a run is held to', () => {
  test.each<[string, UpstreamProtocolName, string, RegExp]>([
    [
      'arguments for a call never started',
      'ag-ui',
      agUi({ type: 'TOOL_CALL_ARGS', toolCallId: 'c9', delta: '{}' }, finished),
      /TOOL_CALL_ARGS for tool call c9, which never started/,
    ],
    [
      'a result before the arguments ended',
      'ag-ui',
      agUi(
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 't' },
        { type: 'TOOL_CALL_RESULT', messageId: 'm', toolCallId: 'c1', content: 'x' },
        finished,
      ),
      /TOOL_CALL_RESULT for tool call c1 before its arguments ended/,
    ],
    [
      'a second result',
      'ag-ui',
      agUi(
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 't' },
        { type: 'TOOL_CALL_END', toolCallId: 'c1' },
        { type: 'TOOL_CALL_RESULT', messageId: 'm', toolCallId: 'c1', content: 'x' },
        { type: 'TOOL_CALL_RESULT', messageId: 'm2', toolCallId: 'c1', content: 'y' },
        finished,
      ),
      /a second TOOL_CALL_RESULT for tool call c1/,
    ],
    [
      'no RUN_STARTED first',
      'ag-ui',
      sse([{ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'hi' }, finished], { done: false }),
      /TEXT_MESSAGE_CHUNK before RUN_STARTED/,
    ],
    [
      'a chunked call without its tool name',
      'ag-ui',
      agUi({ type: 'TOOL_CALL_CHUNK', toolCallId: 'c1', delta: '{}' }, finished),
      /TOOL_CALL_CHUNK opening tool call c1 without its toolCallName/,
    ],
    [
      'text for a block never opened',
      'ai-sdk',
      sse([{ type: 'start' }, { type: 'text-delta', id: 't1', delta: 'hi' }, { type: 'finish' }]),
      /text-delta for text t1, which is not open/,
    ],
    [
      'an output for a call whose input never came',
      'ai-sdk',
      sse([
        { type: 'tool-input-start', toolCallId: 'c1', toolName: 't' },
        { type: 'tool-output-available', toolCallId: 'c1', output: 1 },
        { type: 'finish' },
      ]),
      /tool-output-available for tool call c1 before its arguments ended/,
    ],
    [
      'finish while a call is still written',
      'ai-sdk',
      sse([
        { type: 'tool-input-start', toolCallId: 'c1', toolName: 't' },
        { type: 'tool-input-delta', toolCallId: 'c1', inputTextDelta: '{"a"' },
        { type: 'finish' },
      ]),
      /finish while tool call c1 was still being written/,
    ],
  ])(
    '%s: the turn fails, with the event named in the log, and no call is left running',
    async (_name, protocol, body, logged) => {
      const { result, tools, logged: log } = await turnOn(protocol, body);
      expect(result.error).toMatchObject({
        code: 'upstream',
        message: 'the agent sent an answer that could not be read',
      });
      expect(result.message.status).toBe('error');
      const started = tools.filter((t) => t.phase === 'start').map((t) => t.callId);
      expect(tools.filter((t) => t.phase === 'end').map((t) => t.callId)).toEqual(started);
      expect(log).toMatch(logged);
    },
  );
});

describe('what is held back while a call is written', () => {
  test('text that waits on a call never finished is capped: the turn ends too_large, not out of memory', async () => {
    // The text comes while the call is written, so it is held (it would end the call's card);
    // it is not shown, so the turn's own cap never sees it.
    const text = (delta: string) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta });
    const { result, tools } = await turnOn(
      'ag-ui',
      agUi(
        { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'write_file' },
        { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
        ...Array.from({ length: 11 }, () => text('x'.repeat(100_000))),
        finished,
      ),
    );
    expect(result.error).toMatchObject({ code: 'too_large' });
    expect(result.message.parts.filter((p) => p.type === 'text')).toEqual([]);
    expect(tools.filter((t) => t.phase === 'start')).toEqual([]);
  });
});
