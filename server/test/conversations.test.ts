/**
 * A visitor's conversation list on real sockets: signed visitors and anonymous ones (by
 * their browser's key) see their own sessions only, name them, delete them; a server
 * without visitor identity lists none.
 */
import { SignJWT } from 'jose';
import type { ReadyFrame, SessionsFrame } from '@aalis/protocol';
import { afterEach, expect, test } from 'vitest';
import { textAnswer } from './fake-upstream.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const token = (sub: string) =>
  new SignJWT({ sub, exp: Math.floor(Date.now() / 1000) + 900 })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(SECRET));

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answers = (n: number) => Array.from({ length: n }, (_, i) => ({ body: textAnswer(`answer ${i}`) }));

async function hello(client: TestClient, more: Record<string, string> = {}): Promise<ReadyFrame> {
  const from = client.frames.length;
  client.send({ type: 'hello', protocol: 1, ...more });
  return client.next((f): f is ReadyFrame => f.type === 'ready', { from });
}
async function ask(client: TestClient, text: string) {
  const from = client.frames.length;
  client.send({ type: 'send', text });
  await client.turnEnd(from);
}
async function list(client: TestClient, frame: object = { type: 'list_sessions' }) {
  const from = client.frames.length;
  client.send(frame);
  return (await client.next((f): f is SessionsFrame => f.type === 'sessions', { from })).sessions;
}

test("a signed visitor lists, names and deletes its own conversations, never another's", async () => {
  server = await startServer({ replies: answers(4), auth: { mode: 'required', secret: SECRET } });
  const alice = await server.connect();
  const first = await hello(alice, { token: await token('alice') });
  await ask(alice, 'Where is my order #1042?');
  const second = await hello(alice, { token: await token('alice') });
  await ask(alice, 'Do you ship to Norway?');
  const bob = await server.connect();
  const bobs = await hello(bob, { token: await token('bob') });
  await ask(bob, 'Bob asks something private');

  // A visitor the server knows is told that it has conversations.
  expect([first.conversations, bobs.conversations]).toEqual([true, true]);
  const titles = (sessions: SessionsFrame['sessions']) => sessions.map((s) => [s.id, s.title]);
  expect(titles(await list(alice))).toEqual([
    [second.sessionId, 'Do you ship to Norway?'],
    [first.sessionId, 'Where is my order #1042?'],
  ]);
  expect(titles(await list(bob))).toEqual([[bobs.sessionId, 'Bob asks something private']]);

  // Renaming or deleting another visitor's session is refused and changes nothing.
  for (const frame of [
    { type: 'rename_session', sessionId: bobs.sessionId, title: 'mine now' },
    { type: 'delete_session', sessionId: bobs.sessionId },
  ]) {
    const from = alice.frames.length;
    alice.send(frame);
    expect(await alice.next((f) => f.type === 'error', { from })).toMatchObject({ code: 'bad_frame' });
  }
  expect(titles(await list(bob))).toEqual([[bobs.sessionId, 'Bob asks something private']]);

  const renamed = await list(alice, {
    type: 'rename_session',
    sessionId: first.sessionId,
    title: '  Order\n1042 ',
  });
  expect(renamed.find((s) => s.id === first.sessionId)!.title).toBe('Order 1042');
  // A second tab has the conversation open: it is told, and its view empties.
  const otherTab = await server.connect();
  await hello(otherTab, { token: await token('alice'), sessionId: second.sessionId });
  expect(otherTab.view.messages).toHaveLength(2);
  const afterDelete = await list(alice, { type: 'delete_session', sessionId: second.sessionId });
  expect(titles(afterDelete)).toEqual([[first.sessionId, 'Order 1042']]);
  expect(await otherTab.next((f) => f.type === 'session_deleted')).toEqual({
    type: 'session_deleted',
    sessionId: second.sessionId,
  });
  expect(otherTab.view.messages).toEqual([]);
  // Bob's tab heard nothing of it.
  expect(bob.of('session_deleted' as never)).toEqual([]);
  // Its history is gone: a hello with its id gets a new, empty session.
  const reopened = await hello(alice, { token: await token('alice'), sessionId: second.sessionId });
  expect(reopened.resumed).toBe(false);
});

test('an anonymous visitor lists the sessions of its browser (its key); another browser sees none of them', async () => {
  server = await startServer({ replies: answers(2), auth: { mode: 'optional', secret: SECRET } });
  const tab = await server.connect();
  const ready = await hello(tab);
  await ask(tab, 'Anonymous question');
  const key = ready.anonymousKey!;
  const sameBrowser = await server.connect();
  await hello(sameBrowser, { anonymousKey: key });
  expect((await list(sameBrowser)).map((s) => s.title)).toEqual(['Anonymous question']);
  const otherBrowser = await server.connect();
  await hello(otherBrowser);
  expect(await list(otherBrowser)).toEqual([]);
});

test('a conversation that is answering is not deleted', async () => {
  server = await startServer({
    replies: [{ body: textAnswer('slow answer'), byEvent: true, delayMs: 200 }],
    auth: { mode: 'required', secret: SECRET },
  });
  const alice = await server.connect();
  const { sessionId } = await hello(alice, { token: await token('alice') });
  alice.send({ type: 'send', text: 'talk slowly' });
  await alice.next((f) => f.type === 'user_message');
  const from = alice.frames.length;
  alice.send({ type: 'delete_session', sessionId });
  expect(await alice.next((f) => f.type === 'error' && f.sessionId === undefined, { from })).toMatchObject({
    code: 'busy',
  });
  await alice.turnEnd();
  expect((await list(alice)).map((s) => s.id)).toEqual([sessionId]);
});

test('without visitor identity there are no conversations to list, and none to change', async () => {
  server = await startServer({ replies: answers(1) });
  const client = await server.connect();
  const ready = await client.hello();
  const { sessionId } = ready;
  // No visitor: no conversation list (the widget shows no Conversations button).
  expect(ready.conversations).toBeUndefined();
  await ask(client, 'hi');
  expect(await list(client)).toEqual([]);
  const from = client.frames.length;
  client.send({ type: 'delete_session', sessionId });
  expect(await client.next((f) => f.type === 'error', { from })).toMatchObject({ code: 'bad_frame' });
  expect(await server.app.aalis.store.hasSession(sessionId)).toBe(true);
});
