/**
 * The end-to-end smoke suite in all three engines a visitor may have: Chromium, Firefox
 * (ESR) and WebKit (WebKitGTK, the engine of Safari). The real demo server and widget
 * build, a fake OpenAI-compatible upstream writing the real SSE format, and each engine
 * driven as a user drives it (trusted keys and clicks). `npm test` runs it as its own
 * step (AALIS_ENGINES_TEST=1), after installing the engines from Debian when missing;
 * demo/test/engines-<engine>.test.ts run it, one engine a file.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { completionChunk, fixture, sse, textAnswer, usageChunk } from '../../../server/test/fake-upstream.js';
// @ts-expect-error: a plain script without types.
import { serveExamples } from '../../../examples/serve.mjs';
// @ts-expect-error: a plain script without types.
import { ensureEngines } from '../../../scripts/ensure-engines.mjs';
import { CARD, E2E, SCREENSHOTS, freePort } from '../e2e-harness.js';
import { launchChromium } from './chromium.js';
import { waitFor, type Engine, type EngineName, type EnginePage, type Viewport } from './engine.js';
import { launchFirefox } from './firefox.js';
import { mcpTests } from './mcp-suite.js';
import { reconnectTests } from './reconnect-suite.js';
import { launchWebKit } from './webkit.js';

ensureEngines();

const answer = (text: string) => ({ body: textAnswer(text) });
const slowLongCall = (delayMs = 5) => ({
  body: fixture('openai-long-tool-call.sse'),
  byEvent: true,
  delayMs,
});

/** An answer of `paragraphs` paragraphs, streamed one a `delayMs`. */
const longAnswer = (paragraphs: number, delayMs: number) => ({
  body: sse([
    completionChunk({ role: 'assistant', content: '' }),
    ...Array.from({ length: paragraphs }, (_, n) =>
      completionChunk({ content: `Paragraph ${n + 1} of a long answer, streamed a piece at a time.\n\n` }),
    ),
    completionChunk({}, 'stop'),
    usageChunk(5, paragraphs * 12),
  ]),
  byEvent: true,
  delayMs,
});

const launchers: Record<EngineName, () => Promise<Engine>> = {
  Chromium: launchChromium,
  Firefox: launchFirefox,
  WebKit: launchWebKit,
};

// In-page helpers: each runs in the browser, so it names everything it uses itself.

/** True once the chat says it is connected (its status line hidden). */
const connected = () => !!document.querySelector('aalis-chat')?.shadowRoot?.querySelector('.status[hidden]');

/** True once `count` answers are finished on screen. */
const answersAtLeast = (count: number) =>
  document.querySelector('aalis-chat')!.shadowRoot!.querySelectorAll('.bubble.assistant[data-id]').length >=
  count;

/** True while the transcript is at its bottom (within the 48 px that still follows). */
const atBottom = () => {
  const t = document.querySelector('aalis-chat')!.shadowRoot!.querySelector('.transcript')!;
  return t.scrollHeight - t.scrollTop - t.clientHeight <= 48;
};

/**
 * The first pending card's text as a user reads it ("write_file 142 chars · 3.2s") when
 * it matches `pattern`, else "".
 */
const cardText = (pattern: string) => {
  const text = (
    document.querySelector('aalis-chat')?.shadowRoot?.querySelector('aalis-tool-progress')?.shadowRoot
      ?.textContent ?? ''
  )
    .replace(/\s+/g, ' ')
    .trim();
  return new RegExp(pattern).test(text) ? text : '';
};

/** The first card's text (as `cardText`) once it shows more than `chars` and `seconds`, else "". */
const cardPast = (pattern: string, chars: number, seconds: number) => {
  const text = (
    document.querySelector('aalis-chat')?.shadowRoot?.querySelector('aalis-tool-progress')?.shadowRoot
      ?.textContent ?? ''
  )
    .replace(/\s+/g, ' ')
    .trim();
  const match = new RegExp(pattern).exec(text);
  return match && Number(match[2]) > chars && Number(match[3]) > seconds ? text : '';
};

/** Focuses an element of the chat's shadow root; false when it is not there. */
const focusIn = (selector: string) => {
  const target = document.querySelector('aalis-chat')?.shadowRoot?.querySelector<HTMLElement>(selector);
  target?.focus();
  return !!target;
};

/** The centre of an element of the chat's shadow root, in viewport pixels. */
const centreOf = (selector: string) => {
  const box = document
    .querySelector('aalis-chat')!
    .shadowRoot!.querySelector(selector)!
    .getBoundingClientRect();
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
};

/** Types into the chat's text box and sends with Enter, as a user does. */
async function askIn(page: EnginePage, text: string): Promise<void> {
  await waitFor(page, 'the text box', focusIn, ['textarea']);
  await page.type(text);
  await page.press('Enter');
}

async function readCard(page: EnginePage): Promise<{ name: string; chars: number; seconds: number }> {
  const match = CARD.exec(await waitFor(page, 'a card that counts', cardText, [CARD.source]))!;
  return { name: match[1]!, chars: Number(match[2]), seconds: Number(match[3]) };
}

/** The card once it shows more characters and seconds than `than`: counting up, waited for. */
async function cardCountedUp(
  page: EnginePage,
  than: { chars: number; seconds: number },
): Promise<{ name: string; chars: number; seconds: number }> {
  const what = `the card past ${than.chars} chars and ${than.seconds} s`;
  const match = CARD.exec(await waitFor(page, what, cardPast, [CARD.source, than.chars, than.seconds]))!;
  return { name: match[1]!, chars: Number(match[2]), seconds: Number(match[3]) };
}

/**
 * The suite in one engine. Each engine has its own test file (engines-<name>.test.ts), so
 * that vitest runs two engines at once: most of a test's time is a page waiting on a stream.
 */
export function smokeSuite(name: EngineName): void {
  describe(name, () => {
    const e2e = new E2E();
    let engine: Engine;
    let page: EnginePage | undefined;
    let site: { url: string; close(): Promise<void> } | undefined;

    beforeAll(async () => {
      engine = await launchers[name]();
      console.log(`${name}: ${engine.version}`);
    }, 60_000);
    afterAll(async () => {
      try {
        await engine?.close();
      } finally {
        await e2e.dispose();
      }
    });

    /** A fresh page on `url` (the demo by default), `viewport` in size, once `ready` (the chat connected). */
    async function open(
      url = e2e.demo.url,
      ready: () => unknown = connected,
      viewport?: Viewport,
    ): Promise<EnginePage> {
      await page?.close();
      page = await engine.newPage(viewport);
      await page.goto(url);
      await waitFor(page, 'the page ready', ready, []);
      return page;
    }

    /** What a test asked to be done after it (reconnect-suite.ts: its proxy closed). */
    const deferred: Array<() => Promise<void>> = [];
    afterEach(async () => {
      try {
        await page?.close();
      } finally {
        page = undefined;
        await site?.close();
        site = undefined;
        await e2e.stop();
        for (const close of deferred.splice(0)) await close();
      }
    });

    /** The examples, served from an origin of their own and pointed at the chat server. */
    async function examplesSite(chatServer?: string): Promise<{ url: string }> {
      e2e.port ||= await freePort();
      site = await serveExamples({ port: 0, chatServer: chatServer ?? `http://127.0.0.1:${e2e.port}` });
      return site!;
    }

    test('loads the one-file build and its markdown part, connects and answers', async () => {
      await e2e.startWithoutBrowser([answer('Some **bold** words.')]);
      const page = await open();
      expect(await page.evaluate(() => typeof customElements.get('aalis-chat'))).toBe('function');
      await askIn(page, 'hello');
      await waitFor(page, 'the answer', answersAtLeast, [1]);
      const strong = () =>
        document.querySelector('aalis-chat')!.shadowRoot!.querySelector('.bubble.assistant[data-id] strong')
          ?.textContent;
      expect(await waitFor(page, 'markdown', strong, [])).toBe('bold');
    }, 60_000);

    test('embeds in a page on another origin and chats', async () => {
      const site = await examplesSite();
      await e2e.startWithoutBrowser(
        [answer('Hello from across origins.\n\n| a | b |\n| - | - |\n| 1 | 2 |')],
        {
          AALIS_ALLOWED_ORIGINS: site.url,
        },
      );
      const page = await open(site.url);
      await askIn(page, 'hi');
      const table = () =>
        document.querySelector('aalis-chat')!.shadowRoot!.querySelector('.bubble.assistant[data-id] td')
          ?.textContent;
      expect(await waitFor(page, 'the table', table, [])).toBe('1');
    }, 60_000);

    test('a live card rises while the model writes a tool call, and counts up', async () => {
      await e2e.startWithoutBrowser([slowLongCall(), answer('Saved report.md.')]);
      const page = await open();
      await askIn(page, 'write a long report');
      const first = await readCard(page);
      expect(first.name).toBe('write_file');
      const later = await cardCountedUp(page, first);
      expect(later.chars).toBeGreaterThan(first.chars);
      expect(later.seconds).toBeGreaterThan(first.seconds);
      await page.screenshot(`${SCREENSHOTS}card-${name.toLowerCase()}.png`);
    }, 60_000);

    test('a reload in the middle of a tool call brings the card back, its clock kept', async () => {
      await e2e.startWithoutBrowser([slowLongCall(10), answer('Done after the reload.')]);
      const page = await open();
      await askIn(page, 'write it');
      await readCard(page);
      // Until the card has counted 1.5 s: more than a reload takes, so a clock that started
      // again at zero after it would show.
      const before = await cardCountedUp(page, { chars: 0, seconds: 1.4 });
      await page.reload();
      const after = await readCard(page);
      expect(after.chars).toBeGreaterThanOrEqual(before.chars);
      expect(after.seconds).toBeGreaterThanOrEqual(before.seconds);
      await waitFor(page, 'the answer', answersAtLeast, [1], 30_000);
    }, 60_000);

    test('Stop in the middle of a tool call ends the turn as aborted; no tool runs', async () => {
      await e2e.startWithoutBrowser([slowLongCall(5)]);
      const page = await open();
      await askIn(page, 'write it');
      await waitFor(page, 'a card', cardText, ['.']);
      const stop = await page.evaluate(centreOf, '[part~="stop-button"]');
      await page.click(stop.x, stop.y);
      const status = () =>
        document
          .querySelector('aalis-chat')!
          .shadowRoot!.querySelector('.bubble.assistant[data-id]')
          ?.getAttribute('data-status');
      expect(await waitFor(page, 'the aborted answer', status, [])).toBe('aborted');
      // A tool's result would go back to the model as a second request: none comes. Proving
      // that something does not happen takes real time: half a second of it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(e2e.upstream.requests).toHaveLength(1);
    }, 60_000);

    test('the launcher opens with Enter and closes with Escape, the focus going back to its button', async () => {
      const site = await examplesSite();
      await e2e.startWithoutBrowser([], { AALIS_ALLOWED_ORIGINS: site.url });
      const page = await open(`${site.url}/launcher/`, () =>
        // A boolean: an element does not cross from the page to the test.
        Boolean(document.querySelector('aalis-chat')?.shadowRoot?.querySelector('.launcher')),
      );
      await page.evaluate(focusIn, '.launcher');
      await page.press('Enter');
      const focused = () => {
        const root = document.querySelector('aalis-chat')!.shadowRoot!;
        const panel = root.querySelector<HTMLElement>('.panel');
        return panel && !panel.hidden ? (root.activeElement?.tagName.toLowerCase() ?? 'none') : '';
      };
      // Open, and the focus in the text box, ready to type.
      expect(await waitFor(page, 'the panel open', focused, [])).toBe('textarea');
      await page.press('Escape');
      const closed = () => {
        const root = document.querySelector('aalis-chat')!.shadowRoot!;
        return (
          root.querySelector<HTMLElement>('.panel')?.hidden &&
          root.activeElement?.classList.contains('launcher')
        );
      };
      expect(await waitFor(page, 'the panel closed, the button focused', closed, [])).toBe(true);
    }, 60_000);

    test('the composition key events each engine sends do not send; a plain Enter does', async () => {
      await e2e.startWithoutBrowser([answer('こんにちは')]);
      const page = await open();
      await waitFor(page, 'the text box', focusIn, ['textarea']);
      await page.type('nihongo');
      // The composition as the engines report it: Chromium and Firefox mark the keydown
      // `isComposing`; Safari ends the composition first and sends keyCode 229.
      const composeAndEnter = () => {
        const box = document.querySelector('aalis-chat')!.shadowRoot!.querySelector('textarea')!;
        box.dispatchEvent(new CompositionEvent('compositionstart', { bubbles: true, data: '' }));
        box.dispatchEvent(
          new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true, cancelable: true }),
        );
        box.dispatchEvent(new CompositionEvent('compositionend', { bubbles: true, data: '日本語' }));
        box.dispatchEvent(
          new KeyboardEvent('keydown', { key: 'Enter', keyCode: 229, bubbles: true, cancelable: true }),
        );
        return true;
      };
      await page.evaluate(composeAndEnter);
      const sent = () =>
        document.querySelector('aalis-chat')!.shadowRoot!.querySelectorAll('.bubble.user').length;
      // A send is synchronous (it empties the box as it goes): after the element's next
      // render, a composed Enter that sent would show in the box and in the transcript.
      const rendered = () =>
        (
          document.querySelector('aalis-chat') as HTMLElement & { updateComplete: Promise<unknown> }
        ).updateComplete.then(
          () => document.querySelector('aalis-chat')!.shadowRoot!.querySelector('textarea')!.value,
        );
      expect(await page.evaluate(rendered)).toBe('nihongo');
      expect(await page.evaluate(sent)).toBe(0);
      await page.press('Enter');
      expect(await waitFor(page, 'the question sent', sent, [])).toBe(1);
      await waitFor(page, 'the answer', answersAtLeast, [1]);
    }, 60_000);

    test('a long answer streams at the bottom; scrolled up, the reader stays put until they jump back', async () => {
      await e2e.startWithoutBrowser([longAnswer(80, 30), longAnswer(40, 30)]);
      const page = await open();
      await askIn(page, 'tell me everything');
      // Following the answer as it grows.
      await waitFor(
        page,
        'a tall answer',
        () => {
          const bubble = document.querySelector('aalis-chat')!.shadowRoot!.querySelector('.bubble.streaming');
          return (bubble?.textContent?.match(/Paragraph/g)?.length ?? 0) >= 30;
        },
        [],
      );
      expect(await page.evaluate(atBottom)).toBe(true);
      await waitFor(page, 'the answer', answersAtLeast, [1], 30_000);
      expect(await page.evaluate(atBottom)).toBe(true);
      // The reader scrolls up to read: a second answer streams without moving them.
      await page.evaluate(() => {
        document.querySelector('aalis-chat')!.shadowRoot!.querySelector('.transcript')!.scrollTop = 0;
      });
      const jump = () =>
        !!document.querySelector('aalis-chat')!.shadowRoot!.querySelector('[part~="jump-button"]');
      await waitFor(page, 'the jump button', jump, []);
      await askIn(page, 'and more');
      await waitFor(page, 'the second answer', answersAtLeast, [2]);
      const top = () =>
        document.querySelector('aalis-chat')!.shadowRoot!.querySelector('.transcript')!.scrollTop;
      expect(await page.evaluate(top)).toBeLessThan(50);
      const button = await page.evaluate(centreOf, '[part~="jump-button"]');
      await page.click(button.x, button.y);
      await waitFor(page, 'the bottom again', atBottom, []);
    }, 60_000);

    test('a page whose origin the server does not allow says why (the close code reaches the page)', async () => {
      const site = await examplesSite();
      await e2e.startWithoutBrowser([], { AALIS_ALLOWED_ORIGINS: 'https://somewhere-else.example' });
      const page = await open(site.url, () => true);
      const refused = () =>
        document.querySelector('aalis-chat')?.shadowRoot?.querySelector('.status.refused')?.textContent ?? '';
      expect(await waitFor(page, 'the refusal', refused, [])).toContain("does not allow this page's address");
    }, 60_000);

    test("the page's theme tokens and ::part rules apply inside the chat", async () => {
      // The plain example styles the chat as a site does: a token and a part, from its own sheet.
      const site = await examplesSite();
      await e2e.startWithoutBrowser([], { AALIS_ALLOWED_ORIGINS: site.url });
      const page = await open(site.url);
      const send = () => {
        const style = getComputedStyle(
          document.querySelector('aalis-chat')!.shadowRoot!.querySelector('[part~="send-button"]')!,
        );
        return [style.backgroundColor, style.borderTopLeftRadius];
      };
      expect(await page.evaluate(send)).toEqual(['rgb(11, 110, 79)', '999px']);
    }, 60_000);

    reconnectTests({ e2e, open, examplesSite, ask: askIn, defer: (close) => void deferred.push(close) });
    mcpTests({ name, e2e, open: (viewport) => open(undefined, connected, viewport), ask: askIn });
  });
}
