/**
 * The first five minutes, as a newcomer meets them: every way of starting `aalis-server`
 * (plain, or with the example configuration file) serves a page at `/` to chat on, in a
 * real browser, showing the configured welcome and starters; `AALIS_PAGE=off` leaves it
 * out. And with no security settings at all, visitors are kept apart: a second visitor
 * cannot read the first's conversation by its id, and the first visitor's conversation
 * list and budget survive a restart.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerFrame } from '@aalis/protocol';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startCli, type RunningCli } from '../../server/test/cli-harness.js';
import { TestClient } from '../../server/test/ws-harness.js';
// @ts-expect-error: a plain script without types.
import { chromiumArgs, ensureChromium } from '../../scripts/ensure-chromium.mjs';

const root = new URL('../..', import.meta.url).pathname;
let browser: Browser;
const running: RunningCli[] = [];
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-first-'));
  dirs.push(dir);
  return dir;
};

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: ensureChromium() as string, args: chromiumArgs });
});
afterEach(async () => {
  for (const cli of running.splice(0)) await stop(cli);
});
afterAll(async () => {
  await browser?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `aalis-server` with only these variables (and its port chosen by the system), from the repository's root. */
async function start(env: Record<string, string>, args: string[] = []): Promise<RunningCli> {
  const cli = await startCli({ PORT: '0', LOG_LEVEL: 'warn', ...env }, root, args);
  running.push(cli);
  return cli;
}

async function stop(cli: RunningCli): Promise<void> {
  if (cli.child.exitCode !== null) return;
  const exited = new Promise((resolve) => cli.child.once('exit', resolve));
  cli.child.kill('SIGTERM');
  await exited;
}

/** The page at `/` in a fresh browser context (a new visitor), once the chat is connected. */
async function openPage(base: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(base);
  await page.locator('aalis-chat .status[hidden]').waitFor({ state: 'attached' });
  return page;
}

describe('every start serves a page to chat on', () => {
  test('aalis-server --config examples/aalis.config.json: the configured welcome and starters, and a starter is answered', async () => {
    const cli = await start({ AALIS_DATA_DIR: tempDir() }, ['--config', 'examples/aalis.config.json']);
    const response = await fetch(cli.base);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");

    const page = await openPage(cli.base);
    const welcome = page.locator('aalis-chat [part="welcome"]');
    await expect.poll(() => welcome.textContent()).toContain('Hello! Ask me anything about this site');
    const starters = page.locator('aalis-chat [part="starter"]');
    expect((await starters.allTextContents()).map((s) => s.trim())).toEqual([
      'What can you do?',
      'Show me a long tool call',
      'Fill in a form an MCP server asks for',
      "Open the MCP server's clock app in the chat",
    ]);
    // The first screen holds the welcome, the starters and the composer without scrolling.
    for (const part of [welcome, starters.first(), page.locator('aalis-chat textarea')]) {
      const box = (await part.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(800);
    }
    await starters.first().click();
    await expect
      .poll(() => page.locator('aalis-chat .bubble.user').textContent())
      .toContain('What can you do?');
    await expect
      .poll(() => page.locator('aalis-chat .bubble.assistant').last().textContent(), { timeout: 20_000 })
      .toContain('scripted demo model');
    // Once that answer is finished (a send while one runs is refused), the example's MCP
    // App in its card, under the page's own policy (frame-src 'self'), sized by the app
    // over the bridge.
    await page.locator('aalis-chat .bubble.assistant[data-id]').waitFor();
    await page.locator('aalis-chat textarea').fill("Open the MCP server's clock app in the chat");
    await page.locator('aalis-chat textarea').press('Enter');
    const frame = page.locator('aalis-chat aalis-mcp-app [part~="mcp-app-frame"]');
    await frame.waitFor({ timeout: 20_000 });
    await expect
      .poll(async () => (await frame.boundingBox())?.height ?? 0, { timeout: 20_000 })
      .toBeGreaterThan(300);
    await page.close();
  }, 60_000);

  test('plain aalis-server: the demo model says what it is and offers scenarios', async () => {
    const cli = await start({ AALIS_DATA_DIR: tempDir() });
    const page = await openPage(cli.base, { width: 390, height: 844 });
    await expect
      .poll(() => page.locator('aalis-chat [part="welcome"]').textContent())
      .toContain('scripted demo model');
    expect(await page.locator('aalis-chat [part="starter"]').count()).toBeGreaterThanOrEqual(3);
    // No request of the page fails (the favicon included).
    const failures: string[] = [];
    page.on('response', (r) => r.status() >= 400 && failures.push(`${r.status()} ${r.url()}`));
    await page.reload();
    await page.locator('aalis-chat .status[hidden]').waitFor({ state: 'attached' });
    expect(failures).toEqual([]);
    await page.close();
  }, 60_000);

  test('AALIS_PAGE=off: no page at /, the widget and the socket as before', async () => {
    const cli = await start({ AALIS_DATA_DIR: tempDir(), AALIS_PAGE: 'off' });
    expect((await fetch(cli.base)).status).toBe(404);
    expect((await fetch(`${cli.base}/aalis-chat.js`)).status).toBe(200);
    const client = await TestClient.open(`${cli.base.replace('http', 'ws')}/ws`);
    expect((await client.hello()).type).toBe('ready');
    client.socket.close();
  }, 30_000);
});

type ReadyFrame = Extract<ServerFrame, { type: 'ready' }>;

/** A hello (with the visitor's key, if it has one); resolves with its `ready`. */
async function hello(client: TestClient, more: { sessionId?: string; anonymousKey?: string } = {}) {
  const from = client.frames.length;
  client.send({ type: 'hello', protocol: 1, ...more });
  return client.next((f): f is ReadyFrame => f.type === 'ready', { from });
}

async function converse(client: TestClient, text: string): Promise<ServerFrame> {
  const from = client.frames.length;
  client.send({ type: 'send', text });
  return client.next((f) => f.type === 'message' || f.type === 'error', { from, timeoutMs: 20_000 });
}

describe('safe with no security settings at all', () => {
  test("a second visitor cannot read the first's conversation; the first's list and budget survive a restart", async () => {
    const dataDir = tempDir();
    const env = { AALIS_DATA_DIR: dataDir, AALIS_ANON_TURNS_PER_HOUR: '2', AALIS_PROVIDER: 'demo' };
    let cli = await start(env);
    const socketUrl = () => `${cli.base.replace('http', 'ws')}/ws`;

    const first = await TestClient.open(socketUrl());
    const ready = await hello(first);
    const key = ready.anonymousKey!;
    expect(key).toBeTruthy();
    expect(ready.sessionId).toBeTruthy();
    expect((await converse(first, 'markdown please')).type).toBe('message');
    // The server made its own signing key, readable by its owner only.
    expect(statSync(join(dataDir, 'anonymous-key')).mode & 0o077).toBe(0);

    // Another browser (no key) asking for that session gets a new, empty one of its own.
    const second = await TestClient.open(socketUrl());
    const theirs = await hello(second, { sessionId: ready.sessionId });
    expect(theirs.sessionId).not.toBe(ready.sessionId);
    expect(second.frames.filter((f) => f.type === 'message')).toEqual([]);
    second.socket.close();
    first.socket.close();

    await stop(cli);
    cli = await start(env);
    // The same browser after the restart: its key still holds, its conversation is listed,
    // and the one turn it had left this hour is all it gets.
    const again = await TestClient.open(socketUrl());
    const back = await hello(again, { anonymousKey: key });
    expect(back.anonymousKey).toBeUndefined();
    again.send({ type: 'list_sessions' });
    const list = await again.next((f) => f.type === 'sessions');
    expect((list as Extract<ServerFrame, { type: 'sessions' }>).sessions.map((s) => s.id)).toContain(
      ready.sessionId,
    );
    expect((await converse(again, 'markdown again')).type).toBe('message');
    const refused = await converse(again, 'and once more');
    expect(refused).toMatchObject({ type: 'error', code: 'quota_exceeded' });
    again.socket.close();
  }, 60_000);
});
