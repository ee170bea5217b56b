import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { completionChunk, fixture, sse, usageChunk, textAnswer } from '../../server/test/fake-upstream.js';
// @ts-expect-error: a plain script without types.
import { serveExamples } from '../../examples/serve.mjs';
import {
  E2E,
  SCREENSHOTS,
  ask,
  cardCountedUp,
  freePort,
  readCard,
  turnEnded,
  watchFirstCard,
} from './e2e-harness.js';

const e2e = new E2E();
afterEach(() => e2e.stop());
afterAll(() => e2e.dispose());

const answer = (text: string) => ({ body: textAnswer(text) });
const slowLongCall = (delayMs = 5) => ({
  body: fixture('openai-long-tool-call.sse'),
  byEvent: true,
  delayMs,
});

/** Three calls in one round, their fragments interleaved as a real model streams them. */
function threeCalls() {
  const calls = [
    ['call_p', 'get_weather', '{"location":"Paris, France"}'],
    ['call_t', 'get_weather', '{"location":"Tokyo, Japan"}'],
    ['call_z', 'get_time', '{"timezone":"Europe/Paris"}'],
  ] as const;
  const chunks: unknown[] = [completionChunk({ role: 'assistant', content: null })];
  calls.forEach(([id, name], index) =>
    chunks.push(
      completionChunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] }),
    ),
  );
  for (let at = 0; at < 30; at += 3) {
    calls.forEach(([, , args], index) =>
      chunks.push(
        completionChunk({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 3) } }] }),
      ),
    );
  }
  chunks.push(completionChunk({}, 'tool_calls'), usageChunk(20, 30));
  return { body: sse(chunks), byEvent: true, delayMs: 25 };
}

describe('the demo in a real browser', () => {
  test('long tool call: the card appears within 300 ms of the first fragment, with the name, and counts up', async () => {
    await e2e.start([slowLongCall(), answer('Saved report.md.')]);
    const page = await e2e.page();
    const cardPainted = await watchFirstCard(page);
    await ask(page, 'write a long report');
    const seenAt = await cardPainted();
    const firstFragment = e2e.upstream.writes.find((w) => w.text.includes('"tool_calls"'))!;
    console.log(`card on screen ${seenAt - firstFragment.at} ms after the upstream wrote the first fragment`);
    expect(seenAt - firstFragment.at).toBeLessThan(300);
    const first = await readCard(page);
    expect(first.name).toBe('write_file');
    const later = await cardCountedUp(page, first);
    expect(later.chars).toBeGreaterThan(first.chars);
    expect(later.seconds).toBeGreaterThan(first.seconds);
    await page.locator('aalis-chat').screenshot({ path: `${SCREENSHOTS}card-light.png` });
    await page.evaluate(() => {
      const chat = document.querySelector('aalis-chat') as HTMLElement & {
        theme: string;
        updateComplete: Promise<unknown>;
      };
      chat.theme = 'dark';
      document.body.classList.add('dark');
      return chat.updateComplete;
    });
    // Rendered dark; a colour still in transition is shown at its end.
    await page
      .locator('aalis-chat')
      .screenshot({ path: `${SCREENSHOTS}card-dark.png`, animations: 'disabled' });
    await turnEnded(page);
    await page.close();
  }, 60_000);

  test('three tool calls: three cards in index order, then three blocks in their place with results', async () => {
    await e2e.start([threeCalls(), answer('Paris is mild, Tokyo is wet.')]);
    const page = await e2e.page();
    await ask(page, 'weather and time');
    const cards = page.locator('aalis-chat aalis-tool-progress');
    await expect.poll(() => cards.count(), { timeout: 10_000 }).toBe(3);
    expect(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-index')))).toEqual([
      '0',
      '1',
      '2',
    ]);
    expect((await readCard(page, 2)).name).toBe('get_time');
    await page.locator('aalis-chat').screenshot({ path: `${SCREENSHOTS}three-cards.png` });
    await turnEnded(page);
    const blocks = page.locator('aalis-chat .bubble.assistant[data-id] .tool-call-block');
    expect(
      await blocks.evaluateAll((els) =>
        els.map((e) => [e.getAttribute('data-call-id'), e.getAttribute('data-status')]),
      ),
    ).toEqual([
      ['call_p', 'done'],
      ['call_t', 'done'],
      ['call_z', 'done'],
    ]);
    // The blocks sit where the cards were: before the answer, in the same bubble.
    const bubble = page.locator('aalis-chat .bubble.assistant[data-id]');
    expect(await bubble.innerText()).toMatch(
      /get_weather[\s\S]*get_weather[\s\S]*get_time[\s\S]*Paris is mild/,
    );
    await blocks.nth(0).locator('summary').click();
    // The arguments as the model wrote them (no re-indented copy), then the result.
    expect(await blocks.nth(0).innerText()).toMatch(/\{"location":"Paris, France"\}[\s\S]*"temperature"/);
    await page.locator('aalis-chat').screenshot({ path: `${SCREENSHOTS}tool-blocks.png` });
    await page.close();
  }, 60_000);

  test('reload in the middle of a tool call: the card is back within a second and keeps counting', async () => {
    await e2e.start([slowLongCall(5), answer('Done after the reload.')]);
    const page = await e2e.page();
    await ask(page, 'write it');
    await page.locator('aalis-chat .tool-call-block-pending').waitFor({ timeout: 10_000 });
    // Until the card has counted 1.5 s: more than a reload takes, so a clock that started
    // again at zero after it would show.
    const before = await cardCountedUp(page, { chars: 0, seconds: 1.4 });
    await page.reload();
    const reloadedAt = Date.now();
    await page.locator('aalis-chat .tool-call-block-pending').waitFor({ timeout: 1_000 });
    expect(Date.now() - reloadedAt).toBeLessThan(1_000);
    const after = await readCard(page);
    expect(after.chars).toBeGreaterThanOrEqual(before.chars);
    expect(after.seconds).toBeGreaterThanOrEqual(before.seconds);
    await turnEnded(page);
    expect(await page.locator('aalis-chat .bubble.assistant[data-id]').innerText()).toContain(
      'Done after the reload.',
    );
    await page.close();
  }, 60_000);

  test('the WebSocket dies mid-turn (not the page): reconnecting, back, resumed, completed', async () => {
    await e2e.start([slowLongCall(5), answer('Finished anyway.')]);
    const page = await e2e.page();
    await page.evaluate(() => {
      const w = window as unknown as { states: string[] };
      w.states = [];
      document.querySelector('aalis-chat')!.addEventListener('aalis-connection-change', (e) => {
        w.states.push((e as CustomEvent<{ state: string }>).detail.state);
      });
    });
    await ask(page, 'write it');
    await page.locator('aalis-chat .tool-call-block-pending').waitFor({ timeout: 10_000 });
    for (const socket of e2e.demo.app.websocketServer.clients) socket.terminate();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { states: string[] }).states), { timeout: 5_000 })
      .toContain('connected');
    const states = await page.evaluate(() => (window as unknown as { states: string[] }).states);
    expect(states[0]).toBe('reconnecting');
    await page.locator('aalis-chat .tool-call-block-pending').waitFor({ timeout: 2_000 });
    await turnEnded(page);
    expect(await page.locator('aalis-chat .bubble.assistant[data-id]').innerText()).toContain(
      'Finished anyway.',
    );
    await page.close();
  }, 60_000);

  test('Stop in the middle of a tool call: the turn ends as aborted and no tool runs', async () => {
    await e2e.start([slowLongCall(5)]);
    const page = await e2e.page();
    await ask(page, 'write it');
    await page.locator('aalis-chat .tool-call-block-pending').waitFor({ timeout: 10_000 });
    await page.locator('aalis-chat [part~="stop-button"]').click();
    const bubble = page.locator('aalis-chat .bubble.assistant[data-id]');
    await bubble.waitFor({ timeout: 5_000 });
    expect(await bubble.getAttribute('data-status')).toBe('aborted');
    expect(await bubble.innerText()).toContain('Stopped.');
    expect(await page.locator('aalis-chat .tool-call-block').count()).toBe(0);
    expect(e2e.upstream.requests).toHaveLength(1);
    await page.close();
  }, 30_000);

  test('a server restart between turns keeps the history', async () => {
    await e2e.start([answer('First answer.')]);
    const page = await e2e.page();
    await ask(page, 'remember me');
    await turnEnded(page);
    await e2e.demo.close();
    await e2e.startServer();
    await page.reload();
    await page.locator('aalis-chat .bubble.assistant[data-id]').waitFor({ timeout: 5_000 });
    expect(await page.locator('aalis-chat .bubble.user').innerText()).toContain('remember me');
    expect(await page.locator('aalis-chat .bubble.assistant[data-id]').innerText()).toContain(
      'First answer.',
    );
    await page.close();
  }, 30_000);

  test('a model answer full of XSS payloads renders as text; nothing runs', async () => {
    const payload =
      '<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3)) <svg onload=alert(4)></svg>';
    await e2e.start([answer(payload)]);
    const page = await e2e.page();
    await ask(page, 'be evil');
    await turnEnded(page);
    const bubble = page.locator('aalis-chat .bubble.assistant[data-id]');
    expect(await bubble.innerText()).toContain('<script>alert(1)</script>');
    expect(
      await page.locator('aalis-chat .bubble.assistant img, aalis-chat .bubble.assistant script').count(),
    ).toBe(0);
    expect(await page.locator('aalis-chat .bubble.assistant a').count()).toBe(0);
    await page.close();
  }, 30_000);

  test('the markdown part never arrives: the chat connects without it and answers in plain text', async () => {
    // The socket waits for the markdown part (aalis-chat-marked.js), but only so long.
    await e2e.start([answer('Some **bold** words.')]);
    const context = await e2e.browser.newContext();
    await context.route('**/aalis-chat-marked.js', () => {});
    const page = await e2e.page(undefined, context);
    await ask(page, 'hello');
    await turnEnded(page);
    const text = page.locator('aalis-chat .bubble.assistant[data-id] .plain');
    expect(await text.innerText()).toBe('Some **bold** words.');
    await context.close();
  }, 30_000);
});

describe('a page on another origin', () => {
  test('embeds and chats when its origin is allowed', async () => {
    // The examples server must know the chat server's address, and the chat server the examples' origin.
    e2e.port ||= await freePort();
    const site = await serveExamples({ port: 0, chatServer: `http://127.0.0.1:${e2e.port}` });
    try {
      await e2e.start([answer('Hello **from across** origins.\n\n| a | b |\n| - | - |\n| 1 | 2 |')], {
        AALIS_ALLOWED_ORIGINS: site.url,
      });
      const page = await e2e.page(site.url);
      await ask(page, 'hi');
      await turnEnded(page);
      // Markdown: the script loaded its markdown part from its own server, across origins
      // (until it has come, the text shows as written).
      await page.locator('aalis-chat .bubble.assistant[data-id] table').waitFor();
      expect(await page.locator('aalis-chat .bubble.assistant[data-id]').innerText()).toContain(
        'Hello from across origins.',
      );
      expect(await page.locator('aalis-chat .bubble.assistant[data-id] strong').innerText()).toBe(
        'from across',
      );
      await page.close();
    } finally {
      await site.close();
    }
  }, 30_000);

  test('the launcher example: Enter opens it, a starter from the page asks, Escape closes it; screenshots', async () => {
    e2e.port ||= await freePort();
    const site = await serveExamples({ port: 0, chatServer: `http://127.0.0.1:${e2e.port}` });
    try {
      await e2e.start([answer('The Fjell pendant takes an **E27** bulb.')], {
        AALIS_ALLOWED_ORIGINS: site.url,
      });
      // In launcher mode the chat's content is built when first opened: the button is the sign.
      const page = await e2e.page(`${site.url}/launcher/`, undefined, 'aalis-chat .launcher');
      const launcher = page.locator('aalis-chat .launcher');
      await launcher.waitFor();
      await page.screenshot({ path: `${SCREENSHOTS}launcher-closed.png` });
      await launcher.press('Enter');
      const panel = page.locator('aalis-chat .panel');
      await panel.waitFor();
      expect(await panel.getAttribute('role')).toBe('dialog');
      expect(await page.locator('aalis-chat .panel h2').innerText()).toBe('Lumen & Oak help');
      await page.locator('aalis-chat .starter', { hasText: 'Which bulb?' }).click();
      await turnEnded(page);
      expect(await page.locator('aalis-chat .bubble.assistant[data-id] strong').innerText()).toBe('E27');
      await page.screenshot({ path: `${SCREENSHOTS}launcher-open.png` });
      await page.keyboard.press('Escape');
      await panel.waitFor({ state: 'hidden' });
      await page.close();
    } finally {
      await site.close();
    }
  }, 30_000);

  test('the Vue example opens one socket, binds the element, and chats', async () => {
    e2e.port ||= await freePort();
    const site = await serveExamples({ port: 0, chatServer: `http://127.0.0.1:${e2e.port}` });
    try {
      await e2e.start([answer('Hello, Vue.')], { AALIS_ALLOWED_ORIGINS: site.url });
      const page = await e2e.browser.newPage();
      const sockets: string[] = [];
      page.on('websocket', (socket) => sockets.push(socket.url()));
      await page.goto(`${site.url}/vue/`);
      await page.locator('text=Connection: connected').waitFor({ timeout: 5_000 });
      await ask(page, 'hi');
      await turnEnded(page);
      await page.locator('text=answers received: 1').waitFor({ timeout: 5_000 });
      expect(sockets).toHaveLength(1);
      await page.close();
    } finally {
      await site.close();
    }
  }, 30_000);

  test('attaches an image across origins: uploaded, shown, kept after a reload, and given to the model', async () => {
    e2e.port ||= await freePort();
    const site = await serveExamples({ port: 0, chatServer: `http://127.0.0.1:${e2e.port}` });
    try {
      await e2e.start([answer('A round chart.')], { AALIS_ALLOWED_ORIGINS: site.url });
      const page = await e2e.page(site.url);
      const file = new URL('../../server/test/fixtures/images/chart.png', import.meta.url).pathname;
      await page.locator('aalis-chat .attach input[type=file]').setInputFiles(file);
      // Uploaded over HTTP from the page's origin (CORS), with the session's ticket.
      await page.locator('aalis-chat .attachment[data-state=ready]').waitFor();
      await ask(page, 'What is this?');
      await turnEnded(page);
      const png = readFileSync(file);
      const question = (
        e2e.upstream.requests[0]!.body as { messages: Array<{ role: string; content: unknown }> }
      ).messages.find((m) => m.role === 'user')!;
      expect(question.content).toEqual([
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
      ]);
      // The bubble shows the image the server keeps, loaded across origins, and so does a reload.
      const shown = page.locator('aalis-chat .bubble.user img');
      await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(40);
      await page.reload();
      await turnEnded(page);
      await expect.poll(() => shown.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(40);
      await page.close();
    } finally {
      await site.close();
    }
  }, 30_000);

  test('is refused with a visible error when its origin is not allowed', async () => {
    e2e.port ||= await freePort();
    const site = await serveExamples({ port: 0, chatServer: `http://127.0.0.1:${e2e.port}` });
    try {
      await e2e.start([], { AALIS_ALLOWED_ORIGINS: 'https://somewhere-else.example' });
      const page = await e2e.browser.newPage();
      page.on('console', (m) => console.log('[page]', m.text()));
      await page.goto(site.url);
      const status = page.locator('aalis-chat .status.refused');
      await status.waitFor({ timeout: 5_000 });
      expect(await status.innerText()).toContain("does not allow this page's address");
      await page.close();
    } finally {
      await site.close();
    }
  }, 30_000);
});
