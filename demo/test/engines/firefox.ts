/**
 * Firefox ESR (Debian's), headless, driven by puppeteer-core over WebDriver BiDi: the
 * one way to drive a stock Firefox from Node 20 (Playwright needs its own patched build).
 */
import puppeteer, { type Page } from 'puppeteer-core';
// @ts-expect-error: a plain script without types.
import { firefoxPath } from '../../../scripts/ensure-engines.mjs';
import { DESKTOP, callSource, type Engine, type EnginePage } from './engine.js';

export async function launchFirefox(): Promise<Engine> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: firefoxPath as string,
    headless: true,
    // Nothing but the pages under test: no updates, no telemetry, no first-run pages.
    extraPrefsFirefox: {
      'app.update.enabled': false,
      'browser.shell.checkDefaultBrowser': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      'network.captive-portal-service.enabled': false,
    },
  });
  return {
    name: 'Firefox',
    version: await browser.version(),
    async newPage(viewport = DESKTOP) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await page.setViewport(viewport);
      return firefoxPage(page, () => context.close());
    },
    close: () => browser.close(),
  };
}

function firefoxPage(page: Page, close: () => Promise<void>): EnginePage {
  return {
    goto: async (url) => void (await page.goto(url)),
    reload: async () => void (await page.reload()),
    evaluate: (fn, ...args) => page.evaluate(callSource(fn, args)) as never,
    press: (key) => page.keyboard.press(key),
    type: (text) => page.keyboard.type(text),
    click: (x, y) => page.mouse.click(x, y),
    screenshot: async (path) => void (await page.screenshot({ path: path as `${string}.png` })),
    close,
  };
}
