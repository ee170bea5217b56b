/**
 * The demo page under its Content-Security-Policy, in Chromium: the policy is sent and
 * enforced (an injected inline script does not run, framing is refused), and everything
 * the page and the widget do (a markdown answer, a tool card, the themes, the language
 * switch) causes no violation at all. And the page's own parts: its requests, its theme,
 * its scenario buttons.
 */
import { DemoProvider } from '@aalis/server';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { fixture, textAnswer } from '../../server/test/fake-upstream.js';
import { E2E, ask, turnEnded } from './e2e-harness.js';

const e2e = new E2E();
afterEach(() => e2e.stop());
afterAll(() => e2e.dispose());

const MARKDOWN =
  'A table:\n\n| lamp | price |\n| --- | --- |\n| Arbor | 149 |\n\n```js\nlet x = 1;\n```\n[docs](https://example.com)';

interface Violation {
  directive: string;
  blocked: string;
}

/** A page that records every CSP violation from its first script on. */
async function watchedPage(): Promise<{ page: Page; violations: () => Promise<Violation[]> }> {
  const page = await e2e.browser.newPage({ viewport: { width: 1280, height: 860 } });
  await page.addInitScript(() => {
    const seen: Array<{ directive: string; blocked: string }> = [];
    (window as unknown as { cspViolations: typeof seen }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push({ directive: event.effectiveDirective, blocked: event.blockedURI }),
    );
  });
  return {
    page,
    violations: () =>
      page.evaluate(() => (window as unknown as { cspViolations: Violation[] }).cspViolations),
  };
}

describe('the demo page under its Content-Security-Policy', () => {
  test('is sent a strict policy, with framing and sniffing refused', async () => {
    await e2e.start([]);
    const response = await fetch(e2e.demo.url);
    const policy = response.headers.get('content-security-policy') ?? '';
    const directives = new Map(
      policy.split(';').map((d) => {
        const [name = '', ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toContain(`ws://${new URL(e2e.demo.url).host}`);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  test('the chat, its cards, themes and languages work with no violation; injected script does not run', async () => {
    await e2e.start([
      { body: textAnswer(MARKDOWN) },
      { body: fixture('openai-long-tool-call.sse'), byEvent: true, delayMs: 1 },
      { body: textAnswer('Saved.') },
    ]);
    const { page, violations } = await watchedPage();
    await page.goto(e2e.demo.url);
    await page.locator('aalis-chat .status[hidden]').waitFor({ state: 'attached' });

    await ask(page, 'markdown please');
    await turnEnded(page, 1);
    // Markdown is rendered once the script's markdown part has come (loaded as it connects).
    await page.locator('aalis-chat .bubble.assistant table').waitFor();
    expect(await page.locator('aalis-chat .bubble.assistant table').count()).toBe(1);
    await ask(page, 'write a long report');
    await page.locator('aalis-chat aalis-tool-progress').first().waitFor({ state: 'attached' });
    await turnEnded(page, 2);
    for (const theme of ['dark', 'forest', 'light']) await page.click(`#themes [data-theme="${theme}"]`);
    await page.click('#languages [data-locale="zh-CN"]');
    await page.click('#languages [data-locale="en"]');
    // The widget's styles apply (constructed stylesheets are outside style-src).
    const bubbleBackground = await page
      .locator('aalis-chat .bubble.assistant')
      .first()
      .evaluate((e) => getComputedStyle(e).backgroundColor);
    expect(bubbleBackground).not.toBe('rgba(0, 0, 0, 0)');
    expect(await violations()).toEqual([]);

    // The policy is enforced, not merely sent: an injected inline script does not run.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
    });
    expect(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected)).toBeUndefined();
    expect((await violations()).map((v) => v.directive)).toEqual(['script-src-elem']);
    await page.close();
  }, 30_000);

  test('another page cannot frame it', async () => {
    await e2e.start([]);
    const page = await e2e.browser.newPage();
    const messages: string[] = [];
    page.on('console', (message) => messages.push(message.text()));
    await page.setContent(`<iframe src="${e2e.demo.url}/"></iframe>`, { waitUntil: 'load' });
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    const widgetInFrame = await framed
      ?.evaluate(() => document.querySelector('aalis-chat') !== null)
      .catch(() => false);
    expect(widgetInFrame).toBe(false);
    expect(messages.join('\n')).toMatch(/frame-ancestors 'none'/);
    await page.close();
  }, 30_000);
});

describe('the demo page itself', () => {
  test('loads without a single failed request (the icon included), and Dark darkens the page', async () => {
    await e2e.start([]);
    const page = await e2e.browser.newPage({ viewport: { width: 1280, height: 860 } });
    const failed: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(e2e.demo.url);
    await page.locator('aalis-chat .status[hidden]').waitFor({ state: 'attached' });
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background()).toBe('rgb(251, 250, 247)');
    await page.locator('[data-theme="dark"]').click();
    expect(await background()).toBe('rgb(23, 22, 20)');
    expect(await page.evaluate(() => getComputedStyle(document.body).color)).toBe('rgb(237, 234, 228)');
    expect(failed).toEqual([]);
    await page.close();
  }, 30_000);

  test("offers the demo model's own scenarios, a button each, and a button sends its prompt", async () => {
    await e2e.start([{ body: textAnswer('Sunny in both.') }]);
    const page = await e2e.page();
    const buttons = page.locator('#scenarios button');
    const { scenarios } = DemoProvider;
    await expect.poll(() => buttons.count()).toBe(scenarios.length);
    expect(await buttons.allTextContents()).toEqual(scenarios.map((s) => s.label));
    expect(await buttons.evaluateAll((all) => all.map((b) => b.getAttribute('title')))).toEqual(
      scenarios.map((s) => s.prompt),
    );
    const chosen = scenarios[1]!;
    await buttons.nth(1).click();
    await turnEnded(page);
    const sent = e2e.upstream.requests[0]!.body as { messages: Array<{ role: string; content: string }> };
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: chosen.prompt });
    await page.close();
  }, 30_000);
});
