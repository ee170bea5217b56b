/**
 * MCP beyond tools in each engine, at a phone's size and a desktop's: a form the reference
 * MCP server (`@modelcontextprotocol/server-everything`) asks for, filled in the tool's
 * card after a reload in the middle of the request; and the basic MCP App example
 * (`@modelcontextprotocol/server-basic-vanillajs`) running in its sandboxed frame in the
 * card, served by the real `/mcp-apps` route under its policy, speaking the ext-apps
 * bridge: it sizes its frame, and a link it asks for waits for the visitor.
 *
 * The sizes are the window's, not a phone's emulation (touch, pixel ratio): what differs
 * between them for these parts is the layout.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { EVERYTHING_ENTRY } from '../../../server/test/fixtures/mcp/harness.js';
import { toolCallThen } from '../../../server/test/scripted-replies.js';
import { SCREENSHOTS, type E2E } from '../e2e-harness.js';
import { waitFor, type EngineName, type EnginePage, type Viewport } from './engine.js';

export interface McpSuiteParts {
  name: EngineName;
  e2e: E2E;
  /** A fresh page on the demo, `viewport` in size, once the chat is connected. */
  open(viewport: Viewport): Promise<EnginePage>;
  /** Types into the chat and sends, as a user does. */
  ask(page: EnginePage, text: string): Promise<void>;
}

const SIZES: Record<'phone' | 'desktop', Viewport> = {
  phone: { width: 390, height: 844 },
  desktop: { width: 1280, height: 860 },
};

const basicAppServer = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-basic-vanillajs')),
  'index.js',
);

/** The demo's configuration with both reference MCP servers, as examples/aalis.config.json names them. */
function mcpConfig(e2e: E2E): string {
  const file = join(e2e.dataDir, 'aalis.mcp.json');
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] },
        apps: { command: process.execPath, args: [basicAppServer, '--stdio'] },
      },
    }),
  );
  return file;
}

// In-page helpers: each runs in the browser, so it names everything it uses itself.

/**
 * What a test reads of, or does to, the element at the end of `path` in the chat: each
 * selector is looked for in the shadow root of the element the one before found (the
 * first in the chat's own). `text`: its text, "" when it is not there; `focus`: scrolled
 * into view and focused, false when it is not there; `box`: scrolled into view, its box
 * once it is drawn; `height`: its height once it is at least `min` px, else 0; `gone`:
 * true once it is not there.
 */
const inChat = (path: string[], what: 'text' | 'focus' | 'box' | 'height' | 'gone', min = 0) => {
  let root: ParentNode | null | undefined = document.querySelector('aalis-chat')?.shadowRoot;
  let found: HTMLElement | null = null;
  for (const selector of path) {
    found = root?.querySelector<HTMLElement>(selector) ?? null;
    root = found?.shadowRoot ?? found;
  }
  if (what === 'gone') return !found;
  if (what === 'text') return found?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
  if (!found) return what === 'height' ? 0 : what === 'box' ? null : false;
  if (what === 'height') {
    const { height } = found.getBoundingClientRect();
    return height >= min ? height : 0;
  }
  // Scrolled only when it is out of view: a scroll of the transcript away from its bottom
  // could race the chat's following of new output, and move it after it was measured.
  found.scrollIntoView({ block: 'nearest' });
  if (what === 'focus') {
    found.focus();
    return true;
  }
  const { x, y, width, height } = found.getBoundingClientRect();
  return width && height ? { x, y, width, height } : null;
};
type Box = { x: number; y: number; width: number; height: number };

/** How many answers are finished on screen, once there are `count`. */
const answers = (count: number) =>
  document.querySelector('aalis-chat')!.shadowRoot!.querySelectorAll('.bubble.assistant[data-id]').length >=
  count;

/** The chat is connected (its status line hidden). */
const connected = () => !!document.querySelector('aalis-chat')?.shadowRoot?.querySelector('.status[hidden]');

const FORM = ['aalis-elicitation'];
const WHO_ASKS = [...FORM, '.who'];
const FRAME = ['aalis-mcp-app', '[part~="mcp-app-frame"]'];
const LINK_ROW = ['aalis-mcp-app', '[part~="mcp-app-link-confirm"]'];

export function mcpTests({ name, e2e, open, ask }: McpSuiteParts): void {
  /**
   * The button at `path` pressed from the keyboard, as a keyboard user does: focused, then
   * Enter. (A click by coordinates could race the chat's following of new output.)
   */
  async function press(page: EnginePage, what: string, path: string[]): Promise<void> {
    await waitFor(page, what, inChat, [path, 'focus']);
    await page.press('Enter');
  }

  for (const [size, viewport] of Object.entries(SIZES)) {
    test(`${size}: an MCP form is filled in the tool's card, after a reload mid-request`, async () => {
      await e2e.startWithoutBrowser(toolCallThen('trigger-elicitation-request', '{}', 'Thank you, Ada.'), {
        AALIS_CONFIG: mcpConfig(e2e),
      });
      await e2e.demo.app.aalis.mcp!.ready;
      const page = await open(viewport);
      await ask(page, 'Ask me for my details');
      expect(await waitFor(page, 'the form in the card', inChat, [WHO_ASKS, 'text'])).toContain('everything');
      await page.reload();
      await waitFor(page, 'the chat connected again', connected, []);
      expect(await waitFor(page, 'the form after the reload', inChat, [WHO_ASKS, 'text'])).toContain(
        'everything',
      );

      // The required name, typed as a visitor types it; then Submit.
      await waitFor(page, 'the name box', inChat, [[...FORM, 'input#f0'], 'focus']);
      await page.type('Ada');
      await page.screenshot(`${SCREENSHOTS}mcp-form-${name.toLowerCase()}-${size}.png`);
      await press(page, 'Submit', [...FORM, '[part~="elicitation-submit"]']);
      await waitFor(page, 'the answer', answers, [1], 20_000);
      // What the model was given: the tool's result, with what the visitor typed.
      const toolMessage = JSON.stringify(e2e.upstream.requests[1]?.body);
      expect(toolMessage).toContain('Ada');
      expect(toolMessage).toContain('accept');
      expect(await page.evaluate(inChat, WHO_ASKS, 'text')).toBe('');
    }, 60_000);

    test(`${size}: an MCP App runs in its card; a link it asks for waits for the visitor`, async () => {
      await e2e.startWithoutBrowser(toolCallThen('get-time', '{}', 'That is the server’s time.'), {
        AALIS_CONFIG: mcpConfig(e2e),
      });
      await e2e.demo.app.aalis.mcp!.ready;
      const page = await open(viewport);
      await ask(page, 'What time is it on the server?');
      await waitFor(page, 'the answer', answers, [1], 20_000);
      // The example app is about 400 px tall: a frame that tall was sized by the app over
      // the bridge, from the page /mcp-apps served it under its policy.
      const height = (await waitFor(page, 'the app sized', inChat, [FRAME, 'height', 300], 20_000)) as number;
      expect(height).toBeLessThanOrEqual(800);
      await page.screenshot(`${SCREENSHOTS}mcp-app-${name.toLowerCase()}-${size}.png`);
      // Its last control, "Open Link", is the frame's last row: a click there, inside the
      // app's own document, asks the chat to open modelcontextprotocol.io. The app may
      // still be resizing its frame (its card narrows as the turn ends): a click that
      // lands before it settles is measured and made again.
      let question = '';
      for (let attempt = 1; !question; attempt++) {
        // A slow answer to the click before is not a miss: no second click then.
        question = String(await page.evaluate(inChat, LINK_ROW, 'text'));
        if (question) break;
        const frame = (await page.evaluate(inChat, FRAME, 'box')) as Box;
        await page.click(frame.x + frame.width / 2, frame.y + frame.height - 22);
        question = await waitFor(page, 'the link question', inChat, [LINK_ROW, 'text'], 5_000).then(
          String,
          (error: unknown) => {
            if (attempt === 3) throw error;
            return '';
          },
        );
      }
      expect(question).toContain('modelcontextprotocol.io');
      // Nothing opens by itself; Cancel takes the question away.
      await press(page, 'Cancel', [...LINK_ROW, 'button.cancel']);
      expect(await waitFor(page, 'the question gone', inChat, [LINK_ROW, 'gone'])).toBe(true);
    }, 60_000);
  }
}
