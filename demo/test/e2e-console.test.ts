/**
 * The owner's console (`/admin`) as a site owner meets it: the real demo server on its
 * scripted model with an admin token and a SQLite history, the widget's builds in Debian
 * Chromium. A visitor chats twice and rates one answer down; the owner logs in (a wrong
 * token first), finds that conversation by its rating and by a word of it, reads it,
 * downloads the transcripts as CSV, and erases the visitor.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, ConsoleMessage, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { E2E, SCREENSHOTS, ask, turnEnded } from './e2e-harness.js';

const TOKEN = 'owner-token-0123456789abcdef';
// The first picks no scenario (the demo model's guide answers); the second runs tools.
const QUESTION = 'Tell me about zebras please';
const TOOLS_QUESTION = "What's the weather in Paris and Tokyo, and the time in Paris?";
const COMMENT = 'too vague';

const e2e = new E2E();
const contexts: BrowserContext[] = [];
beforeAll(() => e2e.startDemoModel({ AALIS_ADMIN_TOKEN: TOKEN }), 60_000);
afterAll(async () => {
  for (const context of contexts) await context.close();
  await e2e.dispose();
});

async function newContext(width = 1280, height = 860): Promise<BrowserContext> {
  const context = await e2e.browser.newContext({ viewport: { width, height } });
  contexts.push(context);
  return context;
}

const text = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\s+/g, ' ').trim();

/**
 * axe's violations on the page, by rule and the elements concerned. Run through the
 * debugging protocol, which the page's policy (no script but its own) does not govern.
 */
async function axeViolations(page: Page): Promise<string[]> {
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Element): Promise<AxeResults> } }).axe;
    const results = await axe.run(document.querySelector('aalis-console')!);
    return results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  return violations;
}

interface AxeResults {
  violations: { id: string; nodes: { target: string[] }[] }[];
}

/** The visitor: two conversations in one browser (one anonymous visitor), the first rated down. */
async function chatTwice(): Promise<{ answer: string }> {
  const page = await e2e.page(undefined, await newContext());
  await ask(page, QUESTION);
  await turnEnded(page, 1);
  const answer = await text(page.locator('aalis-chat .bubble.assistant[data-id]').first());
  await page.locator('aalis-chat .action.down').first().click();
  const comment = page.locator('aalis-chat .feedback-form input');
  await comment.fill(COMMENT);
  await comment.press('Enter');
  await expect
    .poll(() => page.locator('aalis-chat .action.down').first().getAttribute('aria-pressed'))
    .toBe('true');
  // A second conversation: from the visitor's list, "New conversation".
  await page.locator('aalis-chat .conversations-button').click();
  await page.locator('aalis-chat .new-conversation').click();
  await expect.poll(() => page.locator('aalis-chat .bubble').count()).toBe(0);
  await ask(page, TOOLS_QUESTION);
  await turnEnded(page, 1, 30_000);
  await page.close();
  return { answer };
}

/** The console, with every console error and page error it logs kept. */
async function openConsole(
  context: BrowserContext,
): Promise<{ page: Page; errors: string[]; headers: Record<string, string> }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() !== 'error') return;
    // The browser logs every 4xx it gets; these two are the page asking, as it should,
    // whether it is logged in, and the wrong token the test types.
    const url = message.location().url;
    if (/status of 401/.test(message.text()) && /\/admin\/api\/(session|login)$/.test(url)) return;
    errors.push(`${message.text()} (${url})`);
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('dialog', (dialog) => errors.push(`a dialog opened: ${dialog.message()}`));
  const response = await page.goto(`${e2e.demo.url}/admin`);
  expect(response?.status()).toBe(200);
  return { page, errors, headers: response!.headers() };
}

describe('the owner console at /admin', () => {
  test('login, list, filters, search, transcript, CSV export and erasure of a visitor', async () => {
    const { answer } = await chatTwice();
    const context = await newContext();
    const { page, errors, headers } = await openConsole(context);

    // The shell: the server's page policy, never cached, never framed.
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['x-frame-options']).toBe('DENY');

    // Not logged in: the form. A wrong token says so, and nothing else shows.
    const token = page.locator('aalis-console #token');
    await token.waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.id))
      .toBe('token');
    await token.fill('not-the-admin-token-at-all');
    await token.press('Enter');
    const loginError = page.locator('aalis-console #login-error');
    await expect.poll(() => text(loginError)).toContain('not the admin token');
    expect(await page.locator('aalis-console .row').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // The right one: the cookie, HttpOnly, and the list of both conversations.
    await token.fill(TOKEN);
    await page.locator('aalis-console .login button[type="submit"]').click();
    const rows = page.locator('aalis-console .row');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
    const cookie = (await context.cookies()).find((c) => c.name === 'aalis_admin');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Strict');
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const visitorIds = await rows.locator('.visitor-id').allInnerTexts();
    expect(new Set(visitorIds).size).toBe(1);
    expect(visitorIds[0]).toMatch(/^anon:/);
    expect(await rows.locator('.badge').first().innerText()).toBe('anonymous');
    // Newest first: the tools' conversation on top.
    expect(await rows.nth(0).locator('.count').innerText()).toBe('2 messages');

    // The stats of the last 7 days: two turns today, one rated down.
    const figure = (label: string) =>
      page
        .locator('aalis-console .totals .figure', { has: page.locator(`dt:text-is("${label}")`) })
        .locator('dd');
    await expect.poll(() => figure('Turns').innerText(), { timeout: 10_000 }).toBe('2');
    expect(await figure('Rated down').innerText()).toBe('1');
    expect(await page.locator('aalis-console .day-chart rect.bar').count()).toBe(7);
    await page.screenshot({ path: `${SCREENSHOTS}console-list.png` });

    // Thumbs down only: the rated conversation, marked.
    await page.locator('aalis-console select[name="rating"]').selectOption('down');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().locator('.rating').getAttribute('data-rating')).toBe('down');
    await page.locator('aalis-console select[name="rating"]').selectOption('');
    await expect.poll(() => rows.count()).toBe(2);

    // A word of the question finds it; Tab reaches the row and Enter opens it.
    const search = page.locator('aalis-console input[name="q"]');
    await search.fill('zebras');
    await search.press('Enter');
    await expect.poll(() => rows.count()).toBe(1);
    await search.focus();
    for (let i = 0; i < 10; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(
        () => document.activeElement?.shadowRoot?.activeElement?.classList.contains('row') ?? false,
      );
      if (focused) break;
    }
    await page.keyboard.press('Enter');
    const transcript = page.locator('aalis-console .transcript');
    await transcript.locator('.message').first().waitFor();
    expect(await text(transcript.locator('.message.user .text'))).toBe(QUESTION);
    const shown = await text(transcript.locator('.message.assistant .bubble'));
    // The answer as the chat showed it (markdown there, plain text here): its first words.
    expect(shown.replace(/[*`]/g, '')).toContain(answer.slice(0, 40));
    // The comment's quotation marks are the <q>'s own, drawn by CSS.
    expect(await text(transcript.locator('.feedback'))).toBe(`Rated down: ${COMMENT}`);
    await page.screenshot({ path: `${SCREENSHOTS}console-transcript.png` });
    expect(await axeViolations(page)).toEqual([]);

    // The other conversation's tool calls show as the chat's blocks.
    await search.fill('');
    await search.press('Enter');
    await expect.poll(() => rows.count()).toBe(2);
    await rows.nth(0).click();
    await expect.poll(() => transcript.locator('.tool-call-block').count()).toBe(3);
    expect(await transcript.locator('.tool-call-block .tool-name').first().innerText()).toBe('get_weather');

    // The range's transcripts as CSV: a header line, then the messages.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('aalis-console .export-csv').click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('sessionId,visitorId,messageId,role,createdAt,text');
    expect(csv).toContain(QUESTION);

    // On a phone: one column, nothing wider than the screen.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${SCREENSHOTS}console-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    // Erasing the visitor asks first, naming them, then empties the list.
    await transcript.locator('.erase').click();
    expect(await text(transcript.locator('#erase-question'))).toContain(visitorIds[0]!);
    await transcript.locator('.confirm-erase').click();
    await expect.poll(() => rows.count()).toBe(0);
    await expect
      .poll(() => text(page.locator('aalis-console .conversations [role="status"]')))
      .toBe('No conversation yet.');
    expect(await transcript.count()).toBe(0);

    // Logging out brings the form back.
    await page.locator('aalis-console .logout').click();
    await token.waitFor();
    expect(errors).toEqual([]);
  }, 90_000);
});
