/**
 * A model that writes a huge tool call. What must hold: the call is cut off at the cap
 * (never run, never sent back to the model) with a clear error, every reading tab stays
 * connected, a tab that joins later can always join, and arguments under the cap reach
 * each tab exactly once, however it joined.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { defineTool } from '../../src/tools/define-tool.js';
import { createAalisServer } from '../../src/app.js';
import { loadConfig } from '../../src/config/server-config.js';
import { completionChunk, sse, startFakeUpstream, textAnswer, usageChunk } from '../fake-upstream.js';
import { TestClient, startServer, type Harness } from '../ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A round that calls `save` with `content`, streamed in 50 KB argument fragments. */
function hugeCallRound(content: string): string {
  const args = JSON.stringify({ content });
  const fragments: string[] = [];
  for (let at = 0; at < args.length; at += 50_000) fragments.push(args.slice(at, at + 50_000));
  return sse([
    completionChunk({ role: 'assistant', content: null }),
    completionChunk({
      tool_calls: [{ index: 0, id: 'call_big', type: 'function', function: { name: 'save', arguments: '' } }],
    }),
    ...fragments.map((arguments_) =>
      completionChunk({ tool_calls: [{ index: 0, function: { arguments: arguments_ } }] }),
    ),
    completionChunk({}, 'tool_calls'),
    usageChunk(10, 5),
  ]);
}

/** Every frame a tab received, as the bytes it read. */
const wireText = (client: TestClient): string => client.frames.map((f) => JSON.stringify(f)).join('\n');
const count = (text: string, marker: string): number => text.split(marker).length - 1;

describe('a tool call over the cap', () => {
  test('a 10 MB call is cut off with too_large: it never runs, never goes back, and every tab stays', async () => {
    const ran: unknown[] = [];
    const save = defineTool({
      name: 'save',
      description: 'saves text',
      parameters: { type: 'object', properties: { content: { type: 'string' } } },
      execute: (args) => ran.push(args),
    });
    server = await startServer({
      replies: [
        { body: hugeCallRound('z'.repeat(10_000_000)), byEvent: true, delayMs: 2 },
        { body: textAnswer('after') },
      ],
      tools: [save],
    });
    const reader = await server.connect();
    const { sessionId } = await reader.hello();
    reader.send({ type: 'send', text: 'write me ten megabytes' });
    const end = await reader.turnEnd();

    expect(end.message).toMatchObject({ status: 'error', error: { code: 'too_large' } });
    expect(reader.of('error')).toEqual([
      expect.objectContaining({
        code: 'too_large',
        message: expect.stringMatching(/256000 characters of arguments/),
      }),
    ]);
    expect(reader.of('tool_execute')).toEqual([]);
    expect(ran).toEqual([]);
    await server.upstream!.closedEarly; // The request was cut, not read to its 10 MB end.
    expect(server.upstream!.requests).toHaveLength(1);
    // The reading tab got progress counts, not the arguments, and is still connected.
    expect(wireText(reader).length).toBeLessThan(100_000);
    expect(reader.socket.readyState).toBe(reader.socket.OPEN);

    const later = await server.connect();
    const ready = await later.hello(sessionId);
    expect(JSON.stringify(ready).length).toBeLessThan(10_000);
    expect(ready.messages.at(-1)).toMatchObject({ status: 'error', error: { code: 'too_large' } });
    // And the session goes on.
    reader.send({ type: 'send', text: 'something small then' });
    expect((await reader.turnEnd(reader.frames.length)).message.status).toBe('complete');
  });

  test("the cap is the site owner's: AALIS_MAX_TOOL_ARGUMENT_CHARS", async () => {
    const upstream = await startFakeUpstream([{ body: hugeCallRound('y'.repeat(2_000)), byEvent: true }]);
    const env = {
      PORT: '0',
      LOG_LEVEL: 'silent',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      AALIS_MAX_TOOL_ARGUMENT_CHARS: '1000',
      AALIS_DATA_DIR: ':memory:',
    };
    const aalis = await createAalisServer(loadConfig(env), env);
    try {
      await aalis.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = aalis.app.server.address() as { port: number };
      const client = await TestClient.open(`ws://127.0.0.1:${port}/ws`);
      await client.hello();
      client.send({ type: 'send', text: 'go' });
      expect((await client.turnEnd()).message.error).toMatchObject({
        code: 'too_large',
        message: expect.stringMatching(/passed 1000 characters/),
      });
      client.socket.close();
    } finally {
      await aalis.close();
      await upstream.close();
    }
  });

  test('AALIS_MAX_TOOL_ARGUMENT_CHARS must be a whole number', () => {
    expect(() => loadConfig({ AALIS_MAX_TOOL_ARGUMENT_CHARS: '1e6' })).toThrow(
      'AALIS_MAX_TOOL_ARGUMENT_CHARS must be a whole number of characters from 1 to 100000000; it is "1e6"',
    );
  });
});

test('an answer over the turn cap ends with too_large, not upstream', async () => {
  const pieces = Array.from({ length: 20 }, () => completionChunk({ content: 'x'.repeat(100) }));
  server = await startServer({
    replies: [{ body: sse([...pieces, completionChunk({}, 'stop')]), byEvent: true, delayMs: 2 }],
    sessions: { maxTurnChars: 1_000 },
  });
  const client = await server.connect();
  await client.hello();
  client.send({ type: 'send', text: 'go on and on' });
  const end = await client.turnEnd();
  expect(client.of('error')).toEqual([
    expect.objectContaining({
      code: 'too_large',
      message: 'the answer passed 1000 characters and was stopped',
    }),
  ]);
  expect(end.message).toMatchObject({ status: 'error', error: { code: 'too_large' } });
});

describe('arguments under the cap', () => {
  test('reach every tab exactly once: live, joined while the tool runs, and joined after', async () => {
    const marker = 'MARKER-';
    const content = `${marker}${'q'.repeat(200_000)}`;
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const save = defineTool({
      name: 'save',
      description: 'saves text',
      parameters: { type: 'object', properties: { content: { type: 'string' } }, required: ['content'] },
      execute: async (args) => {
        await released;
        return { saved: args.content.length };
      },
    });
    server = await startServer({
      replies: [{ body: hugeCallRound(content), byEvent: true }, { body: textAnswer('Saved.') }],
      tools: [save],
    });
    const live = await server.connect();
    const { sessionId } = await live.hello();
    live.send({ type: 'send', text: 'save this' });
    await live.next((f) => f.type === 'tool_execute' && f.phase === 'start');

    const joinedMidway = await server.connect();
    await joinedMidway.hello(sessionId);
    release();
    await live.turnEnd();
    await joinedMidway.turnEnd();

    const joinedAfter = await server.connect();
    await joinedAfter.hello(sessionId);

    for (const tab of [live, joinedMidway, joinedAfter]) {
      expect(count(wireText(tab), marker)).toBe(1);
      // And each still shows the whole call, arguments included, as the model wrote them.
      const last = tab.view.messages.at(-1)!;
      expect(last.parts.find((p) => p.type === 'tool_call')).toMatchObject({
        status: 'done',
        arguments: JSON.stringify({ content }),
      });
    }
  });

  test('a page of history is bounded in bytes: a tab joins a session of large answers, older ones page in', async () => {
    const big = (n: number) => `${n}:${'w'.repeat(400_000)}`;
    server = await startServer({
      replies: [1, 2, 3, 4].map((n) => ({ body: textAnswer(big(n)) })),
      sessions: { maxPageBytes: 1_000_000 },
    });
    const writer = await server.connect();
    const { sessionId } = await writer.hello();
    for (let i = 0; i < 4; i++) {
      writer.send({ type: 'send', text: `answer ${i}` });
      await writer.turnEnd(writer.frames.length);
    }
    const reader = await server.connect();
    const ready = await reader.hello(sessionId);
    expect(JSON.stringify(ready).length).toBeLessThan(1_100_000);
    expect(ready.hasMore).toBe(true);
    expect(ready.messages.at(-1)!.parts[0]).toMatchObject({ text: big(4) });
  });
});

test('a tool that returns 20 MB: the result is cut for every tab and the model, and a tab can still join', async () => {
  const dump = defineTool({
    name: 'dump',
    description: 'returns everything',
    parameters: { type: 'object' },
    execute: () => 'r'.repeat(20_000_000),
  });
  const call = sse([
    completionChunk({ role: 'assistant', content: null }),
    completionChunk({
      tool_calls: [
        { index: 0, id: 'call_dump', type: 'function', function: { name: 'dump', arguments: '{}' } },
      ],
    }),
    completionChunk({}, 'tool_calls'),
  ]);
  server = await startServer({
    replies: [{ body: call }, { body: textAnswer('That was a lot.') }],
    tools: [dump],
  });
  const client = await server.connect();
  const { sessionId } = await client.hello();
  client.send({ type: 'send', text: 'dump it' });
  expect((await client.turnEnd()).message.status).toBe('complete');
  const end = client.of('tool_execute').find((f) => f.phase === 'end')!;
  expect(end.result).toMatch(
    /^r{100000}… \[cut: the result had 20000000 characters, the first 100000 are kept\]$/,
  );
  const sentBack = (
    server.upstream!.requests[1]!.body as { messages: Array<{ role: string; content: string }> }
  ).messages.at(-1)!;
  expect(sentBack).toMatchObject({ role: 'tool', content: end.result });
  const later = await server.connect();
  const ready = await later.hello(sessionId);
  expect(JSON.stringify(ready).length).toBeLessThan(200_000);
});
