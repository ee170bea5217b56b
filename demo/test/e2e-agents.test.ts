/**
 * An owner's own agent behind the demo, as a new user sets it up: the example AG-UI agent
 * and the example AI SDK route (examples/ag-ui), each named by two variables, and the
 * widget in a real Chromium: the card counts up while the agent writes the tool call,
 * comes back after a reload with its clock, and the answer arrives.
 */
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { startAgent } from '../../examples/ag-ui/agent.mjs';
import { startRoute } from '../../examples/ag-ui/ai-sdk-route.mjs';
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
