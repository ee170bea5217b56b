/**
 * Faults of the model provider, as a visitor meets them. What must hold: a visitor never
 * reads the provider's own words (they can hold the tail of a key, an organisation id, an
 * internal address), only a short message and an error id that the log has the detail
 * under; and while nothing streams, the visitor is told why (`turn_status`), live and
 * after a reload, within timeouts a person would wait for.
 */
import type { ServerFrame } from '@aalis/protocol';
import { afterEach, describe, expect, test } from 'vitest';
import { completionChunk, sse, textAnswer, type Reply } from '../fake-upstream.js';
import type { openAIOn } from '../provider-helpers.js';
import { startServer, type Harness } from '../ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface LogLine {
  level: number;
  msg: string;
  errorId?: string;
  err?: { message: string };
}

/** A server on a fake upstream with its log captured; its provider as a site owner would tune it. */
async function serve(replies: Reply[], providerOptions: Parameters<typeof openAIOn>[1] = {}) {
  const lines: LogLine[] = [];
  const log = { write: (line: string) => lines.push(JSON.parse(line) as LogLine) };
  server = await startServer({ replies, log, providerOptions, waitingNoticeMs: 100 });
  return { lines };
}

const SECRET_401 = JSON.stringify({
  error: {
    message:
      'Incorrect API key provided: sk-proj-****************************Ab1Z. You can find your API key at https://platform.openai.com/account/api-keys. Organization org-7QxKd2Lw9 at 10.0.3.7:8443',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
});

describe('what a visitor may read of an upstream error', () => {
  test.each([
    ['a 401 that quotes the key', { status: 401, body: SECRET_401 }],
    [
      'an error object mid-stream',
      { body: sse([completionChunk({ content: 'Hi' })], { done: false }) + `data: ${SECRET_401}\n\n` },
    ],
    ['a 500 with internal detail', { status: 500, body: SECRET_401 }],
  ])('%s: a short message and an error id; the log has the detail at error level', async (_, reply) => {
    const { lines } = await serve([reply as Reply, reply as Reply], {
      retry: { retries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const client = await server!.connect();
    await client.hello();
    client.send({ type: 'send', text: 'hi' });
    const end = await client.turnEnd();
    const seen = client.frames.map((f) => JSON.stringify(f)).join('\n');
    for (const secret of [
      'sk-proj',
      'Ab1Z',
      'org-7QxKd2Lw9',
      '10.0.3.7',
      'invalid_api_key',
      'platform.openai.com',
    ]) {
      expect(seen).not.toContain(secret);
    }
    const error = client.of('error')[0]!;
    expect(error).toMatchObject({ code: 'upstream', errorId: expect.stringMatching(/^\w{8}$/) });
    expect(end.message.error).toEqual({ code: 'upstream', message: error.message, errorId: error.errorId });
    const logged = lines.find((l) => l.errorId === error.errorId);
    expect(logged?.level).toBe(50);
    expect(logged?.err?.message).toMatch(/sk-proj|reported an error mid-stream/);
  });
});

/** turn_status frames in order, as `state@attempt(+retryInMs)`. */
const statuses = (frames: ServerFrame[]) =>
  frames.flatMap((f) =>
    f.type === 'turn_status'
      ? [`${f.state}@${f.attempt}${f.retryInMs === undefined ? '' : `+${f.retryInMs}`}`]
      : [],
  );

describe('long silences are said, and end in time', () => {
  test('an upstream that never answers: waiting, retrying, waiting, then a timeout, in about two first-byte deadlines', async () => {
    await serve([{ hang: true }, { hang: true }], {
      firstByteTimeoutMs: 400,
      retry: { retries: 1, baseDelayMs: 50, maxDelayMs: 50 },
    });
    const client = await server!.connect();
    await client.hello();
    const started = Date.now();
    client.send({ type: 'send', text: 'hello?' });
    const end = await client.turnEnd();
    const took = Date.now() - started;
    expect(statuses(client.frames).map((s) => s.replace(/\+\d+$/, '+ms'))).toEqual([
      'waiting@1',
      'retrying@2+ms',
      'waiting@2',
    ]);
    expect(end.message.error).toMatchObject({
      code: 'upstream',
      message: 'the AI service did not answer in time',
    });
    expect(took).toBeGreaterThanOrEqual(800);
    expect(took).toBeLessThan(3_000);
    // The view the widget draws from: the status is gone with the turn.
    expect(client.view.turn).toBeNull();
  });

  test('headers and then nothing: waiting, then the idle timeout ends it', async () => {
    const body = sse([
      completionChunk({ role: 'assistant', content: '' }),
      completionChunk({ content: 'late' }),
    ]);
    await serve([{ body, byEvent: true, delayMs: 5_000 }], { idleTimeoutMs: 500 });
    const client = await server!.connect();
    await client.hello();
    client.send({ type: 'send', text: 'hello?' });
    const end = await client.turnEnd();
    expect(statuses(client.frames)).toEqual(['waiting@1']);
    expect(end.message.error).toMatchObject({
      code: 'upstream',
      message: 'the AI service did not answer in time',
    });
  });

  test('Retry-After is honoured past our own backoff cap, and said as a countdown', async () => {
    // Our backoff is capped at 100 ms here; the provider asks for 1.2 s, and gets it.
    await serve(
      [
        { status: 429, headers: { 'retry-after': '1.2' }, body: '{"error":{"message":"slow down"}}' },
        { body: textAnswer('Sorry for the wait.') },
      ],
      { retry: { retries: 1, baseDelayMs: 50, maxDelayMs: 100 } },
    );
    const client = await server!.connect();
    await client.hello();
    client.send({ type: 'send', text: 'hi' });
    const end = await client.turnEnd();
    expect(end.message.status).toBe('complete');
    expect(statuses(client.frames)).toEqual(['retrying@2+1200']);
    // The second request waited what the provider asked.
    const [first, second] = server!.upstream!.requestTimes;
    expect(second! - first!).toBeGreaterThanOrEqual(1_150);
  });

  test('Retry-After beyond the ceiling fails at once instead of retrying too early', async () => {
    await serve(
      [
        { status: 429, headers: { 'retry-after': '120' }, body: '{"error":{"message":"slow down"}}' },
        { body: textAnswer('never asked') },
      ],
      { retry: { retries: 2, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 10_000 } },
    );
    const client = await server!.connect();
    await client.hello();
    const started = Date.now();
    client.send({ type: 'send', text: 'hi' });
    const end = await client.turnEnd();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(end.message.error).toMatchObject({
      code: 'upstream',
      message: 'the AI service is busy: try again in a moment',
    });
    expect(statuses(client.frames)).toEqual([]);
  });

  test('a tab that joins while the turn waits is shown the same wait (stream_resume)', async () => {
    await serve([
      { status: 503, headers: { 'retry-after': '2' }, body: '{}' },
      { body: textAnswer('Back.') },
    ]);
    const first = await server!.connect();
    const { sessionId } = await first.hello();
    first.send({ type: 'send', text: 'hi' });
    await first.next((f) => f.type === 'turn_status');
    const joined = await server!.connect();
    await joined.hello(sessionId);
    const resume = await joined.next((f) => f.type === 'stream_resume');
    expect(resume).toMatchObject({ turnStatus: { state: 'retrying', attempt: 2, retryInMs: 2_000 } });
    expect(joined.view.turn?.status).toMatchObject({ state: 'retrying', retryInMs: 2_000 });
    await joined.turnEnd();
    expect(joined.view.messages.at(-1)).toMatchObject({ status: 'complete' });
  });
});

test('a host app hears each such error with its id through onError (for its own tracker)', async () => {
  const heard: Array<{ error: unknown; errorId: string; what: string }> = [];
  server = await startServer({
    replies: [{ status: 401, body: SECRET_401 }],
    onError: (error, { errorId, what }) => heard.push({ error, errorId, what }),
  });
  const client = await server.connect();
  await client.hello();
  client.send({ type: 'send', text: 'hi' });
  await client.turnEnd();
  const told = client.of('error')[0]!;
  expect(heard).toHaveLength(1);
  expect(heard[0]).toMatchObject({ errorId: told.errorId, what: 'model request failed (auth)' });
  expect((heard[0]!.error as Error).message).toContain('sk-proj');
});
