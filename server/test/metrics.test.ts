import { afterEach, describe, expect, test } from 'vitest';
import { ServerMetrics } from '../src/observability/metrics.js';
import type { SessionHub } from '../src/sessions/session-hub.js';
import { createChatEvents } from '../src/transport/chat-events.js';
import { ClientConnection, defaultConnectionOptions } from '../src/transport/client-connection.js';
import { warningsToConsole } from '../src/util/logger.js';
import { fixture } from './fake-upstream.js';
import { sample } from './metrics-sample.js';
import { startServer, type Harness } from './ws-harness.js';

let servers: Harness[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

const start = async (options: Parameters<typeof startServer>[0]) => {
  const server = await startServer(options);
  servers.push(server);
  return server;
};

const scrape = async (server: Harness) => {
  const answer = await server.app.inject({ method: 'GET', url: '/metrics' });
  expect(answer.statusCode).toBe(200);
  return answer;
};

describe('events', () => {
  test('a turn is announced as it starts and as it ends, in that order, with the same clock', async () => {
    const server = await start({ replies: [{ body: fixture('openai-text-answer.sse') }] });
    const heard: string[] = [];
    let startedAt = 0;
    server.app.aalis.events.on('turn:started', (turn) => {
      heard.push('started');
      startedAt = turn.startedAt;
    });
    server.app.aalis.events.on('turn:ended', ({ status }) => heard.push(`ended ${status}`));
    const client = await server.connect();
    await client.hello();
    client.send({ type: 'send', text: 'Hi', clientMessageId: 'c-1' });
    await client.turnEnd();
    expect(heard).toEqual(['started', 'ended complete']);
    expect(startedAt).toBeGreaterThan(0);
    expect(startedAt).toBeLessThanOrEqual(Date.now());
  });
});

describe('GET /metrics', () => {
  test('after a turn with two tool calls and a busy send: turns, tools, tokens, refusals, gauges', async () => {
    const server = await start({
      replies: [
        // Slow enough that the second send finds the turn running.
        { body: fixture('openai-parallel-tool-calls.sse'), pieces: 20, delayMs: 5 },
        { body: fixture('openai-text-answer.sse') },
      ],
    });
    const client = await server.connect();
    const { sessionId } = await client.hello();
    client.send({ type: 'send', text: 'Weather in Paris and Tokyo?', clientMessageId: 'c-1' });
    client.send({ type: 'send', text: 'and Rome?', clientMessageId: 'c-2' });
    const busy = await client.next((f) => f.type === 'error');
    expect(busy).toMatchObject({ code: 'busy', clientMessageId: 'c-2' });
    const { message } = await client.turnEnd();
    expect(message.status).toBe('complete');

    const answer = await scrape(server);
    expect(answer.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-store');
    const text = answer.body;
    expect(sample(text, 'aalis_turns_ended_total', { status: 'complete' })).toBe(1);
    expect(sample(text, 'aalis_turn_duration_seconds_count', { status: 'complete' })).toBe(1);
    expect(sample(text, 'aalis_turn_first_chunk_seconds_count')).toBe(1);
    expect(sample(text, 'aalis_tool_calls_total', { tool: 'get_weather', outcome: 'ok' })).toBe(2);
    expect(
      sample(text, 'aalis_tool_call_duration_seconds_count', { tool: 'get_weather', outcome: 'ok' }),
    ).toBe(2);
    // The fixtures' usage, summed over both rounds: 96 + 180 prompt, 52 + 41 completion.
    const model = { provider: 'openai', model: 'test-model' };
    expect(sample(text, 'aalis_model_tokens_total', { ...model, kind: 'prompt' })).toBe(276);
    expect(sample(text, 'aalis_model_tokens_total', { ...model, kind: 'completion' })).toBe(93);
    expect(sample(text, 'aalis_refusals_total', { code: 'busy' })).toBe(1);
    expect(sample(text, 'aalis_connections_open')).toBe(1);
    expect(sample(text, 'aalis_sessions')).toBe(1);
    expect(sample(text, 'aalis_turns_running')).toBe(0);
    expect(sample(text, 'aalis_progress_frames_collapsed_total')).toBe(0);
    expect(text).toMatch(/^# TYPE aalis_upstream_errors_total counter$/m);
    expect(sample(text, 'aalis_upstream_errors_total')).toBeUndefined();
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    // Never a session id in a label.
    expect(text).not.toContain(sessionId);

    client.socket.close();
    await client.closed;
    await expect.poll(async () => sample((await scrape(server)).body, 'aalis_connections_open')).toBe(0);
    expect(sample((await scrape(server)).body, 'aalis_sessions')).toBe(0);
  });

  test('a failed model request: an upstream error by kind, a turn ended in error, the error frame counted', async () => {
    const server = await start({
      replies: [{ status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided' } }) }],
    });
    const client = await server.connect();
    await client.hello();
    client.send({ type: 'send', text: 'hi' });
    await client.turnEnd();
    const text = (await scrape(server)).body;
    expect(sample(text, 'aalis_upstream_errors_total', { code: 'auth' })).toBe(1);
    expect(sample(text, 'aalis_turns_ended_total', { status: 'error' })).toBe(1);
    expect(sample(text, 'aalis_refusals_total', { code: 'upstream' })).toBe(1);
    expect(sample(text, 'aalis_turn_first_chunk_seconds_count')).toBe(0);
  });

  // A wrong token gets 401 like a missing one: the guard /healthz/details already uses
  // (metrics-guard.ts; RFC 6750 answers an invalid token with 401). 403 is for a server
  // with no token configured, where no token can help.
  test('from elsewhere: 401 without a token or with a wrong one, 200 with AALIS_METRICS_TOKEN, 403 when none is set', async () => {
    const server = await start({ metricsToken: 'metrics-secret' });
    const from = (authorization?: string) =>
      server.app.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.7',
        headers: authorization ? { authorization } : {},
      });
    const missing = await from();
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="aalis-metrics"');
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(missing.body).not.toContain('aalis_');
    const wrong = await from('Bearer not-the-secret');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('aalis_');
    const right = await from('Bearer metrics-secret');
    expect(right.statusCode).toBe(200);
    expect(right.body).toMatch(/^aalis_turns_running 0$/m);
    // A loopback request relayed by a proxy counts as remote.
    const relayed = await server.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    expect(relayed.statusCode).toBe(401);
    // Like every route: OPTIONS, and the Host guard.
    const options = await server.app.inject({ method: 'OPTIONS', url: '/metrics' });
    expect(options.statusCode).toBe(204);
    expect(options.headers.allow).toMatch(/GET/);
    const rebound = await server.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { host: 'evil.example' },
    });
    expect(rebound.statusCode).toBe(403);

    const tokenless = await start({});
    const refused = await tokenless.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '203.0.113.7',
      headers: { authorization: 'Bearer metrics-secret' },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('AALIS_METRICS_TOKEN');
  });

  test('two servers in one process each have their own registry', async () => {
    const one = await start({});
    const two = await start({});
    for (const server of [one, two]) {
      expect(sample((await scrape(server)).body, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('progress frames collapsed', () => {
  test("a connection's outbox announces each replaced progress frame, and the metrics count it", async () => {
    const metrics = new ServerMetrics({ provider: 'demo', model: 'demo' });
    const events = createChatEvents(warningsToConsole);
    metrics.observe(events);
    const dropped: string[] = [];
    events.on('frame:dropped', ({ reason }) => dropped.push(reason));
    // A socket that never drains: every frame after the first queues.
    const socket = { send: () => {}, close: () => {}, bufferedAmount: 1_000_000 };
    const hub = {} as SessionHub;
    const connection = new ClientConnection(socket, hub, defaultConnectionOptions, {
      log: warningsToConsole,
      events,
    });
    const progress = (chars: number) =>
      ({
        type: 'stream',
        sessionId: 's',
        toolCallProgress: { index: 0, name: 'write_file', charsAccumulated: chars },
      }) as const;
    for (const chars of [10, 20, 30]) connection.deliver(progress(chars), JSON.stringify(progress(chars)));
    connection.closed(1000);
    expect(dropped).toEqual(['progress_collapsed', 'progress_collapsed']);
    const text = (await metrics.expose()).body;
    expect(sample(text, 'aalis_progress_frames_collapsed_total')).toBe(2);
  });
});
