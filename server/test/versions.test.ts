/**
 * Regenerate and edit on real sockets: the last exchange again as a new version, the
 * earlier one kept in the history, both tabs told, and the model given only the latest.
 */
import { afterEach, expect, test } from 'vitest';
import { textAnswer } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answers = (...texts: string[]) => texts.map((text) => ({ body: textAnswer(text) }));
const userTexts = (body: unknown) =>
  (body as { messages: Array<{ role: string; content: string }> }).messages
    .filter((m) => m.role !== 'system')
    .map((m) => `${m.role}: ${m.content}`);

test('regenerate and edit make new versions of the last exchange; the model sees only the latest', async () => {
  server = await startServer({ replies: answers('Hello!', 'Sunny.', 'Rainy.', 'Cold in Oslo.', 'Bye.') });
  const [a, b] = [await server.connect(), await server.connect()];
  const { sessionId } = await a.hello();
  await b.hello(sessionId);
  for (const text of ['hi', 'weather?']) {
    const from = a.frames.length;
    a.send({ type: 'send', text });
    await a.turnEnd(from);
  }
  const [, , question, sunny] = a.view.messages;

  let from = a.frames.length;
  a.send({ type: 'regenerate', messageId: sunny!.id, clientMessageId: 'r1' });
  const again = await a.next((f) => f.type === 'user_message', { from });
  expect(again).toMatchObject({
    clientMessageId: 'r1',
    message: { role: 'user', parts: [{ type: 'text', text: 'weather?' }], replaces: question!.id },
  });
  await a.turnEnd(from);
  await b.turnEnd(b.frames.length - 1);

  from = a.frames.length;
  const rainy = a.view.messages.at(-1)!;
  a.send({ type: 'edit', messageId: a.view.messages.at(-2)!.id, text: 'weather in Oslo?' });
  await a.turnEnd(from);

  // The model was asked the question again without the answer it replaces, then the
  // edited question without either earlier version.
  const requests = server.upstream!.requests;
  expect(userTexts(requests[2]!.body)).toEqual(['user: hi', 'assistant: Hello!', 'user: weather?']);
  expect(userTexts(requests[3]!.body)).toEqual(['user: hi', 'assistant: Hello!', 'user: weather in Oslo?']);

  // Every version is kept, in both tabs and in the history.
  const texts = (messages: typeof a.view.messages) =>
    messages.map((m) => (m.parts[0] as { text: string } | undefined)?.text);
  const expected = [
    'hi',
    'Hello!',
    'weather?',
    'Sunny.',
    'weather?',
    'Rainy.',
    'weather in Oslo?',
    'Cold in Oslo.',
  ];
  expect(texts(a.view.messages)).toEqual(expected);
  await b.next(
    (f) =>
      f.type === 'message' && f.message.parts.some((p) => p.type === 'text' && p.text === 'Cold in Oslo.'),
  );
  expect(texts(b.view.messages)).toEqual(expected);
  const stored = await server.app.aalis.store.page(sessionId, { limit: 20 });
  expect(texts(stored.messages)).toEqual(expected);
  expect(stored.messages[6]!.replaces).toBe(stored.messages[4]!.id);
  expect(rainy.parts[0]).toEqual({ type: 'text', text: 'Rainy.' });

  // A later turn continues from the latest version only.
  from = a.frames.length;
  a.send({ type: 'send', text: 'thanks' });
  await a.turnEnd(from);
  expect(userTexts(requests[4]!.body)).toEqual([
    'user: hi',
    'assistant: Hello!',
    'user: weather in Oslo?',
    'assistant: Cold in Oslo.',
    'user: thanks',
  ]);
});

test('only the last answer can be regenerated and only the last question edited; nothing starts', async () => {
  server = await startServer({ replies: answers('One.', 'Two.') });
  const a = await server.connect();
  await a.hello();
  for (const text of ['first', 'second']) {
    const from = a.frames.length;
    a.send({ type: 'send', text });
    await a.turnEnd(from);
  }
  const [firstQuestion, firstAnswer] = a.view.messages;
  for (const frame of [
    { type: 'regenerate', messageId: firstAnswer!.id, clientMessageId: 'x1' },
    { type: 'edit', messageId: firstQuestion!.id, text: 'changed', clientMessageId: 'x2' },
    { type: 'regenerate', messageId: 'msg_nope', clientMessageId: 'x3' },
  ]) {
    const from = a.frames.length;
    a.send(frame);
    expect(await a.next((f) => f.type === 'error', { from })).toMatchObject({
      code: 'bad_frame',
      clientMessageId: frame.clientMessageId,
    });
  }
  expect(server.upstream!.requests).toHaveLength(2);
  expect(a.frames.filter((f) => f.type === 'user_message')).toHaveLength(2);
});
