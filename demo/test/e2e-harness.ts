/**
 * End-to-end: the real demo (server, widget build, page) in Debian Chromium driven by
 * playwright-core, the model being a fake OpenAI-compatible upstream that writes the
 * real SSE wire format.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { builtinTools as builtinToolsList } from '../../server/src/tools/builtin/index.js';
import { startFakeUpstream, type FakeUpstream, type Reply } from '../../server/test/fake-upstream.js';
// @ts-expect-error: a plain script without types.
import { startDemo } from '../app.mjs';
// @ts-expect-error: a plain script without types.
import { chromiumArgs, ensureChromium } from '../../scripts/ensure-chromium.mjs';

/**
 * Where the screenshots of the tested states go: the folder the README shows with
 * UPDATE_SCREENSHOTS=1 (npm run screenshots), else the ignored test results, so that a
 * test run leaves the working tree as it found it.
 */
export const SCREENSHOTS = new URL(
  process.env.UPDATE_SCREENSHOTS ? '../../docs/screenshots/' : '../../.test-results/screenshots/',
  import.meta.url,
).pathname;
mkdirSync(SCREENSHOTS, { recursive: true });

export interface Demo {
  url: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export class E2E {
  upstream!: FakeUpstream;
  demo!: Demo;
  browser!: Browser;
  readonly dataDir = mkdtempSync(join(tmpdir(), 'aalis-e2e-'));
  port = 0;

  async start(replies: Reply[], env: Record<string, string> = {}): Promise<void> {
    await this.startWithoutBrowser(replies, env);
    await this.launchBrowser();
  }

  /** The fake upstream and the demo server, for tests that bring their own browser. */
  async startWithoutBrowser(replies: Reply[], env: Record<string, string> = {}): Promise<void> {
    this.upstream = await startFakeUpstream(replies);
    this.port ||= await freePort();
    await this.startServer(env);
  }

  /**
   * Starts the demo on its own scripted model (`AALIS_PROVIDER=demo`), as `npm start`
   * runs it without a key: no fake upstream, no provider variables.
   */
  async startDemoModel(env: Record<string, string> = {}): Promise<void> {
    this.port ||= await freePort();
    this.demo = (await startDemo({
      PORT: String(this.port),
      HOST: '127.0.0.1',
      AALIS_PROVIDER: 'demo',
      AALIS_DATA_DIR: this.dataDir,
      LOG_LEVEL: 'silent',
      ...env,
    })) as Demo;
    await this.launchBrowser();
  }

  async launchBrowser(): Promise<void> {
    this.browser ??= await chromium.launch({
      executablePath: ensureChromium() as string,
      args: chromiumArgs,
    });
  }

  async startServer(env: Record<string, string> = {}): Promise<void> {
    this.demo = (await startDemo({
      PORT: String(this.port),
      HOST: '127.0.0.1',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `${this.upstream.url}/v1`,
      AALIS_DATA_DIR: this.dataDir,
      AALIS_CONFIG: this.#demoToolsConfig(),
      LOG_LEVEL: 'silent',
      ...env,
    })) as Demo;
  }

  /**
   * A real provider gets no built-in tools unless the owner names them (their data is made
   * up): the fixtures' model calls them, so this configuration file names them all.
   */
  #demoToolsConfig(): string {
    const file = join(this.dataDir, 'aalis.config.json');
    const builtinTools = builtinToolsList().map((tool) => tool.name);
    writeFileSync(file, JSON.stringify({ builtinTools }));
    return file;
  }

  /**
   * Opens the page, connected. In its own browser context (its own localStorage, so its
   * own session) unless one is given: pages of one context are tabs of one visitor.
   */
  /** A page at `url`, once `ready` is on it: the chat connected, by default. */
  async page(
    url = this.demo.url,
    context?: BrowserContext,
    ready = 'aalis-chat .status[hidden]',
  ): Promise<Page> {
    const viewport = { width: 1280, height: 860 };
    const page = await (context ? context.newPage() : this.browser.newPage({ viewport }));
    page.on('console', (message) => {
      if (process.env.E2E_DEBUG) console.log(`[page] ${message.text()}`);
    });
    page.on('dialog', (dialog) => {
      throw new Error(`a dialog opened: ${dialog.message()}`);
    });
    await page.goto(url);
    await page.locator(ready).waitFor({ state: 'attached' });
    return page;
  }

  async stop(): Promise<void> {
    await this.demo?.close();
    await this.upstream?.close();
  }

  async dispose(): Promise<void> {
    await this.stop();
    await this.browser?.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Types into the widget and sends with Enter, as a user does. */
export async function ask(page: Page, text: string): Promise<void> {
  const box = page.locator('aalis-chat textarea');
  await box.fill(text);
  await box.press('Enter');
}

export const CARD = /^(\S+) (\d+) chars · ([\d.]+)s$/;

/** A pending card's text as a user reads it, parsed: name, chars, elapsed seconds. */
export async function readCard(
  page: Page,
  index = 0,
): Promise<{ name: string; chars: number; seconds: number }> {
  // The card's text lives in its own shadow root, rendered a moment after the card appears.
  const card = page.locator('aalis-chat aalis-tool-progress').nth(index);
  let text = '';
  await expect
    .poll(
      async () =>
        (text = (await card.evaluate((e) => e.shadowRoot?.textContent ?? '')).replace(/\s+/g, ' ').trim()),
    )
    .toMatch(CARD);
  const match = CARD.exec(text)!;
  return { name: match[1]!, chars: Number(match[2]), seconds: Number(match[3]) };
}

/**
 * Reads the card until it shows more characters and more seconds than `than`, and gives
 * that reading back: the card counting up, waited for rather than slept on.
 */
export async function cardCountedUp(
  page: Page,
  than: { chars: number; seconds: number },
  index = 0,
): Promise<{ name: string; chars: number; seconds: number }> {
  let card = await readCard(page, index);
  await expect
    .poll(
      async () => {
        card = await readCard(page, index);
        return card.chars > than.chars && card.seconds > than.seconds;
      },
      { timeout: 10_000 },
    )
    .toBe(true);
  return card;
}

/**
 * Starts watching for the first pending card; the returned function resolves with the
 * page's clock when that card was painted (the frame after it entered the DOM). Watched
 * from inside the page, since polling from the test adds its own delay.
 */
export async function watchFirstCard(page: Page): Promise<() => Promise<number>> {
  await page.evaluate(() => {
    const root = document.querySelector('aalis-chat')!.shadowRoot!;
    const observer = new MutationObserver(() => {
      if (!root.querySelector('.tool-call-block-pending')) return;
      observer.disconnect();
      requestAnimationFrame(
        () => ((window as unknown as { cardPaintedAt: number }).cardPaintedAt = Date.now()),
      );
    });
    observer.observe(root, { childList: true, subtree: true });
  });
  return async () => {
    const handle = await page.waitForFunction(
      () => (window as unknown as { cardPaintedAt?: number }).cardPaintedAt,
      null,
      {
        timeout: 10_000,
      },
    );
    return (await handle.jsonValue()) as number;
  };
}

/** Waits for the turn's final message bubble. */
export async function turnEnded(page: Page, count = 1, timeout = 30_000): Promise<void> {
  await page
    .locator('aalis-chat .bubble.assistant[data-id]')
    .nth(count - 1)
    .waitFor({ timeout });
}
