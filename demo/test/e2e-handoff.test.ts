/**
 * Handing a conversation to a person (PROTOCOL.md section 8), end to end: the real demo
 * server on its scripted model, with an admin token, a person offered and the site's
 * webhook a receiver this test runs; the widget's and the console's builds in Debian
 * Chromium. The visitor chats, asks for a person (the webhook is told, signed), and opens
 * a second tab; the owner, in another browser, finds the conversation waiting, answers it
 * as Ada; both tabs show Ada's reply; the visitor's next message reaches the console live
 * and not the model; given back, the model answers again, live in the console too. The
 * webhook's link opens the console on the conversation.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { BrowserContext, ConsoleMessage, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { E2E, SCREENSHOTS, ask, turnEnded } from './e2e-harness.js';

const TOKEN = 'owner-token-0123456789abcdef';
// The demo model's guide answers it (no scenario's words in it, "a person" least of all).
const QUESTION = 'Tell me about zebras please';
const REPLY = 'Hi, I am Ada from the shop. Let me look at your order.';
const TO_ADA = 'My order number is 1234';

/** The site's webhook receiver: records each POST, answers 204. */
async function webhookReceiver() {
  const received: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ body, headers: request.headers });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const e2e = new E2E();
const contexts: BrowserContext[] = [];
let hook: Awaited<ReturnType<typeof webhookReceiver>>;
beforeAll(async () => {
  hook = await webhookReceiver();
  await e2e.startDemoModel({
    AALIS_ADMIN_TOKEN: TOKEN,
    AALIS_HANDOFF: 'on',
    AALIS_HANDOFF_WEBHOOK: hook.url,
  });
}, 60_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await e2e.dispose();
  await hook?.close();
});

async function newContext(): Promise<BrowserContext> {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 860 } });
  contexts.push(context);
  return context;
}

const text = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\s+/g, ' ').trim();

/** What this test reads of a stored message. */
interface StoredMessage {
  role: string;
  parts: Array<{ type: string; text?: string }>;
  toOperator?: boolean;
}

/** The conversation as the server keeps it, read with the admin token. */
async function stored(sessionId: string): Promise<StoredMessage[]> {
  const answer = await fetch(`${e2e.demo.url}/admin/api/conversations/${encodeURIComponent(sessionId)}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { messages: StoredMessage[] }).messages;
}

/** axe's violations in the console, by rule and the elements concerned (run over the debugging protocol). */
async function axeViolations(page: Page): Promise<string[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  return page.evaluate(async () => {
    type Results = { violations: { id: string; nodes: { target: string[] }[] }[] };
    const axe = (window as unknown as { axe: { run(context: Element): Promise<Results> } }).axe;
    const results = await axe.run(document.querySelector('aalis-console')!);
    return results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

/** The console, logged in, with every error it logs kept. */
async function ownerConsole(): Promise<{ page: Page; errors: string[] }> {
  const page = await (await newContext()).newPage();
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    // The page asks whether it is logged in before it is: that 401 is expected.
    const url = message.location().url;
    if (message.type() !== 'error' || (/status of 401/.test(message.text()) && /\/session$/.test(url)))
      return;
    errors.push(`${message.text()} (${url})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${e2e.demo.url}/admin`);
  const token = page.locator('aalis-console #token');
  await token.fill(TOKEN);
  await token.press('Enter');
  await page.locator('aalis-console .row').first().waitFor();
  return { page, errors };
}

describe('a person answers, from the console', () => {
  test('asked for, told to the site, answered in every tab, the model silent, given back', async () => {
    // The visitor chats once with the model, then asks for a person.
    const visitorContext = await newContext();
    const tab = await e2e.page(undefined, visitorContext);
    await ask(tab, QUESTION);
    await turnEnded(tab, 1);
    const handoffButton = tab.locator('aalis-chat [part~="handoff-button"]');
    await handoffButton.click();
    const notice = tab.locator('aalis-chat [part~="handoff-notice"]');
    await expect.poll(() => text(notice)).toBe('A person will join this conversation soon.');
    expect(await handoffButton.count()).toBe(0);

    // The site is told, signed with the admin token (no webhook secret of its own).
    await expect.poll(() => hook.received.length, { timeout: 10_000 }).toBe(1);
    const [call] = hook.received;
    const told = JSON.parse(call!.body) as {
      sessionId: string;
      visitorId: string;
      reason: unknown;
      url: string;
    };
    const { sessionId } = told;
    expect(told).toEqual({
      sessionId,
      visitorId: expect.stringMatching(/^anon:/),
      reason: null,
      url: `${e2e.demo.url}/admin#${sessionId}`,
    });
    const stamp = call!.headers['x-aalis-timestamp'] as string;
    expect(Math.abs(Number(stamp) - Date.now())).toBeLessThan(60_000);
    const signature = createHmac('sha256', TOKEN).update(`${stamp}.${call!.body}`).digest('hex');
    expect(call!.headers['x-aalis-signature']).toBe(`sha256=${signature}`);

    // A second tab of the same visitor: the same conversation, resumed from storage.
    const second = await e2e.page(undefined, visitorContext);
    await turnEnded(second, 1);
    expect(await text(second.locator('aalis-chat [part~="handoff-notice"]'))).toBe(
      'A person will join this conversation soon.',
    );

    // The owner, in another browser: the conversations waiting for a person.
    const { page, errors } = await ownerConsole();
    const rows = page.locator('aalis-console .row');
    await page.locator('aalis-console select[name="handoff"]').selectOption('waiting');
    await expect.poll(() => page.locator('aalis-console .row').count()).toBe(1);
    const row = rows.first();
    expect(await row.getAttribute('data-session')).toBe(sessionId);
    expect(await text(row.locator('.badge.handoff'))).toBe('waiting for a person');
    await row.click();

    // The conversation, live: where it stands, then the reply box.
    const transcript = page.locator('aalis-console .transcript');
    const line = transcript.locator('.handoff-line');
    await expect.poll(() => text(line)).toMatch(/^Waiting for a person since .+\.$/);
    expect(await transcript.locator('.message').count()).toBe(2);
    expect(await transcript.locator('[role="log"] .message').count()).toBe(2);
    const name = transcript.locator('#operator-name');
    expect(await name.inputValue()).toBe('Support');
    await name.fill('Ada');
    expect(await text(transcript.locator('.send-reply'))).toBe('Send as Ada');
    await line.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}console-handoff-waiting.png` });
    expect(await axeViolations(page)).toEqual([]);

    // Ctrl+Enter sends; an empty reply is refused on the page, saying why.
    const box = transcript.locator('#reply-text');
    await box.press('Control+Enter');
    expect(await text(transcript.locator('#reply-error'))).toBe('Write a reply first.');
    await box.fill(REPLY);
    await box.press('Control+Enter');
    await expect.poll(() => text(line)).toMatch(/^Answered by Ada since /);
    await expect.poll(() => box.inputValue()).toBe('');
    expect(await text(transcript.locator('#reply-error'))).toBe('');
    expect(await text(transcript.locator('.message.operator .who'))).toBe('Operator (Ada)');
    expect(await text(transcript.locator('.message.operator .text'))).toBe(REPLY);
    // The list says it too, and the name is remembered in this browser.
    expect(await text(row.locator('.badge.handoff'))).toBe('answered by a person');
    expect(await page.evaluate(() => localStorage.getItem('aalis-console-operator'))).toBe('Ada');

    // Both tabs: Ada's reply in a bubble of its own, with her name.
    for (const visitor of [tab, second]) {
      const bubble = visitor.locator('aalis-chat .bubble.operator');
      await expect.poll(() => bubble.count(), { timeout: 10_000 }).toBe(1);
      expect(await text(bubble.locator('.author'))).toBe('Ada');
      expect(await text(bubble.locator('.text'))).toBe(REPLY);
      await expect
        .poll(() => text(visitor.locator('aalis-chat [part~="handoff-notice"]')))
        .toBe('You are talking with Ada.');
    }

    // The visitor writes to Ada: live in the console, and the model stays quiet.
    await ask(tab, TO_ADA);
    const toAda = transcript.locator('.message.user', { hasText: TO_ADA });
    await toAda.waitFor();
    expect(await text(toAda.locator('.badge'))).toBe('to the operator');
    expect(await tab.locator('aalis-chat .bubble.assistant').count()).toBe(1);
    expect(await second.locator('aalis-chat .bubble.assistant').count()).toBe(1);
    const history = await stored(sessionId);
    const asked = history.findIndex((message) =>
      message.parts.some((p) => p.type === 'text' && p.text === TO_ADA),
    );
    expect(asked).toBeGreaterThan(0);
    expect(history[asked]!.toOperator).toBe(true);
    expect(history.slice(asked + 1).filter((message) => message.role === 'assistant')).toEqual([]);
    await page.screenshot({ path: `${SCREENSHOTS}console-handoff-active.png` });

    // Given back: the focus stays in the reply box, the tabs hear of it, the model answers again.
    await transcript.locator('.release').click();
    await expect.poll(() => text(line)).toMatch(/^The assistant answers\./);
    expect(await transcript.locator('.release').count()).toBe(0);
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.id))
      .toBe('reply-text');
    await expect
      .poll(() => text(tab.locator('aalis-chat [part~="handoff-notice"]')))
      .toBe('You are back with the assistant.');
    await ask(tab, QUESTION);
    // The console sees the answer as it is written (the demo model takes seconds over it)...
    await expect
      .poll(() => text(transcript.locator('.message.writing .bubble')), { timeout: 10_000 })
      .toContain('scripted demo model');
    await turnEnded(tab, 2);
    await turnEnded(second, 2);
    // ...then as the message it became.
    await expect.poll(() => transcript.locator('.message.assistant').count(), { timeout: 10_000 }).toBe(2);
    expect(await transcript.locator('.message.writing').count()).toBe(0);
    expect(await text(row.locator('.visitor'))).not.toContain('person');
    expect(errors).toEqual([]);

    // The webhook's link opens the console on the conversation.
    const linked = await page.context().newPage();
    await linked.goto(told.url);
    const heading = linked.locator('aalis-console #transcript-heading');
    await heading.waitFor();
    expect(await text(linked.locator('aalis-console .transcript .session-id'))).toBe(sessionId);
    await expect
      .poll(() => text(linked.locator('aalis-console .handoff-line')))
      .toMatch(/^The assistant answers\./);
  }, 120_000);
});
