/**
 * The demo's first screen, as `npm start` serves it (its own configuration, with the
 * reference MCP server), in Debian Chromium: at 1280×800 the composer, the welcome, the
 * starters and the scenario buttons show without scrolling; on a 390×844 phone the chat
 * comes first with equal margins and nothing scrolls sideways; every scenario button does
 * what it says (the MCP one runs the MCP server's tool).
 *
 * The screenshots of these screens are the README's (`npm run screenshots` writes them);
 * beside them `demo-first-screen.json` keeps where each part of the page sits. A change
 * of the layout without new screenshots fails here, so the pictures never go stale.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { E2E, SCREENSHOTS, turnEnded } from './e2e-harness.js';

const root = new URL('../..', import.meta.url).pathname;
const LAYOUT_FILE = `${root}docs/screenshots/demo-first-screen.json`;
const VIEWPORTS = { wide: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
/** The parts of the page whose place is recorded, by selector (Playwright's pierce the shadow root). */
const PARTS = {
  header: '.site-header',
  hero: '.hero h1',
  scenarios: '#scenarios',
  chat: 'aalis-chat',
  welcome: 'aalis-chat [part="welcome"]',
  starters: 'aalis-chat .starters',
  composer: 'aalis-chat textarea',
};

const e2e = new E2E();
beforeAll(() => e2e.startDemoModel({ AALIS_CONFIG: `${root}demo/aalis.demo.json` }), 60_000);
afterAll(() => e2e.dispose());

async function open(viewport: { width: number; height: number }): Promise<Page> {
  const context = await e2e.browser.newContext({ viewport });
  const page = await context.newPage();
  await page.goto(e2e.demo.url);
  await page.locator('aalis-chat .status[hidden]').waitFor({ state: 'attached' });
  await page.locator('aalis-chat .starters').waitFor();
  await page.locator('#scenarios button').first().waitFor();
  return page;
}

type Box = { x: number; y: number; width: number; height: number };
async function boxes(page: Page): Promise<Record<string, Box>> {
  const found: Record<string, Box> = {};
  for (const [name, selector] of Object.entries(PARTS)) {
    const box = await page.locator(selector).first().boundingBox();
    if (box) found[name] = Object.fromEntries(Object.entries(box).map(([k, v]) => [k, Math.round(v)])) as Box;
  }
  return found;
}

/**
 * The screenshots are current: the parts sit where they sat when the screenshots were
 * taken (a few pixels of tolerance for text rendering). `npm run screenshots` records them.
 */
function expectRecordedLayout(viewport: keyof typeof VIEWPORTS, found: Record<string, Box>): void {
  const recorded = existsSync(LAYOUT_FILE)
    ? (JSON.parse(readFileSync(LAYOUT_FILE, 'utf8')) as Record<string, Record<string, Box>>)
    : {};
  if (process.env.UPDATE_SCREENSHOTS) {
    writeFileSync(LAYOUT_FILE, `${JSON.stringify({ ...recorded, [viewport]: found }, null, 2)}\n`);
    return;
  }
  expect(recorded[viewport], `no layout recorded for ${viewport}: run npm run screenshots`).toBeTruthy();
  for (const [name, box] of Object.entries(recorded[viewport]!)) {
    for (const key of ['x', 'y', 'width', 'height'] as const) {
      const now = found[name]?.[key];
      expect(
        now !== undefined && Math.abs(now - box[key]) <= 4,
        `${viewport} ${name}.${key} was ${box[key]}, is ${now}: the demo's layout changed, run npm run screenshots`,
      ).toBe(true);
    }
  }
}

describe('the demo at 1280×800 and on a 390×844 phone', () => {
  test('wide: the composer, the welcome, the starters and the scenarios, all without scrolling', async () => {
    const page = await open(VIEWPORTS.wide);
    const found = await boxes(page);
    for (const name of ['composer', 'welcome', 'starters', 'scenarios'] as const) {
      const box = found[name]!;
      expect(box, name).toBeTruthy();
      expect(box.y + box.height, `${name} ends within the first screen`).toBeLessThanOrEqual(800);
      expect(box.x + box.width, `${name} within the width`).toBeLessThanOrEqual(1280);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(1280);
    await page.screenshot({ path: `${SCREENSHOTS}demo-page.png` });
    expectRecordedLayout('wide', found);
    await page.context().close();
  }, 30_000);

  test('phone: the chat first, centred with equal margins, the copy naming no side', async () => {
    const page = await open(VIEWPORTS.phone);
    const found = await boxes(page);
    const chat = found.chat!;
    const right = 390 - (chat.x + chat.width);
    expect(Math.abs(chat.x - right), `margins ${chat.x} and ${right}`).toBeLessThanOrEqual(1);
    expect(chat.x).toBeGreaterThanOrEqual(8);
    expect(found.composer!.y + found.composer!.height).toBeLessThanOrEqual(844);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    expect(await page.locator('main').innerText()).not.toMatch(/on the (right|left)/i);
    await page.screenshot({ path: `${SCREENSHOTS}demo-phone.png` });
    expectRecordedLayout('phone', found);
    await page.context().close();
  }, 30_000);
});

describe('every scenario button does what it says', () => {
  test('"MCP tool" runs the MCP server\'s long operation, with its progress, and reports its answer', async () => {
    const page = await open(VIEWPORTS.wide);
    await page.locator('#scenarios button', { hasText: 'MCP tool' }).click();
    await turnEnded(page, 1, 30_000);
    const answer = await page.locator('aalis-chat .bubble.assistant[data-id]').last().innerText();
    expect(answer).not.toContain('No MCP server');
    expect(answer).toContain('trigger-long-running-operation');
    expect(answer).toContain('The MCP server answered');
    await page.context().close();
  }, 45_000);
});
