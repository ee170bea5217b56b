/**
 * The other way round: an AG-UI client page (examples/ag-ui/httpagent.html, `HttpAgent`
 * as CopilotKit runs it underneath) in a real Chromium, chatting with the demo through
 * its /ag-ui, rejoining the live run after a reload.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain script without types.
import { serveExamples } from '../../examples/serve.mjs';
import { E2E, freePort } from './e2e-harness.js';

const e2e = new E2E();
afterEach(() => e2e.stop());
afterAll(() => e2e.dispose());

describe('an AG-UI client page (HttpAgent, as CopilotKit runs underneath) on an Aalis server', () => {
  test('it chats through /ag-ui: the call counts up, and after a reload Rejoin brings it back counting, then the answer', async () => {
    e2e.port ||= await freePort();
    const site = await serveExamples({ port: 0, chatServer: `http://127.0.0.1:${e2e.port}` });
    try {
      // The scripted model, its tool calls written slowly enough to reload in the middle.
      await e2e.startDemoModel({ AALIS_ALLOWED_ORIGINS: site.url });
      const page = await e2e.page(`${site.url}/ag-ui/httpagent.html`, undefined, '#thread:not(:empty)');
      await page.locator('#question').fill('write a long report');
      await page.locator('#ask button').click();
      const count = async () =>
        Number(/^(\d+) chars/.exec(await page.locator('.tool .count').first().innerText())?.[1] ?? 0);
      await expect.poll(count, { timeout: 15_000 }).toBeGreaterThan(0);
      const before = await count();
      await expect.poll(count).toBeGreaterThan(before);
      const written = await count();
      await page.reload();
      await page.locator('#rejoin').click();
      // Back with every character written so far, in one event, then counting on.
      await expect.poll(count).toBeGreaterThanOrEqual(written);
      const rejoined = await count();
      await expect.poll(count).toBeGreaterThan(rejoined);
      await expect.poll(() => page.locator('#status').innerText(), { timeout: 30_000 }).toBe('finished');
      expect(await page.locator('.tool .state').first().innerText()).toBe('done');
      expect(await page.locator('li.assistant').last().innerText()).not.toBe('');
    } finally {
      await site.close();
    }
  });
});
