/**
 * Budgets: a visitor's turns per hour and tokens per day (stricter when anonymous), the
 * server's tokens per day and turns at once. Driven on the hub with fake peers carrying
 * `visitor` and an injectable clock; tokens from a real provider on the fake upstream,
 * with and without usage; counters that survive a restart; and one run on real sockets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, type ServerFrame } from '@aalis/protocol';
import { SignJWT } from 'jose';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { DEFAULT_BUDGETS, NO_BUDGETS, type BudgetLimits } from '../src/budgets/budget-config.js';
import { loadBudgetConfig } from '../src/config/load-access.js';
import type { BudgetStore } from '../src/budgets/budget-store.js';
import { Budgets, wait } from '../src/budgets/budgets.js';
import { MemoryBudgetStore } from '../src/budgets/memory-budget-store.js';
import { SqliteBudgetStore } from '../src/budgets/sqlite-budget-store.js';
import { MemoryHistoryStore } from '../src/history/memory-store.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import type { HistoryStore } from '../src/history/store.js';
import { DemoProvider } from '../src/providers/demo/index.js';
import type { ChatProvider } from '../src/providers/core/types.js';
import { SessionHub } from '../src/sessions/session-hub.js';
import { ToolRegistry } from '../src/tools/define-tool.js';
import { fixture, startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { openAIOn } from './provider-helpers.js';
import { startServer, type Harness } from './ws-harness.js';
import { peer } from './hub-peer.js';

const demo = new DemoProvider({ speed: 0 });
afterAll(() => demo.close());
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const HOUR = 3_600_000;
const DAY = 86_400_000;
/** 10:37 UTC: the hour's window ends in 23 minutes, the day's in 13 h 23 min. */
const START = Date.UTC(2025, 5, 1, 10, 37);

const logger = { info: () => {}, error: (object: object, message: string) => console.error(message, object) };
const alice = { id: 'user:alice', kind: 'signed' as const };
const anon = { id: 'anon:1', kind: 'anonymous' as const };

type ErrorFrame = Extract<ServerFrame, { type: 'error' }>;

/** A hub whose clock the test moves, with these limits. */
function hubWith(
  limits: Partial<BudgetLimits>,
  {
    provider = demo as ChatProvider,
    store = new MemoryHistoryStore() as HistoryStore,
    budgetStore = new MemoryBudgetStore() as BudgetStore,
  } = {},
) {
  const clock = { now: START };
  const now = () => clock.now;
  const agent = new Agent({ provider, model: 'test-model', tools: new ToolRegistry(), logger });
  const budgets = new Budgets({ limits: { ...NO_BUDGETS, ...limits }, store: budgetStore, now });
  const hub = new SessionHub({ agent, store, logger, now, budgets });
  return { hub, clock, budgets, store, budgetStore };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

/**
 * Sends one message and waits for its outcome: the final `message` when it was accepted,
 * the `error` that refused it otherwise.
 */
async function turn(hub: SessionHub, p: ReturnType<typeof peer>, sessionId: string, id = 'c1') {
  const from = p.frames.length;
  await hub.send(p, sessionId, 'hello there', id);
  const outcome = () =>
    p.frames
      .slice(from)
      .find((f) => f.type === 'message' || (f.type === 'error' && f.clientMessageId === id));
  await until(() => outcome() !== undefined, 'the turn to end');
  return outcome()!;
}

const refusal = (frame: ServerFrame) => (frame.type === 'error' ? (frame as ErrorFrame) : undefined);

describe("a visitor's turns per hour", () => {
  test('the next send is refused with quota_exceeded until the hour passes', async () => {
    const { hub, clock } = hubWith({ visitorTurnsPerHour: 2 });
    const p = peer(alice);
    const session = await hub.hello(p, undefined);
    expect((await turn(hub, p, session)).type).toBe('message');
    expect((await turn(hub, p, session)).type).toBe('message');

    const refused = refusal(await turn(hub, p, session, 'c3'));
    expect(refused).toMatchObject({
      code: ErrorCode.QuotaExceeded,
      limit: 'visitor_turns',
      retryInMs: 23 * 60_000,
      clientMessageId: 'c3',
    });
    expect(refused!.message).toMatch(/2 messages per hour: try again in 23 min/);
    expect(refused!.sessionId).toBeUndefined(); // to this peer only
    // Nothing was stored for the refused message.
    expect(p.frames.filter((f) => f.type === 'user_message')).toHaveLength(2);

    // Another tab of the same visitor shares the budget; another visitor has their own.
    const tab = peer(alice);
    await hub.hello(tab, session);
    expect(refusal(await turn(hub, tab, session, 'c4'))?.limit).toBe('visitor_turns');
    const bob = peer({ id: 'user:bob', kind: 'signed' });
    expect((await turn(hub, bob, await hub.hello(bob, undefined))).type).toBe('message');

    clock.now += 22 * 60_000;
    expect(refusal(await turn(hub, p, session, 'c5'))?.retryInMs).toBe(60_000);
    clock.now += 60_000; // 11:00: a new window
    expect((await turn(hub, p, session, 'c6')).type).toBe('message');
  });

  test('anonymous visitors get the stricter budget', async () => {
    expect(DEFAULT_BUDGETS.anonTurnsPerHour).toBeLessThan(DEFAULT_BUDGETS.visitorTurnsPerHour);
    expect(DEFAULT_BUDGETS.anonTokensPerDay).toBeLessThan(DEFAULT_BUDGETS.visitorTokensPerDay);
    const { hub } = hubWith({ visitorTurnsPerHour: 3, anonTurnsPerHour: 1 });
    const a = peer(anon);
    const s = peer(alice);
    const anonSession = await hub.hello(a, undefined);
    const signedSession = await hub.hello(s, undefined);
    expect((await turn(hub, a, anonSession)).type).toBe('message');
    expect(refusal(await turn(hub, a, anonSession, 'c2'))).toMatchObject({
      code: ErrorCode.QuotaExceeded,
      limit: 'visitor_turns',
    });
    expect((await turn(hub, s, signedSession)).type).toBe('message');
    expect((await turn(hub, s, signedSession, 'c2')).type).toBe('message');
    // An anonymous id equal to a signed one still counts apart.
    const lookalike = peer({ id: alice.id, kind: 'anonymous' });
    expect((await turn(hub, lookalike, await hub.hello(lookalike, undefined))).type).toBe('message');
  });

  test('without identity (no visitor) the per-visitor budgets do not apply', async () => {
    const { hub } = hubWith({ visitorTurnsPerHour: 1, anonTurnsPerHour: 1 });
    const p = peer();
    const session = await hub.hello(p, undefined);
    for (let i = 0; i < 3; i++) expect((await turn(hub, p, session, `c${i}`)).type).toBe('message');
  });
});

describe("a visitor's tokens per day", () => {
  let upstream: FakeUpstream;
  const answer = fixture('openai-text-answer.sse').toString('utf8');
  /** The same answer without its usage chunk: a provider that reports none. */
  const withoutUsage = answer
    .split('\n\n')
    .filter((event) => !event.includes('"usage":{'))
    .join('\n\n');

  async function upstreamWith(body: string) {
    upstream = await startFakeUpstream(() => ({ body }));
    cleanups.push(() => upstream.close());
    return openAIOn(upstream.url);
  }

  test("count the provider's usage at the turn's end, then refuse until the next UTC day", async () => {
    const usage = JSON.parse(/"usage":(\{[^}]*\})/.exec(answer)![1]! + '}') as { total_tokens: number };
    expect(usage.total_tokens).toBe(221);
    const { hub, clock, budgets } = hubWith(
      { visitorTokensPerDay: 400 },
      { provider: await upstreamWith(answer) },
    );
    const p = peer(alice);
    const session = await hub.hello(p, undefined);
    const first = await turn(hub, p, session);
    expect(first.type === 'message' && first.message.usage?.totalTokens).toBe(221);
    expect(await budgets.refusal(alice, undefined, () => 0)).toBeUndefined(); // 221 of 400
    expect((await turn(hub, p, session, 'c2')).type).toBe('message'); // 442: over, after the turn
    const refused = refusal(await turn(hub, p, session, 'c3'));
    expect(refused).toMatchObject({
      code: ErrorCode.QuotaExceeded,
      limit: 'visitor_tokens',
      retryInMs: DAY - (START % DAY),
      clientMessageId: 'c3',
    });
    expect(refused!.message).toMatch(/try again in 13 h 23 min/);
    clock.now = START - (START % DAY) + DAY; // 00:00 UTC
    expect((await turn(hub, p, session, 'c4')).type).toBe('message');
  });

  test('estimate one token per 4 characters streamed when the provider gives no usage', async () => {
    const { hub, budgetStore } = hubWith(
      { visitorTokensPerDay: 1_000 },
      { provider: await upstreamWith(withoutUsage) },
    );
    const p = peer(alice);
    const done = await turn(hub, p, await hub.hello(p, undefined));
    if (done.type !== 'message') throw new Error(`refused: ${JSON.stringify(done)}`);
    expect(done.message.usage).toBeUndefined();
    const text = done.message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    expect(text.length).toBeGreaterThan(20);
    const counted = await budgetStore.count('visitor_tokens:signed:user:alice', START - (START % DAY));
    expect(counted).toBe(Math.ceil(text.length / 4));
  });
});

describe("the server's budgets", () => {
  test('daily tokens: every visitor, and a server without identity, gets overloaded', async () => {
    const { hub, clock } = hubWith({ serverTokensPerDay: 10 });
    const p = peer();
    const session = await hub.hello(p, undefined);
    expect((await turn(hub, p, session)).type).toBe('message'); // the demo answer is over 40 characters
    const refused = refusal(await turn(hub, p, session, 'c2'));
    expect(refused).toMatchObject({
      code: ErrorCode.Overloaded,
      limit: 'server_tokens',
      retryInMs: DAY - (START % DAY),
      clientMessageId: 'c2',
    });
    const b = peer(alice);
    expect(refusal(await turn(hub, b, await hub.hello(b, undefined), 'c3'))?.code).toBe(ErrorCode.Overloaded);
    clock.now += DAY;
    expect((await turn(hub, p, session, 'c4')).type).toBe('message');
  });

  test('concurrent turns: past the limit a send gets overloaded, without a retry time', async () => {
    // A model that answers only when told to.
    const release: Array<() => void> = [];
    const slow: ChatProvider = {
      name: 'slow',
      async *chatStream() {
        await new Promise<void>((resolve) => release.push(resolve));
        yield { contentDelta: 'done' };
        yield { done: true };
      },
    };
    const { hub } = hubWith({ maxConcurrentTurns: 2 }, { provider: slow });
    const peers = [peer(), peer(), peer()];
    const sessions = await Promise.all(peers.map((p) => hub.hello(p, undefined)));
    await hub.send(peers[0]!, sessions[0]!, 'one', 'a');
    await hub.send(peers[1]!, sessions[1]!, 'two', 'b');
    expect(hub.runningTurns).toBe(2);
    const refused = refusal(await turn(hub, peers[2]!, sessions[2]!, 'c'));
    expect(refused).toMatchObject({
      code: ErrorCode.Overloaded,
      limit: 'concurrent_turns',
      clientMessageId: 'c',
    });
    expect(refused!.retryInMs).toBeUndefined();
    await until(() => release.length === 2, 'both turns to reach the model');
    release.shift()!();
    await until(() => hub.runningTurns === 1, 'a turn to end');
    await hub.send(peers[2]!, sessions[2]!, 'three', 'd'); // one ended: room again
    expect(peers[2]!.frames.at(-1)).toMatchObject({ type: 'user_message', clientMessageId: 'd' });
    await until(() => release.length === 2, 'the new turn to reach the model');
    for (const go of release.splice(0)) go();
    await until(() => hub.runningTurns === 0, 'every turn to end');
  });
});

describe('counters survive a restart', () => {
  test('a new SQLite store on the same directory keeps the counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-budgets-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const open = () => {
      const store = new SqliteHistoryStore(dir);
      return hubWith(
        { visitorTurnsPerHour: 1, serverTokensPerDay: 1_000_000 },
        { store, budgetStore: new SqliteBudgetStore(store.database) },
      );
    };
    const before = open();
    const p = peer(alice);
    const session = await before.hub.hello(p, undefined);
    expect((await turn(before.hub, p, session)).type).toBe('message');
    await before.store.close();

    const after = open();
    const again = peer(alice);
    expect(await after.hub.hello(again, session)).toBe(session);
    expect(refusal(await turn(after.hub, again, session, 'c2'))?.limit).toBe('visitor_turns');
    const dayStart = START - (START % DAY);
    const counts = new SqliteBudgetStore((after.store as SqliteHistoryStore).database);
    expect(await counts.count('server_tokens:server', dayStart)).toBeGreaterThan(0);
    await after.store.close();
  });

  test('ended windows are pruned, live ones kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'aalis-budgets-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const history = new SqliteHistoryStore(dir);
    cleanups.push(() => history.close());
    for (const store of [new SqliteBudgetStore(history.database), new MemoryBudgetStore()]) {
      expect(await store.add('k', 0, 2, HOUR)).toBe(2);
      expect(await store.add('k', 0, 3, HOUR)).toBe(5);
      expect(await store.add('k', HOUR, 1, 2 * HOUR)).toBe(1);
      await store.prune(HOUR);
      expect(await store.count('k', 0)).toBe(0);
      expect(await store.count('k', HOUR)).toBe(1);
    }
  });
});

describe('configuration', () => {
  test('variables win over the file; 0 is no limit; a bad value names its variable', () => {
    expect(loadBudgetConfig({})).toEqual(DEFAULT_BUDGETS);
    expect(
      loadBudgetConfig(
        { AALIS_ANON_TURNS_PER_HOUR: '5', AALIS_MAX_CONCURRENT_TURNS: '0' },
        { anonTurnsPerHour: 7, serverTokensPerDay: 9, maxConcurrentTurns: 4 },
      ),
    ).toMatchObject({ anonTurnsPerHour: 5, serverTokensPerDay: 9, maxConcurrentTurns: 0 }); // "0" is set: it wins
    expect(() => loadBudgetConfig({ AALIS_VISITOR_TURNS_PER_HOUR: '-1' })).toThrow(
      'AALIS_VISITOR_TURNS_PER_HOUR must be a whole number (0 for no limit); it is "-1"',
    );
    // `wait` words a time to wait for a refusal's message; it does not wait.
    expect([30_000, 23 * 60_000, 5 * HOUR + 12 * 60_000, 2 * HOUR].map((ms) => wait(ms))).toEqual([
      'less than a minute',
      '23 min',
      '5 h 12 min',
      '2 h',
    ]);
  });
});

describe('on real sockets, with signed visitors', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  test("reconnecting does not reset a visitor's turns", async () => {
    const secret = 'a-shared-secret-of-at-least-32-bytes!!';
    harness = await startServer({
      provider: demo,
      auth: { mode: 'optional', secret },
      budgets: { visitorTurnsPerHour: 1 },
    });
    const token = await new SignJWT({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 600 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(secret));
    const first = await harness.connect();
    const ready = await first.hello(undefined, token);
    first.send({ type: 'send', text: 'hello', clientMessageId: 'm1' });
    await first.next((f) => f.type === 'message');
    first.socket.close();

    const second = await harness.connect();
    await second.hello(ready.sessionId, token);
    second.send({ type: 'send', text: 'again', clientMessageId: 'm2' });
    const refused = await second.next((f): f is ErrorFrame => f.type === 'error');
    expect(refused).toMatchObject({ code: 'quota_exceeded', limit: 'visitor_turns', clientMessageId: 'm2' });
    expect(refused.retryInMs).toBeGreaterThan(0);
    expect(refused.retryInMs).toBeLessThanOrEqual(HOUR);
  });
});
