/**
 * The faults of issue 11 as a visitor meets them: the real demo server, the widget's
 * build and page in Debian Chromium, and a fake upstream speaking the real SSE format.
 * A provider that keeps the visitor waiting says so (after a reload too), an upstream
 * error never shows the provider's words, and an answer the server stopped says so.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { fixture, textAnswer } from '../../server/test/fake-upstream.js';
import { E2E, ask, turnEnded } from './e2e-harness.js';

const e2e = new E2E();
afterEach(() => e2e.stop());
afterAll(() => e2e.dispose());

/** The status line's text as a visitor reads it, or null when there is none. */
const statusLine = (page: Page): Promise<string | null> =>
  page.evaluate(() => {
    const chat = document.querySelector('aalis-chat')!.shadowRoot!;
    const line = chat.querySelector('aalis-turn-status');
    return line ? line.shadowRoot!.textContent!.replace(/\s+/g, ' ').trim() : null;
  });

/** Every text on the page, shadow roots included: what a visitor could ever read. */
const allText = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const texts: string[] = [];
    const walk = (root: Document | ShadowRoot) => {
      texts.push(root instanceof Document ? root.body.innerText : (root.textContent ?? ''));
      for (const element of root.querySelectorAll('*')) if (element.shadowRoot) walk(element.shadowRoot);
    };
    walk(document);
    return texts.join('\n');
  });

const SECRET_401 = JSON.stringify({
  error: {
    message:
      'Incorrect API key provided: sk-proj-****************Ab1Z. Organization org-7QxKd2Lw9 at 10.0.3.7',
    type: 'invalid_request_error',
    code: 'invalid_api_key',
  },
});

describe('faults, as a visitor sees them', () => {
  test('a busy provider: the retry countdown shows, survives a reload, and gives way to the answer', async () => {
    await e2e.start([
      { status: 503, headers: { 'retry-after': '4' }, body: '{"error":{"message":"overloaded"}}' },
      { body: textAnswer('Sorry for the wait.') },
    ]);
    const page = await e2e.page();
    await ask(page, 'are you there?');
    await expect
      .poll(() => statusLine(page), { timeout: 5_000 })
      .toMatch(/^The model service is busy: trying again in [34] s \(attempt 2\)$/);
    await page.reload();
    await page.locator('aalis-chat .status[hidden]').waitFor({ state: 'attached' });
    // Restored from stream_resume with the server's clock: still counting down, not from 4 again.
    await expect
      .poll(() => statusLine(page), { timeout: 2_000 })
      .toMatch(/^The model service is busy: trying again (in [123] s|now) \(attempt 2\)$/);
    await turnEnded(page);
    expect(await statusLine(page)).toBeNull();
    expect(await page.locator('aalis-chat .bubble.assistant[data-id]').innerText()).toContain(
      'Sorry for the wait.',
    );
    await page.close();
  }, 30_000);

  test("an upstream error that quotes the key: the widget's words and an error id, never the key", async () => {
    await e2e.start([{ status: 401, body: SECRET_401 }]);
    const page = await e2e.page();
    await ask(page, 'hello');
    await turnEnded(page);
    const bubble = page.locator('aalis-chat .bubble.assistant[data-id]');
    expect(await bubble.getAttribute('data-status')).toBe('error');
    expect(await bubble.innerText()).toMatch(
      /The model service failed: try again later\. \(error ID \w{8}\)/,
    );
    const text = await allText(page);
    for (const secret of ['sk-proj', 'Ab1Z', 'org-7QxKd2Lw9', '10.0.3.7', 'Incorrect API key']) {
      expect(text).not.toContain(secret);
    }
    await page.close();
  }, 30_000);

  test('a server restart mid-answer: the page, reloaded, says the server stopped it', async () => {
    await e2e.start([{ body: fixture('openai-long-tool-call.sse'), byEvent: true, delayMs: 5 }]);
    const page = await e2e.page();
    await ask(page, 'write it');
    await page.locator('aalis-chat .tool-call-block-pending').waitFor({ timeout: 10_000 });
    await e2e.demo.close();
    await e2e.startServer();
    await page.reload();
    const bubble = page.locator('aalis-chat .bubble.assistant[data-id]');
    await bubble.waitFor({ timeout: 5_000 });
    expect(await bubble.getAttribute('data-status')).toBe('error');
    expect(await bubble.innerText()).toContain('The server restarted and stopped this answer.');
    expect(await page.locator('aalis-chat .tool-call-block').count()).toBe(0);
    await page.close();
  }, 30_000);
});
