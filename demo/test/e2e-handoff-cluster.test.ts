/**
 * The handoff across instances, in a real browser: two `aalis-server` processes on a real
 * Redis and PostgreSQL (as server/DEPLOYMENT.md runs them), the visitor's page on one, the
 * owner's console on the other. The visitor asks for a person; the owner answers from the
 * other instance and the visitor sees it; the visitor's message reaches the console live
 * through Redis and never the model; given back, the model answers on the first instance.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Locator } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startCli, type RunningCli } from '../../server/test/cli-harness.js';
import { clusterEnv, startClusterServices, type ClusterServices } from '../../server/test/cluster-env.js';
import { textAnswer, type Reply } from '../../server/test/fake-upstream.js';
import { E2E, ask, turnEnded } from './e2e-harness.js';

const TOKEN = 'owner-token-0123456789abcdef';
const REPLY = 'Grace here, from the other instance.';
const TO_GRACE = 'Thanks Grace, my order is 77';

const replies: Reply[] = [];
const e2e = new E2E();
const contexts: BrowserContext[] = [];
const instances: RunningCli[] = [];
let services: ClusterServices | undefined;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aalis-e2e-cluster-'));
  services = await startClusterServices(replies);
  const { upstream, redis, postgres } = services;
  const start = (name: string) =>
    startCli({
      ...clusterEnv({
        upstreamUrl: upstream.url,
        redisUrl: redis.url,
        databaseUrl: postgres.url,
        leaseMs: 2_000,
        dataDir: join(dir, name),
      }),
      AALIS_ADMIN_TOKEN: TOKEN,
      AALIS_HANDOFF: 'on',
      LOG_LEVEL: 'warn',
    });
  instances.push(...(await Promise.all([start('one'), start('two')])));
  await e2e.launchBrowser();
}, 90_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await e2e.browser?.close();
  for (const instance of instances) instance.child.kill('SIGKILL');
  await services?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function newContext(): Promise<BrowserContext> {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 860 } });
  contexts.push(context);
  return context;
}

const text = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\s+/g, ' ').trim();

test('the visitor on one instance, the person answering from the other: seen, the model silent, given back', async () => {
  const [one, two] = instances;
  // The visitor, on the first instance's own page.
  replies.push({ body: textAnswer('The model answers first.') });
  const tab = await e2e.page(`${one!.base}/`, await newContext());
  await ask(tab, 'Hello there');
  await turnEnded(tab, 1);
  await tab.locator('aalis-chat [part~="handoff-button"]').click();
  const notice = tab.locator('aalis-chat [part~="handoff-notice"]');
  await expect.poll(() => text(notice)).toBe('A person will join this conversation soon.');

  // The owner, on the second instance's console.
  const page = await (await newContext()).newPage();
  await page.goto(`${two!.base}/admin`);
  const token = page.locator('aalis-console #token');
  await token.fill(TOKEN);
  await token.press('Enter');
  await page.locator('aalis-console select[name="handoff"]').selectOption('waiting');
  await expect.poll(() => page.locator('aalis-console .row').count(), { timeout: 10_000 }).toBe(1);
  await page.locator('aalis-console .row').first().click();
  const transcript = page.locator('aalis-console .transcript');
  const line = transcript.locator('.handoff-line');
  await expect.poll(() => text(line)).toMatch(/^Waiting for a person since /);
  await transcript.locator('#operator-name').fill('Grace');
  const box = transcript.locator('#reply-text');
  await box.fill(REPLY);
  await box.press('Control+Enter');
  await expect.poll(() => text(line)).toMatch(/^Answered by Grace since /);

  // The visitor, on the other instance, sees Grace's reply.
  const bubble = tab.locator('aalis-chat .bubble.operator');
  await expect.poll(() => bubble.count(), { timeout: 10_000 }).toBe(1);
  expect(await text(bubble.locator('.author'))).toBe('Grace');
  expect(await text(bubble.locator('.text'))).toBe(REPLY);
  await expect.poll(() => text(notice)).toBe('You are talking with Grace.');

  // Their message reaches the console live, through Redis; the model is not asked.
  const asked = services!.upstream.requests.length;
  await ask(tab, TO_GRACE);
  await transcript.locator('.message.user', { hasText: TO_GRACE }).waitFor();
  expect(services!.upstream.requests.length).toBe(asked);
  expect(await tab.locator('aalis-chat .bubble.assistant').count()).toBe(1);

  // Given back from the second instance: the model answers on the first.
  replies.push({ body: textAnswer('The model is back.') });
  await transcript.locator('.release').click();
  await expect.poll(() => text(notice)).toBe('You are back with the assistant.');
  await ask(tab, 'Are you there?');
  await turnEnded(tab, 2);
  expect(await text(tab.locator('aalis-chat .bubble.assistant').nth(1))).toContain('The model is back.');
  await expect.poll(() => transcript.locator('.message.assistant').count(), { timeout: 10_000 }).toBe(2);
}, 120_000);
