/**
 * AG-UI out: the official client (`HttpAgent` from @ag-ui/client) runs turns against a
 * real server on a real port whose model is a fake upstream speaking Chat Completions
 * bytes; every event the server emits must validate with @ag-ui/core's own schemas.
 */
import { randomUUID } from 'node:crypto';
import { HttpAgent } from '@ag-ui/client';
import { EventType, type AssistantMessage } from '@ag-ui/core';
import { SignJWT } from 'jose';
import { afterEach, describe, expect, test } from 'vitest';
import { slowText, slowToolCall } from './scripted-replies.js';
import { Feed, textAnswer } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';
import { RejoiningAgent, argsCount, argsOf, recorder, until, userMessage } from './ag-ui-client.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const httpBase = (h: Harness) => h.url.replace(/^ws/, 'http').replace(/\/ws$/, '');

describe('POST /ag-ui', () => {
  test('HttpAgent runs a turn with a tool call: one ARGS per fragment, the result, the answer, and the call in its messages', async () => {
    const replies = slowToolCall(12, { delayMs: 5 });
    // The fragments of arguments the model writes, read from its Chat Completions bytes.
    const fragments = String(replies[0]!.body)
      .split('\n\n')
      .filter((event) => /"arguments":"[^"]/.test(event)).length;
    harness = await startServer({ replies });
    const agent = new HttpAgent({ url: `${httpBase(harness)}/ag-ui`, threadId: `thread-${randomUUID()}` });
    agent.addMessage(userMessage('What time is it in Paris?'));
    const { events, subscriber } = recorder();
    const runId = `run-${randomUUID()}`;
    await agent.runAgent({ runId }, subscriber);

    const types = events.map((e) => e.type);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
    expect(events[0]).toMatchObject({ threadId: agent.threadId, runId });
    expect(events.at(-1)).toMatchObject({ threadId: agent.threadId, runId });
    // One TOOL_CALL_ARGS per fragment the model wrote, adding up to the call.
    const sent = harness.upstream!.requests[1]!.body as {
      messages: Array<{ tool_calls?: Array<{ function: { arguments: string } }> }>;
    };
    const upstreamArgs = JSON.parse(
      sent.messages.flatMap((m) => m.tool_calls ?? [])[0]!.function.arguments,
    ) as unknown;
    expect(fragments).toBeGreaterThan(8);
    expect(types.filter((t) => t === EventType.TOOL_CALL_ARGS)).toHaveLength(fragments);
    expect(JSON.parse(argsOf(events, 'call_cluster'))).toEqual(upstreamArgs);
    expect(types.indexOf(EventType.TOOL_CALL_START)).toBeLessThan(types.indexOf(EventType.TOOL_CALL_END));
    expect(types.indexOf(EventType.TOOL_CALL_END)).toBeLessThan(types.indexOf(EventType.TOOL_CALL_RESULT));
    const card = events.find((e) => e.type === EventType.CUSTOM) as unknown as {
      name: string;
      value: { startedAt: number };
    };
    expect(card.name).toBe('aalis.tool_call_card');
    expect(card.value.startedAt).toBeGreaterThan(0);

    const assistant = agent.messages.find(
      (m): m is AssistantMessage => m.role === 'assistant' && Boolean(m.toolCalls?.length),
    );
    expect(assistant?.toolCalls?.[0]).toMatchObject({ id: 'call_cluster', function: { name: 'get_time' } });
    expect(JSON.parse(assistant!.toolCalls![0]!.function.arguments)).toEqual(upstreamArgs);
    expect(agent.messages.find((m) => m.role === 'tool')).toMatchObject({ toolCallId: 'call_cluster' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'It is noon in Paris.' });
  });

  test('a WebSocket tab of the same thread sees the turn without the argument text; the AG-UI stream gets it', async () => {
    // The model's tool call is let through once the tab has joined: it sees every fragment.
    const feed = new Feed();
    const [call, answer] = slowToolCall(8);
    harness = await startServer({ replies: [{ live: feed }, answer!] });
    const threadId = `thread-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${httpBase(harness)}/ag-ui`, threadId });
    agent.addMessage(userMessage('What time is it?'));
    const { events, subscriber } = recorder();
    const tab = await harness.connect();
    // The thread does not exist until the run makes it: the tab joins once it does.
    const ran = agent.runAgent({}, subscriber);
    await until(() => events.some((e) => e.type === EventType.RUN_STARTED));
    const ready = await tab.hello(threadId);
    feed.push(String(call!.body));
    feed.end();
    expect(ready.sessionId).toBe(threadId);
    await ran;
    await tab.next((f) => f.type === 'message');
    const progress = tab.frames.flatMap((f) =>
      f.type === 'stream' && f.toolCallProgress ? [f.toolCallProgress] : [],
    );
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((p) => p.argumentsDelta === undefined)).toBe(true);
    expect(argsOf(events, 'call_cluster').length).toBeGreaterThan(0);
  });

  test('a rejoin in the middle of the arguments yields the complete arguments, then the rest of the run', async () => {
    harness = await startServer({ replies: slowToolCall(40, { delayMs: 25 }) });
    const base = httpBase(harness);
    const threadId = `thread-${randomUUID()}`;
    const first = new HttpAgent({ url: `${base}/ag-ui`, threadId });
    first.addMessage(userMessage('What time is it in Paris?'));
    const asked = Date.now();
    const firstRun = recorder();
    const running = first.runAgent({}, firstRun.subscriber);
    // Some of the arguments are written: the page reloads (a new client, same thread).
    await until(() => argsCount(firstRun.events) >= 5);
    const again = new RejoiningAgent({ url: `${base}/ag-ui`, threadId }, base);
    const rejoin = recorder();
    await again.connectAgent({}, rejoin.subscriber);
    await running;

    const types = rejoin.events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual([EventType.RUN_STARTED, EventType.MESSAGES_SNAPSHOT]);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
    // The first ARGS after the rejoin holds everything written so far, in one event.
    const firstArgs = rejoin.events.find((e) => e.type === EventType.TOOL_CALL_ARGS) as unknown as {
      delta: string;
    };
    expect(firstArgs.delta.length).toBeGreaterThan(5);
    expect(argsOf(rejoin.events, 'call_cluster')).toBe(argsOf(firstRun.events, 'call_cluster'));
    // The card keeps its clock: the same start time live and after the rejoin.
    const cardOf = (events: typeof rejoin.events) =>
      (
        events.find((e) => (e as { name?: string }).name === 'aalis.tool_call_card') as unknown as {
          value: { startedAt: number; toolCallId: string };
        }
      ).value;
    // (Live, the run stamps the card as its frame reaches it, as every client does; the rejoin
    // sends the session buffer's stamp, taken as the frame passed the buffer: no later.)
    const [live, resumed] = [cardOf(firstRun.events), cardOf(rejoin.events)];
    expect(resumed.toolCallId).toBe(live.toolCallId);
    expect(resumed.startedAt).toBeGreaterThanOrEqual(asked);
    expect(resumed.startedAt).toBeLessThanOrEqual(live.startedAt);
    const call = again.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))[0];
    expect(JSON.parse(call!.function.arguments)).toEqual({ timezone: 'Europe/Paris' });
    expect(again.messages.some((m) => m.role === 'tool' && m.toolCallId === 'call_cluster')).toBe(true);
    expect(again.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'It is noon in Paris.' });
  });

  test('closing the stream leaves the turn running; POST .../stop stops it and closes the model request', async () => {
    harness = await startServer({ replies: slowToolCall(200, { delayMs: 20 }) });
    const base = httpBase(harness);
    const threadId = `thread-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${base}/ag-ui`, threadId });
    agent.addMessage(userMessage('What time is it?'));
    const { events, subscriber } = recorder();
    const running = agent.runAgent({}, subscriber).catch(() => undefined);
    await until(() => argsCount(events) >= 3);
    agent.abortRun();
    await running;
    // The turn goes on: a rejoin sees it live, with more arguments than before.
    const again = new RejoiningAgent({ url: `${base}/ag-ui`, threadId }, base);
    const rejoin = recorder();
    const rejoined = again.connectAgent({}, rejoin.subscriber);
    await until(() => argsCount(rejoin.events) >= 2);
    const stopped = await fetch(`${base}/ag-ui/threads/${threadId}/stop`, { method: 'POST' });
    expect(stopped.status).toBe(204);
    await harness.upstream!.closedEarly;
    await rejoined;
    expect(rejoin.events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'cancelled' },
    });
    expect((await fetch(`${base}/ag-ui/threads/unknown-thread/stop`, { method: 'POST' })).status).toBe(404);
  });

  test('a rejoin of a thread with no live run gives its messages and finishes; an unknown thread is 404', async () => {
    harness = await startServer({ replies: [{ body: textAnswer('Hello there.') }] });
    const base = httpBase(harness);
    const threadId = `thread-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${base}/ag-ui`, threadId });
    agent.addMessage(userMessage('Hi'));
    await agent.runAgent();
    const again = new RejoiningAgent({ url: `${base}/ag-ui`, threadId }, base);
    const { events, subscriber } = recorder();
    await again.connectAgent({}, subscriber);
    expect(events.map((e) => e.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.MESSAGES_SNAPSHOT,
      EventType.RUN_FINISHED,
    ]);
    expect(again.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello there.'],
    ]);
    const unknown = await fetch(`${base}/ag-ui/threads/never-made/stream`);
    expect(unknown.status).toBe(404);
  });

  test('an upstream failure is RUN_ERROR, and the next run of the thread works', async () => {
    harness = await startServer({
      replies: [
        { status: 400, body: '{"error":{"message":"bad request"}}' },
        { body: textAnswer('Fine now.') },
      ],
    });
    const threadId = `thread-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${httpBase(harness)}/ag-ui`, threadId });
    agent.addMessage(userMessage('Hi'));
    const { events, subscriber } = recorder();
    await agent.runAgent({}, subscriber).catch(() => undefined);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_ERROR, code: 'upstream' });
    agent.addMessage(userMessage('Again?'));
    await agent.runAgent();
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Fine now.' });
  });

  test('while a person answers the thread, a run hands its message to them and finishes: no turn, aalis.handoff', async () => {
    const admin = 'owner-token-0123456789';
    harness = await startServer({
      adminToken: admin,
      handoff: {},
      replies: [{ body: textAnswer('Model.') }],
    });
    const threadId = `thread-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${httpBase(harness)}/ag-ui`, threadId });
    agent.addMessage(userMessage('Hi'));
    await agent.runAgent();
    const reply = await fetch(`${httpBase(harness)}/admin/api/conversations/${threadId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'A person here.', operator: 'Ada' }),
    });
    expect(reply.status).toBe(200);
    agent.addMessage(userMessage('Thanks, Ada'));
    const { events, subscriber } = recorder();
    await agent.runAgent({}, subscriber);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, threadId });
    expect(events.find((e) => e.type === EventType.CUSTOM)).toMatchObject({
      name: 'aalis.handoff',
      value: { state: 'active' },
    });
    // The model was asked once: for the first run only.
    expect(harness.upstream!.requests).toHaveLength(1);
  });

  test('bad input is a 400 that says what is wrong; a page from another origin is refused', async () => {
    harness = await startServer({ allowedOrigins: ['https://shop.example'] });
    const base = httpBase(harness);
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}/ag-ui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const notInput = await post({ threadId: 't1' });
    expect(notInput.status).toBe(400);
    expect(((await notInput.json()) as { error: string }).error).toMatch(/^RunAgentInput\.runId/);
    const noUser = await post({ threadId: 't1', runId: 'r1', messages: [], tools: [], context: [] });
    expect(noUser.status).toBe(400);
    expect(((await noUser.json()) as { error: string }).error).toMatch(/no user message/);
    const badThread = await post({
      threadId: 'a b',
      runId: 'r1',
      messages: [userMessage('hi')],
      tools: [],
      context: [],
    });
    expect(badThread.status).toBe(400);
    const foreign = await post(
      { threadId: 't1', runId: 'r1', messages: [userMessage('hi')], tools: [], context: [] },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const preflight = await fetch(`${base}/ag-ui`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);
  });
});

test('a rejoin in the middle of the text continues the same message: the answer is one message, whole', async () => {
  harness = await startServer({ replies: [slowText(40)] });
  const base = httpBase(harness);
  const threadId = `thread-${randomUUID()}`;
  const first = new HttpAgent({ url: `${base}/ag-ui`, threadId });
  first.addMessage(userMessage('Talk to me'));
  const firstRun = recorder();
  const running = first.runAgent({}, firstRun.subscriber);
  await until(() => firstRun.events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).length >= 5);
  const again = new RejoiningAgent({ url: `${base}/ag-ui`, threadId }, base);
  const rejoin = recorder();
  await again.connectAgent({}, rejoin.subscriber);
  await running;
  const types = rejoin.events.map((e) => e.type);
  expect(types.slice(0, 4)).toEqual([
    EventType.RUN_STARTED,
    EventType.MESSAGES_SNAPSHOT,
    EventType.TEXT_MESSAGE_START,
    EventType.TEXT_MESSAGE_CONTENT,
  ]);
  const whole = Array.from({ length: 40 }, (_, i) => `word${i} `).join('');
  const answers = again.messages.filter((m) => m.role === 'assistant');
  expect(answers.map((m) => m.content)).toEqual([whole]);
});

describe('identity', () => {
  test('an anonymous visitor gets its key with its first run (header and event) and must send it back', async () => {
    harness = await startServer({
      auth: { mode: 'optional', secret: 'a-shared-secret-of-at-least-32-bytes!!' },
      replies: [{ body: textAnswer('First.') }, { body: textAnswer('Second.') }],
    });
    const base = httpBase(harness);
    const threadId = `thread-${randomUUID()}`;
    const agent = new HttpAgent({ url: `${base}/ag-ui`, threadId });
    agent.addMessage(userMessage('Hello'));
    const { events, subscriber } = recorder();
    await agent.runAgent({}, subscriber);
    const issued = events.find((e) => (e as { name?: string }).name === 'aalis.anonymous_key') as unknown as {
      value: { key: string };
    };
    expect(issued.value.key.length).toBeGreaterThan(20);
    // Without it the thread is another visitor's, and the refusal says what to send.
    agent.addMessage(userMessage('Again'));
    await expect(agent.runAgent()).rejects.toThrow(/403.*x-aalis-anonymous-key/);
    agent.headers = { 'x-aalis-anonymous-key': issued.value.key };
    await agent.runAgent();
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Second.' });
    const raw = await fetch(`${base}/ag-ui`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        threadId: `thread-${randomUUID()}`,
        runId: 'r1',
        messages: [userMessage('hi')],
        tools: [],
        context: [],
      }),
    });
    expect(raw.headers.get('x-aalis-anonymous-key')?.length).toBeGreaterThan(20);
    await raw.text();
  });

  const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
  const tokenFor = (sub: string) =>
    new SignJWT({ sub, exp: Math.floor(Date.now() / 1000) + 600 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(SECRET));

  test('no token when one is required is 401; another visitor never reads nor writes a thread that is not theirs', async () => {
    harness = await startServer({
      auth: { mode: 'required', secret: SECRET },
      replies: [{ body: textAnswer('Alice’s answer.') }],
    });
    const base = httpBase(harness);
    const threadId = `thread-${randomUUID()}`;
    const run = (token?: string) => {
      const agent = new HttpAgent({
        url: `${base}/ag-ui`,
        threadId,
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      });
      agent.addMessage(userMessage('Hello'));
      return agent.runAgent();
    };
    await expect(run()).rejects.toThrow(/401/);
    const alice = await tokenFor('alice');
    await run(alice);
    const bob = await tokenFor('bob');
    await expect(run(bob)).rejects.toThrow(/403/);
    const asBob = await fetch(`${base}/ag-ui/threads/${threadId}/stream`, {
      headers: { authorization: `Bearer ${bob}` },
    });
    expect(asBob.status).toBe(404);
    const asAlice = await fetch(`${base}/ag-ui/threads/${threadId}/stream`, {
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(asAlice.status).toBe(200);
    expect(await asAlice.text()).toContain('Alice’s answer.');
  });
});
