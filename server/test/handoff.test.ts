/**
 * Handing a conversation to a person (PROTOCOL.md section 8) on real sockets and HTTP:
 * the visitor asks, every tab hears `waiting`, the site's webhook gets a signed POST
 * (retried after a 503); a person replies from the console API, every tab gets the reply
 * and `active`, a running answer stops; the visitor's messages then reach the person (the
 * console's live events) and never the model; released, the model answers again. Also:
 * the model's own `handoff` tool, and a server that offers no person.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { webhookSignature } from '../src/admin/handoff-webhook.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { completionChunk, sse, textAnswer, usageChunk } from './fake-upstream.js';
import { toolCallThen } from './scripted-replies.js';
import { startServer, type Harness } from './ws-harness.js';

const ADMIN = 'owner-token-0123456789';
const SECRET = 'webhook-secret-0123456789';
let harness: Harness | undefined;
const closers: Array<() => void> = [];
afterEach(async () => {
  // The server ends the console's live stream itself as it closes.
  await harness?.close();
  harness = undefined;
  for (const close of closers.splice(0)) close();
});

const httpOf = (h: Harness) => h.url.replace(/^ws/, 'http').replace(/\/ws$/, '');
const api = (path: string, body?: object) =>
  fetch(`${httpOf(harness!)}/admin/api/${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { authorization: `Bearer ${ADMIN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });

/** The site's webhook receiver: answers each POST with the next status, records them. */
async function webhookReceiver(statuses: number[]) {
  const received: Array<{ body: string; headers: IncomingMessage['headers'] }> = [];
  const waiters: Array<() => void> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ body, headers: request.headers });
      response.writeHead(statuses.shift() ?? 204).end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    async count(n: number) {
      while (received.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}

/** The console's live events of a conversation, as frames. */
async function watch(sessionId: string) {
  const controller = new AbortController();
  closers.push(() => controller.abort());
  const answer = await fetch(`${httpOf(harness!)}/admin/api/conversations/${sessionId}/events`, {
    headers: { authorization: `Bearer ${ADMIN}` },
    signal: controller.signal,
  });
  expect(answer.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const frames: Array<{ type: string; [key: string]: unknown }> = [];
  const waiters: Array<() => void> = [];
  const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      text += value;
      const events = text.split('\n\n');
      text = events.pop()!;
      for (const event of events) if (event.startsWith('data: ')) frames.push(JSON.parse(event.slice(6)));
      for (const wake of waiters.splice(0)) wake();
    }
  })();
  return {
    frames,
    /** The first event that matches, once it has come (the test's own timeout bounds the wait). */
    async next(match: (frame: { type: string; [key: string]: unknown }) => boolean) {
      for (;;) {
        const found = frames.find(match);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}

const slowText = (words: number) => ({
  body: sse([
    completionChunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: words }, (_, i) => completionChunk({ content: `w${i} ` })),
    completionChunk({}, 'stop'),
    usageChunk(1, words),
  ]),
  byEvent: true,
  delayMs: 40,
});

describe('handoff to a person', () => {
  test('not offered: ready says nothing of it, and a handoff frame is refused', async () => {
    harness = await startServer({ adminToken: ADMIN, auth: { mode: 'optional' } });
    const tab = await harness.connect();
    const ready = await tab.hello();
    expect(ready.handoffOffered).toBeUndefined();
    tab.send({ type: 'handoff' });
    expect(await tab.next((f) => f.type === 'error')).toMatchObject({ code: 'bad_frame' });
    expect((await api(`conversations/${ready.sessionId}/release`, {})).status).toBe(404);
    // The console is told so, and offers no replies.
    expect(await (await api('session')).json()).toEqual({});
  });

  test('asked, signed to the webhook, answered from the console, the model silent, released', async () => {
    const hook = await webhookReceiver([503]);
    const store = new MemoryHistoryStore();
    harness = await startServer({
      store,
      adminToken: ADMIN,
      auth: { mode: 'optional' },
      handoff: { webhook: hook.url, webhookSecret: SECRET, consoleUrl: 'https://chat.example.com/admin' },
      replies: [
        { body: textAnswer('I am the model.') },
        slowText(200),
        { body: textAnswer('The model again.') },
      ],
    });
    const tab = await harness.connect();
    const ready = await tab.hello(undefined, undefined, undefined, ['operator']);
    expect(ready.handoffOffered).toBe(true);
    expect(ready.handoff).toBeUndefined();
    expect(await (await api('session')).json()).toEqual({ handoffOffered: true });
    const { sessionId, anonymousKey } = ready;
    tab.send({ type: 'send', text: 'hello' });
    await tab.turnEnd();
    const second = await harness.connect();
    await second.hello(sessionId, undefined, anonymousKey, ['operator']);
    // A client of before handoffs: it names no `operator` feature.
    const older = await harness.connect();
    await older.hello(sessionId, undefined, anonymousKey);

    tab.send({ type: 'handoff', reason: '  I want\na refund  ' });
    for (const client of [tab, second])
      expect(await client.next((f) => f.type === 'handoff')).toMatchObject({
        state: 'waiting',
        reason: 'I want a refund',
      });
    // The site is told, signed; a 503 is tried again.
    await hook.count(2);
    const [first, retried] = hook.received;
    expect(retried!.body).toBe(first!.body);
    const told = JSON.parse(retried!.body) as Record<string, unknown>;
    expect(told).toMatchObject({
      sessionId,
      reason: 'I want a refund',
      url: `https://chat.example.com/admin#${sessionId}`,
    });
    expect(told.visitorId).toMatch(/^anon:/);
    const stamp = retried!.headers['x-aalis-timestamp'] as string;
    expect(retried!.headers['x-aalis-signature']).toBe(webhookSignature(SECRET, stamp, retried!.body));
    // Asked again: nothing new.
    tab.send({ type: 'handoff' });
    // The console lists it as waiting.
    const waiting = (await (await api('conversations?handoff=waiting')).json()) as {
      conversations: Array<{ sessionId: string; handoff: string }>;
    };
    expect(waiting.conversations).toEqual([expect.objectContaining({ sessionId, handoff: 'waiting' })]);

    // While waiting the model still answers; a person's reply stops it mid-answer.
    const live = await watch(sessionId);
    await live.next((f) => f.type === 'ready');
    tab.send({ type: 'send', text: 'talk for long' });
    await tab.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
    const reply = await api(`conversations/${sessionId}/messages`, {
      text: 'Hi, I am Ada. Let me look.',
      operator: 'Ada',
    });
    expect(reply.status).toBe(200);
    for (const client of [tab, second]) {
      expect(await client.next((f) => f.type === 'handoff' && f.state === 'active')).toMatchObject({
        operator: 'Ada',
      });
      expect(await client.next((f) => f.type === 'message' && f.message.role === 'operator')).toMatchObject({
        message: { author: 'Ada', parts: [{ type: 'text', text: 'Hi, I am Ada. Let me look.' }] },
      });
    }
    const stopped = await tab.next(
      (f) => f.type === 'message' && f.message.role === 'assistant' && f.message.status === 'aborted',
    );
    expect(stopped).toBeDefined();
    // Answering told the site nothing new.
    expect(hook.received).toHaveLength(2);

    // Now the visitor's messages are the person's: stored, shown, no turn, not the model's.
    const asked = harness.upstream!.requests.length;
    tab.send({ type: 'send', text: 'my order is 1234', clientMessageId: 'c1' });
    const sent = await second.next((f) => f.type === 'user_message' && f.message.toOperator === true);
    expect(sent).toMatchObject({
      clientMessageId: 'c1',
      message: { parts: [{ type: 'text', text: 'my order is 1234' }] },
    });
    await live.next(
      (f) => f.type === 'user_message' && (f.message as { toOperator?: boolean }).toOperator === true,
    );
    tab.send({ type: 'regenerate', messageId: 'whatever', clientMessageId: 'r1' });
    expect(await tab.next((f) => f.type === 'error' && f.clientMessageId === 'r1')).toMatchObject({
      code: 'busy',
    });
    expect(harness.upstream!.requests.length).toBe(asked);
    // A tab opened now: the person's reply in its history, and the state.
    const third = await harness.connect();
    const again = await third.hello(sessionId, undefined, anonymousKey, ['operator']);
    expect(again.handoff).toMatchObject({ state: 'active', operator: 'Ada', reason: 'I want a refund' });
    expect(again.messages.map((m) => [m.role, m.toOperator ?? false])).toEqual([
      ['user', false],
      ['assistant', false],
      ['user', false],
      ['operator', false],
      ['assistant', false],
      ['user', true],
    ]);

    // The older client was sent none of the person's messages, live or in its history:
    // it would refuse a frame holding one (an unknown role), its `ready` included.
    expect(older.frames.some((f) => f.type === 'message' && f.message.role === 'operator')).toBe(false);
    expect(older.frames.some((f) => f.type === 'user_message' && f.message.toOperator)).toBe(true);
    const olderAgain = await (await harness.connect()).hello(sessionId, undefined, anonymousKey);
    expect(olderAgain.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);

    // Released: the model answers again, having read what the person said.
    expect((await api(`conversations/${sessionId}/release`, {})).status).toBe(204);
    expect(await second.next((f) => f.type === 'handoff' && f.state === 'off')).toBeDefined();
    const from = tab.frames.length;
    tab.send({ type: 'send', text: 'thanks' });
    const end = await tab.next((f) => f.type === 'message' && f.message.role === 'assistant', { from });
    expect(end).toMatchObject({
      message: { status: 'complete', parts: [{ type: 'text', text: 'The model again.' }] },
    });
    const context = JSON.stringify(harness.upstream!.requests.at(-1)!.body);
    expect(context).toContain('Ada from the site wrote:');
    expect(context).toContain('my order is 1234');
    for (const bad of [
      {},
      { text: '' },
      { text: 'x'.repeat(20_001) },
      { text: 'hi', operator: 'x'.repeat(81) },
    ])
      expect((await api(`conversations/${sessionId}/messages`, bad)).status).toBe(400);
    expect((await api('conversations/nope/messages', { text: 'hi' })).status).toBe(404);
  }, 30_000);

  test('the model asks for a person with its handoff tool', async () => {
    harness = await startServer({
      adminToken: ADMIN,
      auth: { mode: 'optional' },
      handoff: {},
      replies: toolCallThen('handoff', '{"reason":"wants a human"}', 'A person will join you soon.'),
    });
    const tab = await harness.connect();
    await tab.hello();
    tab.send({ type: 'send', text: 'let me talk to a human' });
    expect(await tab.next((f) => f.type === 'handoff')).toMatchObject({
      state: 'waiting',
      reason: 'wants a human',
    });
    const end = await tab.turnEnd();
    expect(end.message.parts.find((p) => p.type === 'tool_call')).toMatchObject({
      name: 'handoff',
      status: 'done',
    });
  });
});
