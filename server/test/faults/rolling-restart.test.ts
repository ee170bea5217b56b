/**
 * A rolling deploy during live turns (issue 32's "done means"): three `aalis-server`
 * processes on a real Redis and a real PostgreSQL, a turn running on each, and each
 * instance in turn stopped with SIGTERM and replaced. A tab does what the widget does:
 * when its socket closes (1012: the instance drains), it opens one to a live instance and
 * says `hello` again. Every turn must end `complete`, whole, seen by its tab, and stored.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatMessage } from '@aalis/protocol';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCli } from '../cli-harness.js';
import { clusterEnv, startClusterServices, type ClusterServices } from '../cluster-env.js';
import type { FakeUpstream, Reply } from '../fake-upstream.js';
import { slowText } from '../scripted-replies.js';
import type { TestPostgres } from '../services/postgres.js';
import type { RedisService } from '../services/redis.js';
import { TestClient } from '../ws-harness.js';

interface Instance {
  child: ChildProcess;
  url: string;
  draining: boolean;
}

let redis: RedisService;
let postgres: TestPostgres;
let upstream: FakeUpstream;
let services: ClusterServices | undefined;
let dir: string;
const instances: Instance[] = [];
const replies: Reply[] = [];
const clients: TestClient[] = [];

async function startInstance(): Promise<Instance> {
  const { child, base } = await startCli(
    clusterEnv({
      upstreamUrl: upstream.url,
      redisUrl: redis.url,
      databaseUrl: postgres.url,
      leaseMs: 1_500,
      dataDir: join(dir, 'data'),
    }),
  );
  return { child, url: `${base.replace(/^http/, 'ws')}/ws`, draining: false };
}

async function connect(url: string): Promise<TestClient> {
  const client = await TestClient.open(url);
  clients.push(client);
  return client;
}

/** An instance that takes connections, other than `not`. */
const live = (not?: Instance) => instances.find((i) => !i.draining && i !== not)!;

/**
 * The end of the session's running turn, as a tab that reconnects like the widget sees
 * it: from the frames of its socket, or, after a reconnect, from the resumed turn's end
 * or the history of `ready` when it ended in between.
 */
async function endOf(tab: TestClient, from: number, sessionId: string, key: string): Promise<ChatMessage> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      return (await tab.turnEnd(from, 20_000)).message;
    } catch (error) {
      if (tab.socket.readyState !== tab.socket.CLOSED) throw error;
      expect((await tab.closed).code).toBe(1012);
    }
    tab = await connect(live().url);
    const ready = await tab.hello(sessionId, undefined, key);
    const last = ready.messages.at(-1);
    if (last?.role === 'assistant') return last;
    from = tab.frames.length;
  }
  throw new Error('the tab reconnected five times without seeing its turn end');
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aalis-rolling-'));
  services = await startClusterServices(replies);
  ({ redis, postgres, upstream } = services);
  instances.push(...(await Promise.all([startInstance(), startInstance(), startInstance()])));
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.socket.terminate();
  for (const instance of instances) instance.child.kill('SIGKILL');
  await services?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('a rolling restart of three instances during live turns: every turn ends complete, whole, and stored', async () => {
  for (let round = 0; round < instances.length; round++) {
    // A turn on every instance, one of them on the instance about to be restarted.
    const turns = await Promise.all(
      instances.map(async (instance, i) => {
        replies.push(slowText(25));
        const tab = await connect(instance.url);
        const ready = await tab.hello();
        tab.send({ type: 'send', text: `round ${round}, turn ${i}` });
        await tab.next((f) => f.type === 'stream' && Boolean(f.contentDelta));
        return { tab, from: tab.frames.length, sessionId: ready.sessionId, key: ready.anonymousKey! };
      }),
    );
    const leaving = instances[round]!;
    leaving.draining = true;
    const exited = once(leaving.child, 'exit');
    leaving.child.kill('SIGTERM');
    const ends = await Promise.all(turns.map((t) => endOf(t.tab, t.from, t.sessionId, t.key)));
    for (const end of ends) {
      expect(end.status).toBe('complete');
      expect(end.parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('word24') });
    }
    // The drained instance exits by itself, cleanly, and a new one takes its place.
    expect((await exited)[0]).toBe(0);
    instances[round] = await startInstance();
    // Every answer is in the history, whichever instance is asked.
    for (const { sessionId, key } of turns) {
      const reader = await connect(live(leaving).url);
      const ready = await reader.hello(sessionId, undefined, key);
      expect(ready.messages.map((m) => [m.role, m.status ?? null])).toEqual([
        ['user', null],
        ['assistant', 'complete'],
      ]);
    }
  }
}, 90_000);
