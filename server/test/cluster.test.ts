/**
 * Several instances, one set of sessions: three `aalis-server` processes on a real Redis
 * (live state) and a real PostgreSQL (history), behind a real nginx doing round-robin
 * WebSocket proxying with no stickiness, all on one fake model upstream that streams
 * real Chat Completions bytes. Whatever instance a tab lands on, it must see what it
 * would see on one instance: the same frames in the same order, a resume with the same
 * clock, Stop from anywhere, and a turn that ends once when its instance dies.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpAgent } from '@ag-ui/client';
import type { ServerFrame } from '@aalis/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { RejoiningAgent, argsCount, argsOf, recorder, until, userMessage } from './ag-ui-client.js';
import { AALIS_SERVER_BIN, watchOutput } from './cli-harness.js';
import { clusterEnv, startClusterServices, type ClusterServices } from './cluster-env.js';
import { textAnswer, type FakeUpstream, type Reply } from './fake-upstream.js';
import { EVERYTHING_ENTRY } from './fixtures/mcp/harness.js';
import { calculatorCall, slowText, slowToolCall, toolCallThen } from './scripted-replies.js';
import { startNginx, type NginxService } from './services/nginx.js';
import type { TestPostgres } from './services/postgres.js';
import type { RedisService } from './services/redis.js';
import { TestClient } from './ws-harness.js';

const LEASE_MS = 1_500;

interface Instance {
  child: ChildProcessWithoutNullStreams;
  port: number;
  url: string;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

let redis: RedisService;
let postgres: TestPostgres;
let upstream: FakeUpstream;
let services: ClusterServices | undefined;
let nginx: NginxService;
let instances: Instance[] = [];
let dir: string;
const replies: Reply[] = [];
const clients: TestClient[] = [];

async function startInstance(): Promise<Instance> {
  const child = spawn(process.execPath, [AALIS_SERVER_BIN], {
    env: {
      PATH: process.env.PATH!,
      ...clusterEnv({
        upstreamUrl: upstream.url,
        redisUrl: redis.url,
        databaseUrl: postgres.url,
        leaseMs: LEASE_MS,
        dataDir: join(dir, 'data'),
        configFile: join(dir, 'aalis.config.json'),
      }),
      LOG_LEVEL: 'info',
    },
  });
  const { output, waitForOutput } = watchOutput(child);
  const started = await waitForOutput(/listening on http:\/\/127\.0\.0\.1:(\d+)/, 15_000).catch(
    (error: Error) => {
      throw new Error(`instance did not start: ${error.message}`);
    },
  );
  const port = Number(started[1]);
  return { child, port, url: `ws://127.0.0.1:${port}/ws`, output, waitForOutput };
}

async function connect(url: string): Promise<TestClient> {
  const client = await TestClient.open(url);
  clients.push(client);
  return client;
}

/**
 * The frames of a turn as every tab must see them: from its user message to its final
 * message. Without `unresponsive`: each instance tells its own tabs when it finds the
 * owner's lease late (a loaded machine can make a renewal late), an observation of its own.
 */
function turnFrames(client: TestClient, from = 0): ServerFrame[] {
  const frames = client.frames
    .slice(from)
    .filter((f) => !(f.type === 'turn_status' && f.state === 'unresponsive'));
  const start = frames.findIndex((f) => f.type === 'user_message');
  const end = frames.findIndex((f) => f.type === 'message');
  return frames.slice(start, end + 1);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aalis-cluster-'));
  writeFileSync(
    join(dir, 'aalis.config.json'),
    JSON.stringify({
      builtinTools: ['get_time', 'calculator'],
      approval: { calculator: 'always' },
      // The MCP reference server, for its elicitation tool.
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] } },
    }),
  );
  // Replies are scripted as each test goes: taken in order, whichever instance asks.
  services = await startClusterServices(replies);
  ({ redis, postgres, upstream } = services);
  instances = await Promise.all([startInstance(), startInstance(), startInstance()]);
  await Promise.all(instances.map((i) => i.waitForOutput(/MCP server connected/, 15_000)));
  nginx = await startNginx({ upstreams: instances.map((i) => i.port) });
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.socket.terminate();
  for (const instance of instances) instance.child.kill('SIGKILL');
  await nginx?.stop();
  await services?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('three instances behind nginx, on Redis and PostgreSQL', () => {
  // What a failed test left unasked is not the next test's answer.
  beforeEach(() => {
    replies.length = 0;
  });

  test('tabs on three instances see the same frames in the same order', async () => {
    replies.push(...slowToolCall(15));
    const [a, b, c] = await Promise.all(instances.map((i) => connect(i.url)));
    const { sessionId, anonymousKey } = await a!.hello();
    await b!.hello(sessionId, undefined, anonymousKey);
    await c!.hello(sessionId, undefined, anonymousKey);
    const from = [a!, b!, c!].map((t) => t.frames.length);
    b!.send({ type: 'send', text: 'what time is it in Paris?' });
    await Promise.all([a!, b!, c!].map((t, i) => t.turnEnd(from[i])));
    const seen = [a!, b!, c!].map((t, i) => turnFrames(t, from[i]));
    expect(seen[0]!.length).toBeGreaterThan(10);
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[2]).toEqual(seen[0]);
    expect(seen[0]!.at(-1)).toMatchObject({ type: 'message', message: { status: 'complete' } });
  }, 30_000);

  test('a reload lands on another instance mid tool call: same startedAt, rising counts, the answer', async () => {
    replies.push(...slowToolCall(40));
    const first = await connect(nginx.url.replace(/^http/, 'ws') + '/ws');
    const { sessionId, anonymousKey } = await first.hello();
    first.send({ type: 'send', text: 'what time is it in Paris?' });
    const progress = await first.next(
      (f) => f.type === 'stream' && (f.toolCallProgress?.charsAccumulated ?? 0) > 20,
    );
    const before = (progress as Extract<ServerFrame, { type: 'stream' }>).toolCallProgress!;
    first.socket.close();
    // Round-robin: each new connection goes to the next instance. Two reloads, two
    // instances: the card keeps the clock the instance running the turn started it on.
    const resumed: Array<Extract<ServerFrame, { type: 'stream_resume' }>['toolCallsProgress'][number]> = [];
    let second!: TestClient;
    for (let reload = 0; reload < 2; reload++) {
      second?.socket.close();
      second = await connect(nginx.url.replace(/^http/, 'ws') + '/ws');
      await second.hello(sessionId, undefined, anonymousKey);
      const resume = await second.next((f) => f.type === 'stream_resume');
      resumed.push((resume as Extract<ServerFrame, { type: 'stream_resume' }>).toolCallsProgress[0]!);
    }
    const [once, twice] = resumed as [(typeof resumed)[0], (typeof resumed)[0]];
    expect(twice.startedAt).toBe(once.startedAt);
    expect(once.charsAccumulated).toBeGreaterThanOrEqual(before.charsAccumulated);
    expect(twice.charsAccumulated).toBeGreaterThanOrEqual(once.charsAccumulated);
    const card = twice;
    const later = await second.next(
      (f) => f.type === 'stream' && (f.toolCallProgress?.charsAccumulated ?? 0) > card.charsAccumulated,
    );
    expect(later).toBeDefined();
    const end = await second.turnEnd();
    expect(end.message.status).toBe('complete');
    expect(end.message.parts.some((p) => p.type === 'tool_call' && p.status === 'done')).toBe(true);
  }, 30_000);

  test('an AG-UI client rejoins on another instance in the middle of the arguments and gets them whole', async () => {
    replies.push(...slowToolCall(40));
    const tab = await connect(instances[0]!.url);
    const { anonymousKey } = await tab.hello();
    tab.socket.close();
    const headers = { 'x-aalis-anonymous-key': anonymousKey! };
    const [base0, base1] = instances.map((i) => `http://127.0.0.1:${i.port}`) as [string, string];
    const threadId = `thread-${randomUUID()}`;
    const first = new HttpAgent({ url: `${base0}/ag-ui`, threadId, headers });
    first.addMessage(userMessage('what time is it in Paris?'));
    const firstRun = recorder();
    const running = first.runAgent({}, firstRun.subscriber);
    await until(() => argsCount(firstRun.events) >= 5, 15_000);
    const again = new RejoiningAgent({ url: `${base1}/ag-ui`, threadId, headers }, base1);
    const rejoin = recorder();
    await again.connectAgent({}, rejoin.subscriber);
    await running;
    // The text so far came in one event from the other instance, then every fragment after it.
    expect(argsOf(rejoin.events, 'call_cluster')).toBe(argsOf(firstRun.events, 'call_cluster'));
    expect(rejoin.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED' });
    expect(again.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'It is noon in Paris.' });
  }, 30_000);

  test('busy holds across instances, and Stop from a tab on another instance stops the turn', async () => {
    replies.push(slowText(80));
    const [a, b] = await Promise.all([connect(instances[0]!.url), connect(instances[1]!.url)]);
    const { sessionId, anonymousKey } = await a!.hello();
    await b!.hello(sessionId, undefined, anonymousKey);
    a!.send({ type: 'send', text: 'talk slowly' });
    await b!.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
    b!.send({ type: 'send', text: 'me too', clientMessageId: 'c2' });
    const busy = await b!.next((f) => f.type === 'error' && f.clientMessageId === 'c2');
    expect(busy).toMatchObject({ code: 'busy' });
    const asked = Date.now();
    b!.send({ type: 'abort' });
    const [endA, endB] = await Promise.all([a!.turnEnd(), b!.turnEnd()]);
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(endA.message.status).toBe('aborted');
    expect(endB.message).toEqual(endA.message);
  }, 30_000);

  test('an approval asked on one instance is answered from a tab on another', async () => {
    replies.push(...calculatorCall());
    const [a, b] = await Promise.all([connect(instances[0]!.url), connect(instances[1]!.url)]);
    const { sessionId, anonymousKey } = await a!.hello();
    await b!.hello(sessionId, undefined, anonymousKey);
    a!.send({ type: 'send', text: 'what is 6*7?' });
    const asked = await b!.next((f) => f.type === 'tool_approval_request');
    expect(asked).toMatchObject({ callId: 'call_calc', name: 'calculator' });
    b!.send({ type: 'tool_decision', callId: 'call_calc', decision: 'approve' });
    const [endA, endB] = await Promise.all([a!.turnEnd(), b!.turnEnd()]);
    expect(endA.message.status).toBe('complete');
    expect(endA.message.parts.find((p) => p.type === 'tool_call')).toMatchObject({
      status: 'done',
      result: { result: 42 },
    });
    expect(endB.message).toEqual(endA.message);
  }, 30_000);

  test('a form an MCP server asks on one instance is refused where a bad answer arrives, and answered after a reload on a third', async () => {
    replies.push(...toolCallThen('trigger-elicitation-request', '{}', 'Thanks.', 'call_elicit'));
    const [a, b] = await Promise.all([connect(instances[0]!.url), connect(instances[1]!.url)]);
    const { sessionId, anonymousKey } = await a!.hello();
    await b!.hello(sessionId, undefined, anonymousKey);
    a!.send({ type: 'send', text: 'ask me' });
    const asked = await b!.next((f) => f.type === 'elicitation');
    expect(asked).toMatchObject({ callId: 'call_elicit', serverName: 'everything', mode: 'form' });
    const { elicitationId } = asked as Extract<ServerFrame, { type: 'elicitation' }>;
    // Checked where it arrives, against the request as that instance follows it.
    b!.send({ type: 'elicitation_answer', elicitationId, action: 'accept', content: { name: 3 } });
    expect(await b!.next((f) => f.type === 'error')).toMatchObject({ code: 'invalid_answer', elicitationId });
    // The tab reloads and lands on the third instance: the form is there, and its answer
    // goes to the instance that runs the turn.
    b!.socket.terminate();
    const reloaded = await connect(instances[2]!.url);
    await reloaded.hello(sessionId, undefined, anonymousKey);
    const resume = await reloaded.next((f) => f.type === 'stream_resume');
    expect(resume).toMatchObject({ elicitations: [expect.objectContaining({ elicitationId })] });
    reloaded.send({
      type: 'elicitation_answer',
      elicitationId,
      action: 'accept',
      content: { name: 'Grace' },
    });
    const [endA, endR] = await Promise.all([a!.turnEnd(), reloaded.turnEnd()]);
    expect(a!.of('elicitation_settled')).toEqual([
      { type: 'elicitation_settled', sessionId, elicitationId, action: 'accept' },
    ]);
    expect(JSON.stringify(endA.message.parts.find((p) => p.type === 'tool_call'))).toContain('Name: Grace');
    expect(endR.message).toEqual(endA.message);
  }, 30_000);

  test("a visitor's feedback on one instance reaches the tab on another", async () => {
    replies.push({ body: textAnswer('Noon.') });
    const [a, b] = await Promise.all([connect(instances[0]!.url), connect(instances[1]!.url)]);
    const { sessionId, anonymousKey } = await a!.hello();
    await b!.hello(sessionId, undefined, anonymousKey);
    a!.send({ type: 'send', text: 'time?' });
    const { message } = await a!.turnEnd();
    await b!.turnEnd();
    a!.send({ type: 'feedback', messageId: message.id, rating: 'up', comment: 'thanks' });
    expect(await b!.next((f) => f.type === 'feedback')).toEqual({
      type: 'feedback',
      sessionId,
      messageId: message.id,
      rating: 'up',
      comment: 'thanks',
    });
  }, 30_000);

  test('kill -9 of the owner mid-turn: another instance ends the turn once, as interrupted; the next send works', async () => {
    replies.push(...slowToolCall(60));
    const [a, b] = await Promise.all([connect(instances[0]!.url), connect(instances[1]!.url)]);
    const { sessionId, anonymousKey } = await a!.hello();
    await b!.hello(sessionId, undefined, anonymousKey);
    a!.send({ type: 'send', text: 'what time is it in Paris?' });
    await b!.next((f) => f.type === 'stream' && (f.toolCallProgress?.charsAccumulated ?? 0) > 10);
    instances[0]!.child.kill('SIGKILL');
    const killedAt = Date.now();
    const error = await b!.next((f) => f.type === 'error' && f.sessionId !== undefined, {
      timeoutMs: 15_000,
    });
    expect(error).toMatchObject({ code: 'interrupted' });
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 5);
    const end = await b!.turnEnd();
    expect(end.message).toMatchObject({ status: 'error', error: { code: 'interrupted' } });
    // Once: no second error or message for that turn, on any tab.
    await new Promise((r) => setTimeout(r, LEASE_MS * 2));
    expect(b!.of('message')).toHaveLength(1);
    // The history says so on every instance.
    const c = await connect(instances[2]!.url);
    const ready = await c.hello(sessionId, undefined, anonymousKey);
    expect(ready.messages.map((m) => [m.role, m.status ?? null])).toEqual([
      ['user', null],
      ['assistant', 'error'],
    ]);
    // The next send works, on another instance. (The dead turn's second round was never asked for.)
    replies.length = 0;
    replies.push({ body: textAnswer('Back.') });
    c.send({ type: 'send', text: 'are you there?' });
    expect((await c.turnEnd(c.frames.length)).message.status).toBe('complete');
    instances[0] = await startInstance();
  }, 45_000);

  test('Redis restarted mid-turn: the turn finishes, every tab converges; Redis gone refuses new turns', async () => {
    replies.push(slowText(60));
    const [a, b] = await Promise.all([connect(instances[1]!.url), connect(instances[2]!.url)]);
    const { sessionId, anonymousKey } = await a!.hello();
    await b!.hello(sessionId, undefined, anonymousKey);
    a!.send({ type: 'send', text: 'talk slowly' });
    await b!.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
    await redis.restart();
    const endA = await a!.turnEnd();
    expect(endA.message.status).toBe('complete');
    const endB = await b!.turnEnd(0);
    expect(endB.message.id).toBe(endA.message.id);
    expect(instances[1]!.output()).toContain('Redis');

    await redis.kill();
    const from = a!.frames.length;
    a!.send({ type: 'send', text: 'again', clientMessageId: 'r1' });
    const refused = await a!.next((f) => f.type === 'error' && f.clientMessageId === 'r1', { from });
    expect(refused).toMatchObject({ code: 'unavailable' });
    // A reload meanwhile still opens the conversation, from the history.
    const reloaded = await connect(instances[2]!.url);
    const ready = await reloaded.hello(sessionId, undefined, anonymousKey);
    expect(ready.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    await redis.restart();
    replies.push({ body: textAnswer('Back again.') });
    // ioredis reconnects by itself within its retry interval (at most 2 s): sends are
    // refused until it has, then one is answered.
    let attempt = 0;
    await expect
      .poll(
        async () => {
          const mark = a!.frames.length;
          const id = `t${attempt++}`;
          a!.send({ type: 'send', text: 'and now?', clientMessageId: id });
          const next = await a!.next(
            (f) => f.type === 'message' || (f.type === 'error' && f.clientMessageId === id),
            { from: mark, timeoutMs: 10_000 },
          );
          return next.type === 'message' ? next.message.status : (next as { code?: string }).code;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe('complete');
  }, 60_000);
});
