/**
 * The owner's pause switch over real HTTP and sockets: the routes answer 404 without an
 * admin token and 401 without the right one; while paused every new turn is refused with
 * `paused` and a running turn finishes; the state survives a restart (the data folder);
 * `aalis-server pause|status|resume` drive it from a shell. Pausing one instance of a
 * cluster pauses the others: cluster-budgets.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { FilePauseSwitch } from '../src/budgets/pause-switch.js';
import { main } from '../src/cli.js';
import { completionChunk, sse, textAnswer, usageChunk } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';

const ADMIN = 'owner-token-0123456789';
let harness: Harness | undefined;
const folders: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const httpOf = (harness: Harness) => harness.url.replace(/^ws/, 'http').replace(/\/ws$/, '');

function admin(harness: Harness, path: string, token?: string, body?: object) {
  return fetch(`${httpOf(harness)}/admin/${path}`, {
    method: path === 'status' ? 'GET' : 'POST',
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}

describe('the pause switch', () => {
  test('without AALIS_ADMIN_TOKEN the routes do not exist', async () => {
    harness = await startServer({});
    for (const path of ['pause', 'resume', 'status'])
      expect((await admin(harness, path, ADMIN)).status).toBe(404);
  });

  test('a missing or wrong token is 401, and changes nothing', async () => {
    harness = await startServer({ adminToken: ADMIN });
    expect((await admin(harness, 'pause')).status).toBe(401);
    expect((await admin(harness, 'pause', 'owner-token-0123456780')).status).toBe(401);
    expect(await (await admin(harness, 'status', ADMIN)).json()).toEqual({
      paused: false,
      since: null,
      reason: null,
    });
  });

  test('paused: new turns get `paused`, the running one finishes; resumed: turns run again', async () => {
    const slow = sse([
      completionChunk({ role: 'assistant', content: '' }),
      ...Array.from({ length: 20 }, (_, i) => completionChunk({ content: `w${i} ` })),
      completionChunk({}, 'stop'),
      usageChunk(1, 20),
    ]);
    harness = await startServer({
      adminToken: ADMIN,
      replies: [{ body: slow, byEvent: true, delayMs: 20 }, { body: textAnswer('Back again.') }],
    });
    const running = await harness.connect();
    await running.hello();
    running.send({ type: 'send', text: 'talk slowly' });
    await running.next((f) => f.type === 'stream' && Boolean(f.contentDelta));

    const paused = await admin(harness, 'pause', ADMIN, { reason: 'the bill is too high' });
    expect(paused.status).toBe(200);
    const state = (await paused.json()) as { paused: boolean; since: string; reason: string };
    expect(state).toMatchObject({ paused: true, reason: 'the bill is too high' });
    expect(Date.parse(state.since)).toBeGreaterThan(Date.now() - 60_000);

    const other = await harness.connect();
    await other.hello();
    other.send({ type: 'send', text: 'may I?', clientMessageId: 'p1' });
    const refused = await other.next((f) => f.type === 'error' && f.clientMessageId === 'p1');
    expect(refused).toMatchObject({ code: 'paused' });
    expect((refused as { message: string }).message).toMatch(/paused/);
    // The turn that was running when the owner paused ends as it would have.
    expect(await running.turnEnd()).toMatchObject({ message: { status: 'complete' } });

    expect((await admin(harness, 'resume', ADMIN)).status).toBe(200);
    const from = other.frames.length;
    other.send({ type: 'send', text: 'and now?', clientMessageId: 'p2' });
    expect(await other.turnEnd(from)).toMatchObject({ message: { status: 'complete' } });
  });

  test('the pause survives a restart on the same data folder', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'aalis-pause-'));
    folders.push(folder);
    harness = await startServer({ adminToken: ADMIN, pauseSwitch: new FilePauseSwitch(folder) });
    await admin(harness, 'pause', ADMIN, { reason: 'maintenance' });
    await harness.close();
    harness = await startServer({
      adminToken: ADMIN,
      pauseSwitch: new FilePauseSwitch(folder),
      replies: [{ body: textAnswer('Unreachable.') }],
    });
    expect(await (await admin(harness, 'status', ADMIN)).json()).toMatchObject({
      paused: true,
      reason: 'maintenance',
    });
    const client = await harness.connect();
    await client.hello();
    client.send({ type: 'send', text: 'hi', clientMessageId: 'x' });
    expect(await client.next((f) => f.type === 'error')).toMatchObject({
      code: 'paused',
      clientMessageId: 'x',
    });
  });

  test('aalis-server pause, status and resume drive a running server', async () => {
    harness = await startServer({ adminToken: ADMIN });
    const out: string[] = [];
    const err: string[] = [];
    const original = { log: console.log, error: console.error };
    console.log = (line: string) => out.push(line);
    console.error = (line: string) => err.push(line);
    try {
      const url = httpOf(harness);
      expect(await main(['pause', '--url', url, '--token', ADMIN, '--reason', 'from the shell'], {})).toBe(0);
      expect(JSON.parse(out.at(-1)!)).toMatchObject({ paused: true, reason: 'from the shell' });
      expect(await main(['status', '--url', url], { AALIS_ADMIN_TOKEN: ADMIN })).toBe(0);
      expect(JSON.parse(out.at(-1)!)).toMatchObject({ paused: true });
      expect(await main(['resume', '--url', url, '--token', 'wrong-token-0123456789'], {})).toBe(1);
      expect(err.join('\n')).toMatch(/401/);
      expect(await main(['resume', '--url', url, '--token', ADMIN], {})).toBe(0);
      expect(JSON.parse(out.at(-1)!)).toEqual({ paused: false, since: null, reason: null });
      expect(await main(['pause', '--url', url], {})).toBe(2);
      expect(err.at(-2)).toMatch(/admin token is missing/);
    } finally {
      console.log = original.log;
      console.error = original.error;
    }
  });
});
