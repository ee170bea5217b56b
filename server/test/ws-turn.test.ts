import { progressList, type StreamResumeFrame } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { fixture } from './fake-upstream.js';
import { expectedFromSse } from './provider-helpers.js';
import { startServer, type Harness } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a turn on the wire', () => {
  test('hello, ready, send, user_message, one progress frame per fragment, tools by callId, the answer, message', async () => {
    server = await startServer({
      replies: [
        { body: fixture('openai-parallel-tool-calls.sse') },
        { body: fixture('openai-text-answer.sse') },
      ],
    });
    const client = await server.connect();
    const ready = await client.hello();
    expect(ready).toMatchObject({ resumed: false, messages: [], hasMore: false });
    expect(ready.sessionId).toMatch(/^[\w-]{22}$/);
    client.send({ type: 'send', text: 'Weather in Paris and Tokyo?', clientMessageId: 'c-1' });
    const message = await client.turnEnd();

    const types = client.frames.map((f) => f.type);
    expect(types.slice(0, 3)).toEqual(['ready', 'user_message', 'stream']);
    expect(client.of('user_message')[0]).toMatchObject({ clientMessageId: 'c-1', message: { role: 'user' } });
    const progress = client.of('stream').flatMap((f) => (f.toolCallProgress ? [f.toolCallProgress] : []));
    expect(progress.map(({ index, name, charsAccumulated }) => ({ index, name, charsAccumulated }))).toEqual(
      expectedFromSse(fixture('openai-parallel-tool-calls.sse').toString()).progress,
    );
    // The socket carries each card's count and call id, never the argument text: that comes once, with the start.
    expect(progress.every((p) => p.argumentsDelta === undefined)).toBe(true);
    expect(new Set(progress.map((p) => p.callId))).toEqual(new Set(['call_Hk3Lm2', 'call_Wq1Zr8']));
    const tools = client.of('tool_execute');
    expect(tools.map((t) => `${t.phase}:${t.callId}`).sort()).toEqual([
      'end:call_Hk3Lm2',
      'end:call_Wq1Zr8',
      'start:call_Hk3Lm2',
      'start:call_Wq1Zr8',
    ]);
    // The starts come before any end, and every tool frame before the second round's text.
    const firstText = types.findIndex((_, i) => (client.frames[i] as { contentDelta?: string }).contentDelta);
    expect(types.lastIndexOf('tool_execute')).toBeLessThan(firstText);
    expect(message.message.status).toBe('complete');
    expect(message.message.parts.map((p) => p.type)).toEqual(['tool_call', 'tool_call', 'text']);
    expect(types.at(-1)).toBe('message');
    // The client's view, built with the shared reducer, holds the finished exchange.
    expect(client.view.turn).toBeNull();
    expect(client.view.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  test('a refresh after the turn ended gets the history and no resume', async () => {
    server = await startServer({ replies: [{ body: fixture('openai-text-answer.sse') }] });
    const first = await server.connect();
    const { sessionId } = await first.hello();
    first.send({ type: 'send', text: 'hi' });
    await first.turnEnd();
    first.socket.close();

    const again = await server.connect();
    const ready = await again.hello(sessionId);
    expect(ready).toMatchObject({ sessionId, resumed: true });
    expect(ready.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    // A resume would follow ready at once, before the answer to any later frame: the
    // conversation list's answer is the proof that none was sent.
    again.send({ type: 'list_sessions' });
    await again.next((f) => f.type === 'sessions');
    expect(again.of('stream_resume')).toEqual([]);
  });

  test('an unknown session id gets a new session, with resumed: false', async () => {
    server = await startServer();
    const client = await server.connect();
    const ready = await client.hello('no-such-session');
    expect(ready.resumed).toBe(false);
    expect(ready.sessionId).not.toBe('no-such-session');
  });
});

describe('leaving and coming back mid-turn', () => {
  test('stream_resume keeps the first startedAt, carries the chars so far, and the end state matches a client that stayed', async () => {
    server = await startServer({
      replies: [
        { body: fixture('openai-long-tool-call.sse'), pieces: 600, delayMs: 4 },
        { body: fixture('openai-text-answer.sse') },
      ],
    });
    const stayer = await server.connect();
    const { sessionId } = await stayer.hello();
    stayer.send({ type: 'send', text: 'write the file' });
    await stayer.next((f) => f.type === 'stream' && (f.toolCallProgress?.charsAccumulated ?? 0) > 100);

    // A second tab joins, sees the card, leaves; joins again later.
    const resumeOf = async () => {
      const tab = await server!.connect();
      await tab.hello(sessionId);
      const resume = await tab.next((f): f is StreamResumeFrame => f.type === 'stream_resume');
      return { tab, resume };
    };
    const first = await resumeOf();
    const card = first.resume.toolCallsProgress[0]!;
    expect(card).toMatchObject({ index: 0, name: 'write_file' });
    expect(card.charsAccumulated).toBeGreaterThan(100);
    expect(card.startedAt).toBeLessThanOrEqual(first.resume.serverTime);
    expect(first.resume.parts).toEqual([]);
    first.tab.socket.close();
    const leftAt = Date.now();
    // Away until the call has grown (the stayer sees it).
    await stayer.next(
      (f) => f.type === 'stream' && (f.toolCallProgress?.charsAccumulated ?? 0) > card.charsAccumulated,
    );
    await first.tab.closed;

    const away = Date.now() - leftAt;
    const second = await resumeOf();
    const later = second.resume.toolCallsProgress[0]!;
    expect(later.startedAt).toBe(card.startedAt);
    expect(later.charsAccumulated).toBeGreaterThan(card.charsAccumulated);
    // The server's clock counts from the first start, not from the join: at least the time
    // the tab was away, on top of what it had shown.
    expect(second.resume.serverTime - later.startedAt).toBeGreaterThanOrEqual(
      away + first.resume.serverTime - card.startedAt,
    );

    // Frames after the resume continue the card, then the turn ends the same for both.
    await stayer.turnEnd();
    await second.tab.turnEnd();
    const afterResume = second.tab.frames.slice(2).find((f) => f.type === 'stream' && f.toolCallProgress);
    expect(afterResume, 'progress continues after the resume').toBeDefined();
    expect(
      (afterResume as { toolCallProgress: { charsAccumulated: number } }).toolCallProgress.charsAccumulated,
    ).toBeGreaterThanOrEqual(later.charsAccumulated);
    expect(second.tab.view.messages).toEqual(stayer.view.messages);
    expect(second.tab.view.turn).toBeNull();
  }, 15_000);

  test('while the card is live the resumed view shows it at once, with the server startedAt', async () => {
    server = await startServer({
      replies: [
        { body: fixture('openai-long-tool-call.sse'), pieces: 600, delayMs: 4 },
        { body: fixture('openai-text-answer.sse') },
      ],
    });
    const a = await server.connect();
    const { sessionId } = await a.hello();
    a.send({ type: 'send', text: 'go' });
    await a.next((f) => f.type === 'stream' && !!f.toolCallProgress);
    const b = await server.connect();
    await b.hello(sessionId);
    const resume = await b.next((f): f is StreamResumeFrame => f.type === 'stream_resume');
    const cards = progressList(b.view.turn!);
    expect(cards).toHaveLength(1);
    expect(cards[0]!.startedAt).toBe(resume.toolCallsProgress[0]!.startedAt);
    await a.turnEnd();
  });
});

describe('two tabs on one session', () => {
  test('both get the same frames; the other tab sees what was typed', async () => {
    server = await startServer({
      replies: [
        { body: fixture('openai-text-then-tool-call.sse') },
        { body: fixture('openai-text-answer.sse') },
      ],
    });
    const one = await server.connect();
    const { sessionId } = await one.hello();
    const two = await server.connect();
    await two.hello(sessionId);
    one.send({ type: 'send', text: 'search the docs', clientMessageId: 'm-9' });
    await one.turnEnd();
    await two.turnEnd();
    expect(two.frames.slice(1)).toEqual(one.frames.slice(1));
    expect(two.of('user_message')[0]?.message.parts).toEqual([{ type: 'text', text: 'search the docs' }]);
  });

  test('send while a turn runs answers busy, to that tab only', async () => {
    server = await startServer({
      replies: [
        { body: fixture('openai-long-tool-call.sse'), pieces: 300, delayMs: 3 },
        { body: fixture('openai-text-answer.sse') },
      ],
    });
    const one = await server.connect();
    const { sessionId } = await one.hello();
    const two = await server.connect();
    await two.hello(sessionId);
    one.send({ type: 'send', text: 'first' });
    await two.next((f) => f.type === 'stream');
    two.send({ type: 'send', text: 'second' });
    const busy = await two.next((f) => f.type === 'error');
    expect(busy).toMatchObject({ code: 'busy' });
    expect(busy).not.toHaveProperty('sessionId');
    await one.turnEnd();
    expect(one.of('error')).toEqual([]);
    expect(one.of('user_message')).toHaveLength(1);
  });

  test('closing a tab never stops the turn; abort does, and nothing half-written runs', async () => {
    server = await startServer({
      replies: [{ body: fixture('openai-long-tool-call.sse'), pieces: 600, delayMs: 4 }],
    });
    const one = await server.connect();
    const { sessionId } = await one.hello();
    one.send({ type: 'send', text: 'go' });
    await one.next((f) => f.type === 'stream' && !!f.toolCallProgress);
    one.socket.close();
    // Closed on both ends: the server has seen the tab go.
    await one.closed;
    const two = await server.connect();
    await two.hello(sessionId);
    await two.next((f) => f.type === 'stream_resume');
    two.send({ type: 'abort' });
    const end = await two.turnEnd();
    expect(end.message.status).toBe('aborted');
    expect(two.of('tool_execute')).toEqual([]);
    expect(server.upstream!.requests).toHaveLength(1);
  });
});
