/** Chromium (Debian's), driven by playwright-core as in the other end-to-end tests. */
import { chromium, type Page } from 'playwright-core';
// @ts-expect-error: a plain script without types.
import { chromiumArgs, ensureChromium } from '../../../scripts/ensure-chromium.mjs';
import { DESKTOP, callSource, type Engine, type EnginePage } from './engine.js';

export async function launchChromium(): Promise<Engine> {
  const browser = await chromium.launch({ executablePath: ensureChromium() as string, args: chromiumArgs });
  return {
    name: 'Chromium',
    version: browser.version(),
    async newPage(viewport = DESKTOP) {
      const context = await browser.newContext({ viewport });
      return chromiumPage(await context.newPage(), () => context.close());
    },
    close: () => browser.close(),
  };
}

function chromiumPage(page: Page, close: () => Promise<void>): EnginePage {
  return {
    goto: async (url) => void (await page.goto(url)),
    reload: async () => void (await page.reload()),
    evaluate: (fn, ...args) => page.evaluate(callSource(fn, args)),
    press: (key) => page.keyboard.press(key),
    type: (text) => page.keyboard.type(text),
    click: (x, y) => page.mouse.click(x, y),
    screenshot: async (path) => void (await page.screenshot({ path })),
    close,
  };
}
