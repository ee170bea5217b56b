/**
 * A rolling deploy's SIGTERM to the real `aalis-server` (built), in the middle of an
 * answer, on a fake model upstream that streams real Chat Completions bytes slowly. What
 * must hold: the load balancer's readiness probe fails at once while liveness holds, no
 * new socket and no new turn is taken, the running answer ends `complete` on its tab and
 * in the history (read back by a fresh start), and the process exits 0. A turn longer
 * than the drain ends `shutting_down` with its started tool stored as "may have
 * completed"; a second signal stops it at once; the MCP server's process never outlives
 * the server. With Redis, the owner's tab is sent at once to the other instance (1012),
 * where the turn is seen to its end.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage, ServerFrame } from '@aalis/protocol';
import { WebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startCli, type RunningCli } from '../cli-harness.js';
import { completionChunk, sse, startFakeUpstream, type FakeUpstream, type Reply } from '../fake-upstream.js';
import { fixtureServer } from '../fixtures/mcp/harness.js';
import { slowText } from '../scripted-replies.js';
import { startPostgres, type TestPostgres } from '../services/postgres.js';
import { startRedis, type RedisService } from '../services/redis.js';
import { TestClient } from '../ws-harness.js';

/** slowText's answer: 40 words, 60 ms apart (about 2.4 s, most of it after the SIGTERM). */
const WORDS = 40;
const FULL_TEXT = Array.from({ length: WORDS }, (_, i) => `word${i} `).join('');

let upstream: FakeUpstream | undefined;
const started: ChildProcess[] = [];
const clients: TestClient[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) client.socket.terminate();
  for (const child of started.splice(0)) child.kill('SIGKILL');
  await upstream?.close();
  upstream = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-drain-'));
  dirs.push(dir);
  return dir;
}

async function start(env: Record<string, string>): Promise<RunningCli> {
  const cli = await startCli({
    PORT: '0',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: `${upstream!.url}/v1`,
    ...env,
  });
  started.push(cli.child);
  return cli;
}

async function connect(cli: RunningCli): Promise<TestClient> {
  const client = await TestClient.open(wsUrl(cli));
  clients.push(client);
  return client;
}

const wsUrl = (cli: RunningCli) => `${cli.base.replace(/^http/, 'ws')}/ws`;

/** The exit code, once the process has ended and all it printed was read. */
const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

/** An upgrade the server refuses: its status and Retry-After. */
function refusedUpgrade(url: string): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('unexpected-response', (_request, response) => {
      resolve({ status: response.statusCode!, retryAfter: response.headers['retry-after'] });
      socket.terminate();
    });
    socket.once('error', () => {});
  });
}

const textOf = (message: ChatMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

const toolStart = (f: ServerFrame) => f.type === 'tool_execute' && f.phase === 'start';

/** The processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // The fields after the command's closing parenthesis: state, then the parent's pid.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // Gone meanwhile.
      }
    })
    .map(Number);
}

/** Whether `pid` runs: a zombie has ended, only its parent has not collected it (or is gone). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A configuration file with the MCP server whose `wait-for-cancel` runs until it is cancelled. */
function mcpConfig(dir: string): string {
  const path = join(dir, 'aalis.config.json');
  const server = fixtureServer('cancel-aware-server', { CANCEL_FILE: join(dir, 'cancelled') });
  writeFileSync(path, JSON.stringify({ mcpServers: { local: server } }));
  return path;
}

/** The model calls `wait-for-cancel`, which runs until the turn is stopped. */
const waitingToolCall: Reply = {
  body: sse([
    completionChunk({
      role: 'assistant',
      tool_calls: [
        {
          index: 0,
          id: 'call_wait',
          type: 'function',
          function: { name: 'wait-for-cancel', arguments: '{}' },
        },
      ],
    }),
    completionChunk({}, 'tool_calls'),
  ]),
};

describe('one instance', () => {
  test('SIGTERM drains: ready fails at once, new sockets and sends are refused, the answer ends complete and is kept, exit 0', async () => {
    const dataDir = tempDir();
    upstream = await startFakeUpstream([slowText(WORDS)]);
    const cli = await start({ AALIS_DATA_DIR: dataDir });
    expect(await (await fetch(`${cli.base}/healthz/ready`)).json()).toEqual({ ready: true });
    const tab = await connect(cli);
    const { sessionId, anonymousKey } = await tab.hello();
    tab.send({ type: 'send', text: 'talk slowly' });
    await tab.next((f) => f.type === 'stream' && Boolean(f.contentDelta));

    const exit = exitOf(cli.child);
    cli.child.kill('SIGTERM');
    await cli.waitForOutput(/SIGTERM, draining for up to 30 s/);
    const ready = await fetch(`${cli.base}/healthz/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ ready: false, reason: 'draining' });
    // Alive all the same: a liveness probe must not restart a server finishing its turns.
    expect((await fetch(`${cli.base}/healthz`)).status).toBe(200);
    expect(await refusedUpgrade(wsUrl(cli))).toEqual({ status: 503, retryAfter: '2' });
    tab.send({ type: 'send', text: 'and another thing', clientMessageId: 'later' });
    const refused = await tab.next((f) => f.type === 'error' && f.code === 'shutting_down');
    expect(refused).toMatchObject({
      clientMessageId: 'later',
      message: expect.stringMatching(/send again in a moment/),
    });

    // The socket stays open through the drain: the tab sees its answer end.
    const end = await tab.turnEnd();
    expect(end.message.status).toBe('complete');
    expect(textOf(end.message)).toBe(FULL_TEXT);
    expect((await tab.closed).code).toBe(1001);
    expect(await exit).toBe(0);

    const restarted = await start({ AALIS_DATA_DIR: dataDir });
    const reloaded = await connect(restarted);
    const { messages } = await reloaded.hello(sessionId, undefined, anonymousKey);
    expect(messages.map((m) => [m.role, m.status ?? null])).toEqual([
      ['user', null],
      ['assistant', 'complete'],
    ]);
    expect(textOf(messages[1]!)).toBe(FULL_TEXT);
  });

  test('a turn longer than AALIS_DRAIN_MS ends shutting_down, its started tool kept as unknown, and the MCP server goes with the server', async () => {
    const dir = tempDir();
    upstream = await startFakeUpstream([waitingToolCall]);
    const env = { AALIS_DATA_DIR: join(dir, 'data'), AALIS_DRAIN_MS: '300' };
    const cli = await start({ ...env, AALIS_CONFIG: mcpConfig(dir) });
    await cli.waitForOutput(/MCP server connected/);
    const [mcpServer] = childrenOf(cli.child.pid!);
    expect(mcpServer && isRunning(mcpServer)).toBe(true);
    const tab = await connect(cli);
    const { sessionId, anonymousKey } = await tab.hello();
    tab.send({ type: 'send', text: 'wait for me' });
    await tab.next(toolStart);

    const exit = exitOf(cli.child);
    cli.child.kill('SIGTERM');
    const end = await tab.turnEnd();
    expect(end.message).toMatchObject({ status: 'error', error: { code: 'shutting_down' } });
    const call = end.message.parts.find((part) => part.type === 'tool_call');
    expect(call).toMatchObject({ name: 'wait-for-cancel', status: 'unknown' });
    expect(call).not.toHaveProperty('result');
    expect(await exit).toBe(0);
    expect(isRunning(mcpServer!)).toBe(false);

    const restarted = await start(env);
    const reloaded = await connect(restarted);
    const { messages } = await reloaded.hello(sessionId, undefined, anonymousKey);
    expect(messages[1]).toMatchObject({ status: 'error', error: { code: 'shutting_down' } });
    expect(messages[1]!.parts.find((part) => part.type === 'tool_call')).toMatchObject({ status: 'unknown' });
  });

  test('a second SIGTERM ends the drain at once: the answer so far, shutting_down', async () => {
    upstream = await startFakeUpstream([slowText(WORDS)]);
    const cli = await start({ AALIS_DATA_DIR: ':memory:' });
    const tab = await connect(cli);
    await tab.hello();
    tab.send({ type: 'send', text: 'talk slowly' });
    await tab.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
    const exit = exitOf(cli.child);
    cli.child.kill('SIGTERM');
    await cli.waitForOutput(/draining/);
    cli.child.kill('SIGTERM');
    const end = await tab.turnEnd();
    expect(end.message).toMatchObject({ status: 'error', error: { code: 'shutting_down' } });
    expect(FULL_TEXT.startsWith(textOf(end.message))).toBe(true);
    expect(textOf(end.message).length).toBeLessThan(FULL_TEXT.length);
    expect(cli.output()).toContain('SIGTERM again, stopping the running turns now');
    expect(await exit).toBe(0);
  });

  test('a server killed outright leaves no MCP server behind: its stdin ends', async () => {
    const dir = tempDir();
    upstream = await startFakeUpstream([]);
    const cli = await start({ AALIS_DATA_DIR: ':memory:', AALIS_CONFIG: mcpConfig(dir) });
    await cli.waitForOutput(/MCP server connected/);
    const [mcpServer] = childrenOf(cli.child.pid!);
    expect(mcpServer && isRunning(mcpServer)).toBe(true);
    cli.child.kill('SIGKILL');
    await expect.poll(() => isRunning(mcpServer!), { timeout: 5_000 }).toBe(false);
  });
});

describe('two instances on Redis and PostgreSQL', () => {
  let redis: RedisService;
  let postgres: TestPostgres;

  beforeAll(async () => {
    [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
  });
  afterAll(async () => {
    await redis?.stop();
    await postgres?.stop();
  });

  test("SIGTERM of the turn's owner: its tab is closed 1012, and on the other instance sees the turn end complete", async () => {
    const dataDir = tempDir();
    upstream = await startFakeUpstream([slowText(WORDS)]);
    const env = {
      AALIS_DATA_DIR: dataDir,
      AALIS_REDIS_URL: redis.url,
      AALIS_DATABASE_URL: postgres.url,
      // Instances share one signing key (a cluster refuses to start without one).
      AALIS_AUTH_SECRET: 'a-cluster-secret-of-at-least-32-bytes!!',
    };
    const [owner, other] = await Promise.all([start(env), start(env)]);
    const tab = await connect(owner);
    const { sessionId, anonymousKey } = await tab.hello();
    tab.send({ type: 'send', text: 'talk slowly' });
    await tab.next((f) => f.type === 'stream' && Boolean(f.contentDelta));

    const exit = exitOf(owner.child);
    owner.child.kill('SIGTERM');
    // At once, not at the end of the drain: the turn is still running.
    expect((await tab.closed).code).toBe(1012);
    expect(tab.of('message')).toEqual([]);
    // The widget reconnects (a load balancer takes it to an instance that is ready).
    const moved = await connect(other);
    const ready = await moved.hello(sessionId, undefined, anonymousKey);
    expect(ready.resumed).toBe(true);
    const end = await moved.turnEnd();
    expect(end.message.status).toBe('complete');
    expect(textOf(end.message)).toBe(FULL_TEXT);
    expect(await exit).toBe(0);
  }, 30_000);
});
