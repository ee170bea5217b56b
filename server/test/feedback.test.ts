/**
 * A visitor's thumbs up or down on an answer, on real sockets: every tab of the session
 * sees it, it is counted in the metrics, it is in the history after a restart, and an id
 * that is not an answer of the session is refused without anything kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import { textAnswer } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';

const dirs: string[] = [];
let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  await server?.app.aalis.store.close();
  server = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test('every tab sees it, the metrics count it, and it is in the history after a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-feedback-'));
  dirs.push(dir);
  server = await startServer({
    replies: [{ body: textAnswer('Noon in Paris.') }],
    store: new SqliteHistoryStore(dir),
  });
  const [a, b] = [await server.connect(), await server.connect()];
  const { sessionId } = await a.hello();
  await b.hello(sessionId);
  a.send({ type: 'send', text: 'Time in Paris?' });
  const answer = (await a.turnEnd()).message;
  await b.turnEnd();

  a.send({ type: 'feedback', messageId: answer.id, rating: 'down', comment: '  It is 13:00 there.  ' });
  const told = {
    type: 'feedback',
    sessionId,
    messageId: answer.id,
    rating: 'down',
    comment: 'It is 13:00 there.',
  };
  expect(await a.next((f) => f.type === 'feedback')).toEqual(told);
  expect(await b.next((f) => f.type === 'feedback')).toEqual(told);
  // Both tabs' views hold it on the answer, as the history will.
  expect(b.view.messages.at(-1)!.feedback).toEqual({ rating: 'down', comment: 'It is 13:00 there.' });

  // Changed to up: the latest verdict stands. A comment on it, or the same thumb again, is
  // kept and told but is no new verdict: the metrics count verdicts.
  for (const more of [{}, { comment: 'actually fine' }, {}]) {
    const from = a.frames.length;
    a.send({ type: 'feedback', messageId: answer.id, rating: 'up', ...more });
    await a.next((f) => f.type === 'feedback', { from });
  }

  const metrics = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
  expect(metrics).toMatch(/^aalis_feedback_total\{rating="down"\} 1$/m);
  expect(metrics).toMatch(/^aalis_feedback_total\{rating="up"\} 1$/m);

  await server.close();
  await server.app.aalis.store.close();
  server = await startServer({ store: new SqliteHistoryStore(dir) });
  const reloaded = await server.connect();
  const ready = await reloaded.hello(sessionId);
  expect(ready.messages.at(-1)).toMatchObject({ id: answer.id, feedback: { rating: 'up' } });
  expect(ready.messages.at(-1)!.feedback).toEqual({ rating: 'up' });
});

test('an id that is not an answer of the session is refused, and nothing is kept or told', async () => {
  server = await startServer({ replies: [{ body: textAnswer('Hi.') }] });
  const [a, b] = [await server.connect(), await server.connect()];
  const { sessionId } = await a.hello();
  await b.hello(sessionId);
  a.send({ type: 'send', text: 'Hello' });
  await a.turnEnd();
  const question = a.view.messages[0]!;
  for (const messageId of [question.id, 'msg_nope']) {
    const from = a.frames.length;
    a.send({ type: 'feedback', messageId, rating: 'up' });
    expect(await a.next((f) => f.type === 'error', { from })).toMatchObject({ code: 'bad_frame' });
  }
  // A malformed one (an unknown rating) is a bad frame too, and the socket stays open.
  const from = a.frames.length;
  a.send({ type: 'feedback', messageId: question.id, rating: 'meh' });
  expect(await a.next((f) => f.type === 'error', { from })).toMatchObject({ code: 'bad_frame' });
  expect(b.frames.some((f) => f.type === 'feedback')).toBe(false);
  const page = await server.app.aalis.store.page(sessionId, { limit: 10 });
  expect(page.messages.every((m) => m.feedback === undefined)).toBe(true);
});
