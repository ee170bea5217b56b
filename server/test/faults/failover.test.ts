/**
 * Failover that loses nothing (issue 32): two `aalis-server` processes on a real Redis
 * and a real PostgreSQL, on one fake model upstream that speaks real Chat Completions
 * bytes, and an MCP server whose tool counts its runs in a file. The faults are real: a
 * Redis restarted empty while a turn runs and another tab sends, an owner killed with
 * SIGKILL while it writes a tool call or runs one, with Stop pressed at that moment.
 * What a tab must see: `busy` rather than a second turn, a turn that ends once and in
 * time, a status while it waits, the visitor's Stop honoured, and no tool run twice.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerFrame } from '@aalis/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { startCli } from '../cli-harness.js';
import { clusterEnv, startClusterServices, type ClusterServices } from '../cluster-env.js';
import type { FakeUpstream, Reply } from '../fake-upstream.js';
import { fixtureServer } from '../fixtures/mcp/harness.js';
import { slowText, slowToolCall } from '../scripted-replies.js';
import type { TestPostgres } from '../services/postgres.js';
import type { RedisService } from '../services/redis.js';
import { TestClient } from '../ws-harness.js';

/**
 * Short, so the suite is quick; `AALIS_FAILOVER_LEASE_MS=10000` runs the same faults at
 * the default lease, and the figures each test logs are then the ones a site sees.
 */
const LEASE_MS = Number(process.env.AALIS_FAILOVER_LEASE_MS ?? 1_500);
/** Long enough for a dead owner's lease to run out, however long it is. */
const FAULT_TIMEOUT_MS = 30_000 + LEASE_MS * 4;
/** What a fault test measured, for the figures. */
const report = (what: string, ms: number) =>
  console.info(`failover (lease ${LEASE_MS} ms): ${what} ${ms} ms`);

let redis: RedisService;
let postgres: TestPostgres;
let upstream: FakeUpstream;
let services: ClusterServices | undefined;
let dir: string;
let countFile: string;
const instances: Array<{ child: ChildProcess; url: string; output(): string }> = [];
const replies: Reply[] = [];
const clients: TestClient[] = [];

async function startInstance() {
  const { child, base, output, waitForOutput } = await startCli(
    clusterEnv({
      upstreamUrl: upstream.url,
      redisUrl: redis.url,
      databaseUrl: postgres.url,
      leaseMs: LEASE_MS,
      dataDir: join(dir, 'data'),
      configFile: join(dir, 'aalis.config.json'),
    }),
  );
  // Its tools are offered once the MCP server is up.
  await waitForOutput(/MCP server connected/);
  return { child, output, url: `${base.replace(/^http/, 'ws')}/ws` };
}

async function connect(url: string): Promise<TestClient> {
  const client = await TestClient.open(url);
  clients.push(client);
  return client;
}

/** Two tabs of one visitor on one session, one on each instance. */
async function twoTabs() {
  const [a, b] = await Promise.all([connect(instances[0]!.url), connect(instances[1]!.url)]);
  const { sessionId, anonymousKey } = await a.hello();
  await b.hello(sessionId, undefined, anonymousKey);
  return { a, b, sessionId, anonymousKey };
}

/** Runs of the counting tool so far, from its side effect. */
const toolRuns = () => {
  try {
    return readFileSync(countFile, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
};

/** Kills the owner (SIGKILL: no goodbye), and starts a fresh one in its place once the test is done with it. */
async function killOwner(): Promise<number> {
  const owner = instances[0]!;
  owner.child.kill('SIGKILL');
  return Date.now();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aalis-failover-'));
  countFile = join(dir, 'runs.txt');
  writeFileSync(
    join(dir, 'aalis.config.json'),
    JSON.stringify({
      builtinTools: ['get_time'],
      mcpServers: { counting: fixtureServer('counting-server', { COUNT_FILE: countFile }) },
    }),
  );
  services = await startClusterServices(replies);
  ({ redis, postgres, upstream } = services);
  instances.push(...(await Promise.all([startInstance(), startInstance()])));
}, 60_000);

afterAll(async () => {
  if (process.env.FAILOVER_LOGS) for (const instance of instances) console.log(instance.output());
  for (const client of clients) client.socket.terminate();
  for (const instance of instances) instance.child.kill('SIGKILL');
  await services?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('failover on Redis and PostgreSQL', () => {
  beforeEach(async () => {
    replies.length = 0;
    // A test that killed the owner leaves a fresh instance for the next one.
    if (instances[0]!.child.exitCode !== null || instances[0]!.child.signalCode !== null)
      instances[0] = await startInstance();
  });

  test('Redis restarted empty mid-turn, a send from the other tab in the window: busy each time, one answer, stored', async () => {
    // A race (the owner puts its lease back as the other instance reconnects): three rounds.
    for (let round = 0; round < 3; round++) {
      replies.length = 0;
      // The answer, then one for a send that lands just after it (a new turn, rightly).
      replies.push(slowText(40), slowText(1));
      const { a, b, sessionId, anonymousKey } = await twoTabs();
      a.send({ type: 'send', text: `round ${round}: talk slowly` });
      await b.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
      await redis.restart();
      // Where B's copy of the answer's end is, once it has come.
      const endOnB = () => b.frames.findIndex((f) => f.type === 'message' && f.message.role === 'assistant');
      // Sends from the other tab all through the window, until the answer ends.
      const refused: ServerFrame[] = [];
      let ended = false;
      const ending = a.turnEnd().then((end) => ((ended = true), end));
      // Paced as a visitor pressing Send would be, within a connection's 10 sends a minute.
      for (let i = 0; !ended && endOnB() < 0 && i < 9; i++) {
        if (i) await new Promise((resolve) => setTimeout(resolve, 200));
        const from = b.frames.length;
        const id = `r${round}-${i}`;
        b.send({ type: 'send', text: 'me too', clientMessageId: id });
        const answer = await b.next(
          (f) =>
            (f.type === 'error' && f.clientMessageId === id) ||
            (f.type === 'user_message' && f.clientMessageId === id),
          { from },
        );
        if (answer.type === 'error') {
          refused.push(answer);
          continue;
        }
        // Accepted: only rightly so once the answer had ended, and B was told that first
        // (a claim reads the log up to itself before its own frames reach its tabs).
        const at = b.frames.indexOf(answer);
        expect(endOnB()).toBeGreaterThanOrEqual(0);
        expect(endOnB()).toBeLessThan(at);
        expect((await b.turnEnd(at)).message.status).toBe('complete');
        break;
      }
      // Refused each time: busy (or unavailable while B had not reconnected yet); never a turn.
      expect(refused.length).toBeGreaterThan(2);
      for (const answer of refused)
        expect(['busy', 'unavailable']).toContain((answer as { code: string }).code);
      expect(refused.some((answer) => (answer as { code: string }).code === 'busy')).toBe(true);
      const endA = await ending;
      expect(endA.message.status).toBe('complete');
      expect(endA.message.parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('word39') });
      // The tab that watched from the other instance gets the same end.
      const endB = await b.turnEnd();
      expect(endB.message.id).toBe(endA.message.id);
      // And the history has the answer, whole.
      const reader = await connect(instances[1]!.url);
      const ready = await reader.hello(sessionId, undefined, anonymousKey);
      expect(ready.messages.slice(0, 2).map((m) => [m.role, m.status ?? null])).toEqual([
        ['user', null],
        ['assistant', 'complete'],
      ]);
    }
  }, 90_000);

  test(
    'kill -9 of the owner while it writes a tool call, Stop at that moment on the other tab: aborted in time, the tool never runs',
    async () => {
      replies.push(...slowToolCall(60, { name: 'slow-count', fields: '"ms":3000' }));
      const { a, b } = await twoTabs();
      a.send({ type: 'send', text: 'count, slowly' });
      await b.next((f) => f.type === 'stream' && (f.toolCallProgress?.charsAccumulated ?? 0) > 10);
      const killedAt = await killOwner();
      b.send({ type: 'abort' });
      const from = b.frames.length;
      const late = await b.next((f) => f.type === 'turn_status' && f.state === 'unresponsive', {
        from,
        timeoutMs: FAULT_TIMEOUT_MS,
      });
      expect(late).toBeDefined();
      const end = await b.turnEnd(from, FAULT_TIMEOUT_MS);
      // Within the lease plus a renewal, and a second of slack for a loaded machine.
      const endedAfter = Date.now() - killedAt;
      report('owner killed while writing a tool call, Stop pressed: ended aborted after', endedAfter);
      expect(endedAfter).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 1_000);
      expect(end.message.status).toBe('aborted');
      expect(b.frames.slice(from).filter((f) => f.type === 'message')).toHaveLength(1);
      expect(b.frames.slice(from).some((f) => f.type === 'error' && f.sessionId)).toBe(false);
      expect(toolRuns()).toBe(0);
      // The session goes on.
      replies.length = 0;
      replies.push(slowText(3));
      const next = b.frames.length;
      b.send({ type: 'send', text: 'still there?', clientMessageId: 'again' });
      expect(
        await b.next((f) => 'clientMessageId' in f && f.clientMessageId === 'again', { from: next }),
      ).toMatchObject({
        type: 'user_message',
      });
      expect((await b.turnEnd(next)).message.status).toBe('complete');
    },
    FAULT_TIMEOUT_MS,
  );

  test(
    'kill -9 of the owner while its tool runs, Stop at that moment: aborted, the call kept as may-have-run, run once',
    async () => {
      const runsBefore = toolRuns();
      replies.push(...slowToolCall(4, { name: 'slow-count', fields: '"ms":4000', delayMs: 10 }));
      const { a, b } = await twoTabs();
      a.send({ type: 'send', text: 'count once' });
      await b.next((f) => f.type === 'tool_execute' && f.phase === 'start');
      await expect.poll(toolRuns, { timeout: 3_000 }).toBe(runsBefore + 1);
      await killOwner();
      b.send({ type: 'abort' });
      const end = await b.turnEnd(0, FAULT_TIMEOUT_MS);
      expect(end.message.status).toBe('aborted');
      expect(end.message.parts.find((p) => p.type === 'tool_call')).toMatchObject({ status: 'unknown' });
      // Never run again, by anyone.
      replies.length = 0;
      replies.push(slowText(3));
      b.send({ type: 'send', text: 'and now?' });
      expect((await b.turnEnd(b.frames.length)).message.status).toBe('complete');
      expect(toolRuns()).toBe(runsBefore + 1);
    },
    FAULT_TIMEOUT_MS,
  );

  test(
    'kill -9 of the owner, no Stop: the other tab hears why within a renewal, then the end, interrupted',
    async () => {
      replies.push(slowText(80));
      const { a, b } = await twoTabs();
      a.send({ type: 'send', text: 'talk slowly' });
      await b.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
      const killedAt = await killOwner();
      const from = b.frames.length;
      await b.next((f) => f.type === 'turn_status' && f.state === 'unresponsive', {
        from,
        timeoutMs: FAULT_TIMEOUT_MS,
      });
      const toldAfter = Date.now() - killedAt;
      const end = await b.turnEnd(from, FAULT_TIMEOUT_MS);
      const endedAfter = Date.now() - killedAt;
      report('owner killed: the other tab told unresponsive after', toldAfter);
      report('owner killed: the other tab got the end after', endedAfter);
      // A renewal missed, plus the slack and the watch's period (redis-cluster.ts), plus
      // half a second for a loaded machine: 4.8 s at the default lease.
      expect(toldAfter).toBeLessThan(
        LEASE_MS / 3 + Math.min(500, LEASE_MS / 20) + Math.min(500, LEASE_MS / 10) + 500,
      );
      expect(endedAfter).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 1_000);
      expect(end.message).toMatchObject({ status: 'error', error: { code: 'interrupted' } });
      // The answer so far was kept.
      expect(end.message.parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('word0') });
    },
    FAULT_TIMEOUT_MS,
  );
});
