/**
 * An owner's own agent behind the demo, as a new user sets it up: the example AG-UI agent
 * and the example AI SDK route (examples/ag-ui), each named by two variables, and the
 * widget in a real Chromium: the card counts up while the agent writes the tool call,
 * comes back after a reload with its clock, and the answer arrives. And the other way: a
 * bare AG-UI client page chatting with an Aalis server through /ag-ui.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { startAgent } from '../../examples/ag-ui/agent.mjs';
import { startRoute } from '../../examples/ag-ui/ai-sdk-route.mjs';
// @ts-expect-error: a plain script without types.
import { serveExamples } from '../../examples/serve.mjs';
// @ts-expect-error: a plain script without types.
import { startDemo } from '../app.mjs';
import { E2E, ask, cardCountedUp, freePort, readCard, turnEnded, type Demo } from './e2e-harness.js';

const e2e = new E2E();
let agent: { close(): Promise<void> } | undefined;
afterEach(async () => {
  await e2e.stop();
  await agent?.close();
  agent = undefined;
});
afterAll(() => e2e.dispose());

describe.each([
  ['ag-ui', () => startAgent({ pace: 40, fragments: 60 })],
  ['ai-sdk', () => startRoute({ pace: 40, fragments: 60 })],
] as const)('an %s agent behind the widget', (protocol, start) => {
  test('the card counts up while it writes the call, survives a reload with its clock, then the answer', async () => {
    const running = await start();
    agent = running;
    e2e.port ||= await freePort();
    e2e.demo = (await startDemo({
      PORT: String(e2e.port),
      HOST: '127.0.0.1',
      AALIS_AGENT_PROTOCOL: protocol,
      AALIS_AGENT_URL: running.url,
      AALIS_DATA_DIR: e2e.dataDir,
      LOG_LEVEL: 'silent',
    })) as Demo;
    await e2e.launchBrowser();
    const page = await e2e.page();
    await ask(page, 'write a note about our opening hours');
    const first = await readCard(page);
    expect(first.name).toBe('write_note');
    const later = await cardCountedUp(page, first);
    // A reload in the middle of the arguments: the card is back, its clock kept, and counting.
    await page.reload();
    const resumed = await readCard(page);
    expect(resumed.name).toBe('write_note');
    expect(resumed.chars).toBeGreaterThanOrEqual(later.chars);
    expect(resumed.seconds).toBeGreaterThanOrEqual(later.seconds);
    await cardCountedUp(page, resumed);
    await turnEnded(page);
    const answer = await page.locator('aalis-chat .bubble.assistant[data-id]').last().innerText();
    expect(answer).toMatch(/note/i);
    await expect
      .poll(() => page.locator('aalis-chat [part~="tool-call-block"]').first().getAttribute('data-status'))
      .toBe('done');
  });
});

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
