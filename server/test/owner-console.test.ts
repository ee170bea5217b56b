/**
 * The owner's console API (`/admin/api/*`) over real HTTP, with visitors chatting on real
 * sockets into a SQLite history: off without a token; the login cookie and its flags; the
 * 429 after 20 wrong tokens; listing, search, rating filter, a conversation whole, the CSV
 * and JSONL exports; erasing a visitor (its tabs leave, its budget starts afresh, other
 * visitors untouched); the retention's sweep on a fake clock; and the audit log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { scheduleRetention, VisitorErasure } from '../src/admin/visitor-erasure.js';
import { archiveOf } from '../src/history/archive-of.js';
import { PostgresHistoryStore } from '../src/history/postgres-store.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';
import type { HistoryStore } from '../src/history/store.js';
import { startPostgres, type TestPostgres } from './services/postgres.js';
import { textAnswer } from './fake-upstream.js';
import { toolCallThen } from './scripted-replies.js';
import { startServer, type Harness, type TestClient } from './ws-harness.js';

const ADMIN = 'owner-token-0123456789';
let harness: Harness | undefined;
const folders: string[] = [];
const stores: SqliteHistoryStore[] = [];
const closing: HistoryStore[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await Promise.all([...stores.splice(0), ...closing.splice(0)].map((store) => store.close()));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

let postgres: TestPostgres | undefined;
afterAll(async () => {
  await postgres?.stop();
});

/** A fresh database on a real PostgreSQL, started once for the file. */
async function postgresStore(): Promise<HistoryStore> {
  postgres ??= await startPostgres();
  const store = await PostgresHistoryStore.open(await postgres.createDatabase(), { max: 4 });
  closing.push(store);
  return store;
}

function sqliteStore() {
  const folder = mkdtempSync(join(tmpdir(), 'aalis-console-'));
  folders.push(folder);
  const store = new SqliteHistoryStore(folder);
  stores.push(store);
  return store;
}

const httpOf = (h: Harness) => h.url.replace(/^ws/, 'http').replace(/\/ws$/, '');

/** A call as a script makes it: the token as a bearer. */
function api(path: string, init: RequestInit & { token?: string | null } = {}) {
  const { token = ADMIN, headers, ...rest } = init;
  return fetch(`${httpOf(harness!)}/admin/api/${path}`, {
    ...rest,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(headers as object) },
  });
}

const login = (token: string, headers: Record<string, string> = {}) =>
  api('login', {
    token: null,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ token }),
  });

/** A visitor's question and its answer, on a tab of its own; returns the tab and the answer's id. */
async function chat(client: TestClient, text: string, anonymousKey?: string) {
  const ready = await client.hello(undefined, undefined, anonymousKey);
  const from = client.frames.length;
  client.send({ type: 'send', text });
  const end = await client.next((f) => f.type === 'message', { from });
  return { ready, answerId: (end as { message: { id: string } }).message.id };
}

interface Listing {
  sessionId: string;
  visitorId: string;
  anonymous: boolean;
  messageCount: number;
  rating?: string;
}
const listed = async (query = '') =>
  ((await (await api(`conversations${query}`)).json()) as { conversations: Listing[]; next?: string })
    .conversations;

describe('the owner console API', () => {
  test('without AALIS_ADMIN_TOKEN it does not exist', async () => {
    harness = await startServer({ store: sqliteStore() });
    for (const path of ['conversations', 'session', 'transcripts?from=2026-01-01&to=2026-01-02'])
      expect((await api(path)).status).toBe(404);
    expect((await login(ADMIN)).status).toBe(404);
    for (const path of ['/admin', '/admin/aalis-console.js'])
      expect((await fetch(`${httpOf(harness)}${path}`)).status).toBe(404);
  });

  test('the login cookie: HttpOnly, SameSite=Strict, under /admin, Secure behind HTTPS; a change with it must come from the console', async () => {
    harness = await startServer({ store: sqliteStore(), adminToken: ADMIN });
    expect((await api('session', { token: null })).status).toBe(401);
    expect((await api('session', { token: 'owner-token-wrong-0000' })).status).toBe(401);
    const wrong = await login('owner-token-wrong-0000');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();

    const ok = await login(ADMIN);
    expect(ok.status).toBe(204);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie.split('; ').slice(1).sort()).toEqual(
      ['HttpOnly', 'Max-Age=43200', 'Path=/admin', 'SameSite=Strict'].sort(),
    );
    const behindTls = (await login(ADMIN, { 'x-forwarded-proto': 'https' })).headers.get('set-cookie')!;
    expect(behindTls.split('; ')).toContain('Secure');

    const pair = cookie.split(';')[0]!;
    const host = new URL(httpOf(harness)).host;
    expect((await api('session', { token: null, headers: { cookie: pair } })).status).toBe(200);
    // Altered, or another server's: refused.
    expect(
      (await api('session', { token: null, headers: { cookie: `${pair.slice(0, -2)}xx` } })).status,
    ).toBe(401);
    // A change: only from the console's own origin.
    const erase = (headers: Record<string, string>) =>
      api('visitors/anon%3Anobody', { token: null, method: 'DELETE', headers: { cookie: pair, ...headers } });
    expect((await erase({})).status).toBe(403);
    expect((await erase({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await erase({ origin: `http://${host}` })).status).toBe(204);
    // Logging out makes the browser forget it.
    const out = await api('logout', { token: null, method: 'POST', headers: { cookie: pair } });
    expect(out.headers.get('set-cookie')).toMatch(/^aalis_admin=; .*Max-Age=0/);
  });

  test('the page: a shell under the page policy, never cached nor framed; its script by ETag, compressed', async () => {
    harness = await startServer({ store: sqliteStore(), adminToken: ADMIN });
    const page = await fetch(`${httpOf(harness)}/admin`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('<aalis-console></aalis-console>');
    // `npm test` builds the widget, the console with it, before the tests.
    const script = await fetch(`${httpOf(harness)}/admin/aalis-console.js`, {
      headers: { 'accept-encoding': 'br' },
    });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = script.headers.get('etag')!;
    expect(etag).toMatch(/-br"$/);
    const again = await fetch(`${httpOf(harness)}/admin/aalis-console.js`, {
      headers: { 'accept-encoding': 'br', 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
  });

  test('20 wrong tokens in a minute from an address: 429, even for the right one', async () => {
    harness = await startServer({ store: sqliteStore(), adminToken: ADMIN });
    for (let i = 0; i < 20; i++) {
      const answer =
        i % 2 ? await login(`wrong-${i}-0123456789`) : await api('session', { token: `wrong-${i}` });
      expect(answer.status).toBe(401);
    }
    const refused = await login(ADMIN);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect((await api('conversations')).status).toBe(429);
  });

  test.each([
    ['SQLite', async () => sqliteStore()],
    ['PostgreSQL', postgresStore],
  ] as const)(
    'on %s: lists, searches, filters and reads conversations; exports them; erases a visitor and nothing else',
    async (_, storeOf) => {
      const lines: string[] = [];
      harness = await startServer({
        store: await storeOf(),
        adminToken: ADMIN,
        // As the CLI runs: anonymous visitors, each browser its own.
        auth: { mode: 'optional' },
        budgets: { anonTurnsPerHour: 2 },
        log: { write: (line: string) => lines.push(line) },
        replies: [
          { body: textAnswer('Refunds take five days.') },
          { body: textAnswer('We open at nine.') },
          { body: textAnswer('Still five days.') },
          { body: textAnswer('Welcome back.') },
        ],
      });
      const ann = await harness.connect();
      const bob = await harness.connect();
      const annChat = await chat(ann, 'How do I get a refund for order 1234?');
      const bobChat = await chat(bob, 'When does the shop open on Sunday?');
      ann.send({ type: 'feedback', messageId: annChat.answerId, rating: 'down', comment: 'too slow' });
      await ann.next((f) => f.type === 'feedback');
      ann.send({ type: 'send', text: 'and for order 99?' });
      await ann.next((f) => f.type === 'message' && f.message.id !== annChat.answerId);

      const all = await listed();
      expect(all.map((c) => [c.sessionId, c.messageCount, c.anonymous, c.rating ?? null])).toEqual([
        [annChat.ready.sessionId, 4, true, 'down'],
        [bobChat.ready.sessionId, 2, true, null],
      ]);
      const annId = all[0]!.visitorId;
      expect(annId).toMatch(/^anon:/);
      expect(all[1]!.visitorId).not.toBe(annId);
      expect((await listed('?rating=down')).map((c) => c.sessionId)).toEqual([annChat.ready.sessionId]);
      expect((await listed('?q=sunday%20shop')).map((c) => c.sessionId)).toEqual([bobChat.ready.sessionId]);
      expect((await listed('?q=five')).map((c) => c.sessionId)).toEqual([annChat.ready.sessionId]);
      // Paged: one at a time, the cursor takes it on.
      const first = (await (await api('conversations?limit=1')).json()) as { next: string };
      expect((await listed(`?limit=1&cursor=${first.next}`)).map((c) => c.sessionId)).toEqual([
        bobChat.ready.sessionId,
      ]);
      for (const bad of [
        '?limit=0',
        '?limit=101',
        '?rating=meh',
        '?cursor=nonsense',
        `?q=${'x'.repeat(201)}`,
      ])
        expect((await api(`conversations${bad}`)).status).toBe(400);

      const whole = (await (await api(`conversations/${annChat.ready.sessionId}`)).json()) as {
        visitorId: string;
        messages: Array<{ role: string; parts: Array<{ text?: string }>; feedback?: object }>;
      };
      expect(whole.visitorId).toBe(annId);
      expect(whole.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(whole.messages[1]).toMatchObject({
        parts: [{ type: 'text', text: 'Refunds take five days.' }],
        feedback: { rating: 'down', comment: 'too slow' },
      });
      expect((await api('conversations/nope')).status).toBe(404);

      const today = new Date().toISOString().slice(0, 10);
      const csv = await api(`transcripts?from=${today}&to=${today}&format=csv`);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      expect(csv.headers.get('content-disposition')).toBe(
        `attachment; filename="aalis-transcripts-${today}-to-${today}.csv"`,
      );
      const rows = (await csv.text()).trimEnd().split('\r\n');
      expect(rows[0]).toBe('sessionId,visitorId,messageId,role,createdAt,text');
      expect(rows).toHaveLength(7);
      expect(
        rows.some((row) =>
          row.endsWith(',user,' + row.split(',')[4] + ',When does the shop open on Sunday?'),
        ),
      ).toBe(true);
      const jsonl = (await (await api(`transcripts?from=${today}&to=${today}`)).text()).trimEnd().split('\n');
      expect(jsonl.map((line) => JSON.parse(line) as { text: string }).map((l) => l.text)).toContain(
        'We open at nine.',
      );
      for (const bad of [
        'from=2026-02-30&to=2026-03-01',
        'from=2026-03-02&to=2026-03-01',
        'from=x',
        'from=2020-01-01&to=2026-01-01',
        `from=${today}&to=${today}&format=xml`,
      ])
        expect((await api(`transcripts?${bad}`)).status).toBe(400);

      // Ann has used her two turns of the hour.
      const more = ann.frames.length;
      ann.send({ type: 'send', text: 'one more?', clientMessageId: 'over' });
      expect(
        await ann.next((f) => 'clientMessageId' in f && f.clientMessageId === 'over', { from: more }),
      ).toMatchObject({ type: 'error', code: 'quota_exceeded' });
      const erased = await api(`visitors/${encodeURIComponent(annId)}`, { method: 'DELETE' });
      expect(erased.status).toBe(204);
      // Her tab leaves the conversation; Bob's stays.
      await ann.next((f) => f.type === 'session_deleted' && f.sessionId === annChat.ready.sessionId);
      expect(bob.frames.some((f) => f.type === 'session_deleted')).toBe(false);
      expect((await listed()).map((c) => c.sessionId)).toEqual([bobChat.ready.sessionId]);
      expect(await listed('?q=refund')).toEqual([]);
      expect((await api(`conversations/${annChat.ready.sessionId}`)).status).toBe(404);
      expect(
        (await (await api(`transcripts?from=${today}&to=${today}`)).text()).trimEnd().split('\n'),
      ).toHaveLength(2);
      // Her budget is forgotten too: the same browser may ask again.
      const again = await harness.connect();
      await chat(again, 'hello again', annChat.ready.anonymousKey);
      expect((await listed()).map((c) => c.visitorId)).toEqual([annId, all[1]!.visitorId]);
      // Every action is in the log, with how the owner proved it.
      const audit = lines.map(
        (line) => JSON.parse(line) as { admin?: string; via?: string; visitorId?: string },
      );
      expect(audit.filter((entry) => entry.admin === 'erase_visitor')).toEqual([
        expect.objectContaining({ via: 'token', visitorId: annId }),
      ]);
      expect(audit.filter((entry) => entry.admin === 'export')).toHaveLength(3);
    },
    // PostgreSQL starts with the first of these: seconds on a loaded machine.
    60_000,
  );

  test('day stats: turns, visitors, tokens and their cost, errors, feedback, tool calls and failures, time to first token', async () => {
    harness = await startServer({
      store: sqliteStore(),
      adminToken: ADMIN,
      auth: { mode: 'optional' },
      prices: { 'test-model': { input: 2, output: 10 } },
      replies: [
        ...toolCallThen('calculator', '{"expression":"2 *"}', 'That did not add up.'),
        { body: textAnswer('Fine.', 100, 20) },
        { status: 500, body: 'upstream down' },
      ],
      providerOptions: { retry: { retries: 0, baseDelayMs: 0, maxDelayMs: 0 } },
    });
    const ann = await harness.connect();
    const { answerId } = await chat(ann, 'what is 2 *?');
    ann.send({ type: 'feedback', messageId: answerId, rating: 'down' });
    await ann.next((f) => f.type === 'feedback');
    ann.send({ type: 'send', text: 'and now?' });
    await ann.next((f) => f.type === 'message' && f.message.id !== answerId);
    const bob = await harness.connect();
    await chat(bob, 'hello?');

    const today = new Date();
    const day = (offset: number) =>
      new Date(today.getTime() + offset * 86_400_000).toISOString().slice(0, 10);
    const answer = await api(`stats?from=${day(-1)}&to=${day(0)}`);
    expect(answer.status).toBe(200);
    const { days } = (await answer.json()) as { days: Array<Record<string, unknown>> };
    expect(days.map((d) => d.date)).toEqual([day(-1), day(0)]);
    expect(days[0]).toMatchObject({
      turns: 0,
      visitors: 0,
      firstTokenMs: { p50: null, p95: null },
      costUsd: 0,
    });
    const stats = days[1] as {
      turns: number;
      tokens: { input: number; output: number };
      costUsd: number;
      firstTokenMs: { p50: number; p95: number };
    };
    expect(stats).toMatchObject({
      turns: 3,
      visitors: 2,
      feedback: { up: 0, down: 1 },
      tools: { calculator: { calls: 1, failures: 1 } },
    });
    expect(Object.values((stats as unknown as { errors: Record<string, number> }).errors)).toEqual([1]);
    // The call's round told no usage, its answer's 5 + 5; then 100 + 20; the failed turn none.
    expect(stats.tokens).toEqual({ input: 105, output: 25 });
    expect(stats.costUsd).toBeCloseTo((105 * 2 + 25 * 10) / 1_000_000, 9);
    expect(stats.firstTokenMs.p50).toBeGreaterThanOrEqual(0);
    expect(stats.firstTokenMs.p95).toBeGreaterThanOrEqual(stats.firstTokenMs.p50);
    expect((await api(`stats?from=${day(0)}&to=${day(-1)}`)).status).toBe(400);
  });

  test('retention: on a fake clock, a conversation idle longer than the days is erased, a recent one kept', async () => {
    const store = sqliteStore();
    const day = 86_400_000;
    const t0 = Date.UTC(2026, 0, 1);
    const question = (id: string, at: number) => ({
      id,
      role: 'user' as const,
      parts: [{ type: 'text' as const, text: id }],
      createdAt: at,
    });
    const answer = (id: string, at: number) => ({ ...question(id, at), role: 'assistant' as const });
    await store.beginTurn('old', question('o1', t0), t0, 'user:a');
    await store.endTurn('old', answer('o2', t0 + 1_000), 'o1');
    await store.beginTurn('recent', question('r1', t0 + 20 * day), t0 + 20 * day, 'user:a');
    await store.endTurn('recent', answer('r2', t0 + 20 * day), 'r1');
    const erasedSessions: string[][] = [];
    const erasure = new VisitorErasure(
      archiveOf(store)!,
      { erased: async (ids) => void erasedSessions.push([...ids]) },
      undefined,
    );
    let now = t0 + 25 * day;
    const log: string[] = [];
    const logger = {
      info: (_o: object, m: string) => log.push(m),
      error: (_o: object, m: string) => log.push(m),
    };
    const retention = scheduleRetention({ erasure, days: 30, logger: logger as never, now: () => now });
    await retention.sweep();
    expect(await store.hasSession('old')).toBe(true);
    now = t0 + 31 * day;
    await retention.sweep();
    retention.stop();
    expect(await store.hasSession('old')).toBe(false);
    expect(await store.hasSession('recent')).toBe(true);
    expect(erasedSessions.filter((ids) => ids.length)).toEqual([['old']]);
    expect(log).toEqual(['retention: erased conversations idle too long']);
  });
});
