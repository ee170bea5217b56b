/**
 * Tool approvals and tool progress as a visitor meets them: the real demo server on its
 * scripted demo model, the widget's build and page in Debian Chromium. A risky tool
 * (`delete_file`) waits for the visitor's decision in every tab, survives a reload, runs
 * when approved, never runs when denied, and asks once per conversation when allowed for
 * it; a long tool (`build_index`) shows a bar that fills, after a reload too.
 */
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { E2E, SCREENSHOTS, ask, turnEnded } from './e2e-harness.js';

// The demo model's prompts (server/src/providers/demo/scenarios.ts).
const APPROVAL = 'Delete notes.md (a risky tool: you approve it first)';
const PROGRESS = 'Index the knowledge base (a long tool with live progress)';

const e2e = new E2E();
const contexts: BrowserContext[] = [];
beforeAll(() => e2e.startDemoModel());
afterEach(async () => {
  for (const context of contexts.splice(0)) await context.close();
});
afterAll(() => e2e.dispose());

/** A visitor of their own: one browser context, so one localStorage and one session. */
async function visitor(): Promise<BrowserContext> {
  const context = await e2e.browser.newContext({ viewport: { width: 1280, height: 860 } });
  contexts.push(context);
  return context;
}

const card = (page: Page): Locator => page.locator('aalis-chat [part~="approval-card"]');
const answers = (page: Page): Locator => page.locator('aalis-chat .bubble.assistant[data-id]');
const block = (page: Page, callId: string): Locator =>
  page.locator(`aalis-chat .bubble.assistant[data-id] .tool-call-block[data-call-id="${callId}"]`);
const text = async (locator: Locator): Promise<string> =>
  (await locator.innerText()).replace(/\s+/g, ' ').trim();

/** Waits for the approval card and reads it as a visitor does; returns its call id. */
async function readApprovalCard(page: Page, timeout = 5_000): Promise<string> {
  await card(page).waitFor({ timeout });
  expect(await card(page).count()).toBe(1);
  expect(await text(card(page).locator('.approval-title'))).toBe('delete_file asks for approval');
  expect(await card(page).locator('.approval-arguments').innerText()).toContain('"path":"notes.md"');
  expect(await text(card(page).locator('[part~="approve-button"]'))).toBe('Approve');
  expect(await text(card(page).locator('[part~="deny-button"]'))).toBe('Deny');
  expect(await text(card(page).locator('[part~="allow-session-button"]'))).toBe(
    'Allow for this conversation',
  );
  return (await card(page).getAttribute('data-call-id'))!;
}

/** Reloads and waits until the widget is connected again. */
async function reload(page: Page): Promise<void> {
  await page.reload();
  await page.locator('aalis-chat .status[hidden]').waitFor({ state: 'attached' });
}

/** The running tool's progress as shown, or null when no bar shows. */
const readProgress = (page: Page) =>
  page.evaluate(() => {
    const shown = document.querySelector('aalis-chat')!.shadowRoot!.querySelector('[part~="tool-progress"]');
    const bar = shown?.querySelector('progress');
    if (!shown || !bar) return null;
    return {
      value: bar.value,
      max: bar.max,
      message: shown.querySelector('.tool-progress-message')?.textContent?.trim() ?? '',
      count: shown.querySelector('.tool-progress-count')?.textContent?.trim() ?? '',
    };
  });

describe('a risky tool waits for the visitor', () => {
  test('two tabs: both show the card, one approves, both see it run and the answer', async () => {
    const context = await visitor();
    const a = await e2e.page(undefined, context);
    const b = await e2e.page(undefined, context);
    const session = (page: Page) => page.evaluate(() => localStorage.getItem('aalis-chat-session'));
    expect(await session(b)).toBe(await session(a));
    await a.locator('#scenarios button', { hasText: /^Approval$/ }).click();
    const callId = await readApprovalCard(a);
    expect(await readApprovalCard(b)).toBe(callId);
    expect(await text(b.locator('aalis-chat .bubble.user'))).toBe(APPROVAL);
    // From the tab in front: a background tab's screenshot waits for it to come forward.
    await b.locator('aalis-chat').screenshot({ path: `${SCREENSHOTS}approval-card.png` });
    await b.locator('aalis-chat [part~="approve-button"]').click();
    for (const page of [a, b]) {
      await turnEnded(page, 1, 10_000);
      expect(await card(page).count()).toBe(0);
      expect(await block(page, callId).getAttribute('data-status')).toBe('done');
      expect(await text(block(page, callId).locator('.tool-name'))).toBe('delete_file');
      expect(await text(block(page, callId).locator('.tool-status'))).toMatch(/^done · \d+\.\ds$/);
      expect(await answers(page).innerText()).toContain('Deleted notes.md.');
    }
  }, 20_000);

  test('Deny: the block says declined, and the tool never ran', async () => {
    const page = await e2e.page(undefined, await visitor());
    await ask(page, APPROVAL);
    const callId = await readApprovalCard(page);
    await card(page).locator('[part~="deny-button"]').click();
    await turnEnded(page, 1, 10_000);
    expect(await card(page).count()).toBe(0);
    const denied = block(page, callId);
    expect(await denied.getAttribute('data-declined')).toBe('user');
    // It says declined, not failed, and has no duration: it never ran.
    expect(await text(denied.locator('.tool-status'))).toBe('declined');
    await denied.locator('summary').click();
    expect(await text(denied)).toContain('Result The user declined to run this tool call. It was not run.');
    const answer = await answers(page).innerText();
    expect(answer).toContain('I did not delete it');
    expect(answer).not.toContain('Deleted');
  }, 20_000);

  test('a reload while the card waits: the card is back, and approving it there completes the turn', async () => {
    const page = await e2e.page(undefined, await visitor());
    await ask(page, APPROVAL);
    const callId = await readApprovalCard(page);
    await reload(page);
    // Restored from stream_resume: the same call, still waiting.
    expect(await readApprovalCard(page, 2_000)).toBe(callId);
    await card(page).locator('[part~="approve-button"]').click();
    await turnEnded(page, 1, 10_000);
    expect(await card(page).count()).toBe(0);
    expect(await block(page, callId).getAttribute('data-status')).toBe('done');
    expect(await answers(page).innerText()).toContain('Deleted notes.md.');
  }, 20_000);

  test('"Allow for this conversation": the next delete in the conversation asks nothing', async () => {
    const page = await e2e.page(undefined, await visitor());
    await ask(page, APPROVAL);
    const first = await readApprovalCard(page);
    await card(page).locator('[part~="allow-session-button"]').click();
    await turnEnded(page, 1, 10_000);
    expect(await block(page, first).getAttribute('data-status')).toBe('done');
    expect(await answers(page).nth(0).innerText()).toContain('Deleted notes.md.');
    // Watched from inside the page: a card shown for a moment counts too.
    await page.evaluate(() => {
      const root = document.querySelector('aalis-chat')!.shadowRoot!;
      const seen = window as unknown as { cardSeen: boolean };
      seen.cardSeen = false;
      new MutationObserver(() => {
        if (root.querySelector('[part~="approval-card"]')) seen.cardSeen = true;
      }).observe(root, { childList: true, subtree: true });
    });
    await ask(page, APPROVAL);
    await turnEnded(page, 2, 10_000);
    expect(await page.evaluate(() => (window as unknown as { cardSeen: boolean }).cardSeen)).toBe(false);
    const second = answers(page).nth(1);
    const deleted = second.locator('.tool-call-block', { hasText: 'delete_file' });
    expect(await deleted.getAttribute('data-status')).toBe('done');
    expect(await deleted.getAttribute('data-call-id')).not.toBe(first);
    expect(await second.innerText()).toContain('Deleted notes.md.');
  }, 20_000);
});

describe('a long tool shows its progress', () => {
  test('the bar fills, comes back after a reload, and the block ends done with the result', async () => {
    const page = await e2e.page(undefined, await visitor());
    await ask(page, PROGRESS);
    const bar = page.locator('aalis-chat [part~="tool-progress"] progress');
    await bar.waitFor({ timeout: 5_000 });
    const seen = new Set<number>();
    let last = -1;
    // Until the bar has moved at least once (by 0.6 s to 1.2 s of its 3.6 s): time for a reload.
    const started = Date.now();
    while (seen.size < 2) {
      expect(Date.now() - started, `values seen: ${[...seen].join(', ')}`).toBeLessThan(3_000);
      const shown = await readProgress(page);
      expect(shown).not.toBeNull();
      expect(shown!.max).toBe(6);
      expect(shown!.count).toBe(`${shown!.value} / 6`);
      expect(shown!.message).toMatch(/^Indexing \S+$/);
      expect(shown!.value).toBeGreaterThanOrEqual(last);
      seen.add((last = shown!.value));
      // The next reading after the next painted frame.
      await page.evaluate(() => new Promise(requestAnimationFrame));
    }
    await page.locator('aalis-chat').screenshot({ path: `${SCREENSHOTS}tool-progress.png` });
    const before = (await readProgress(page))!.value;
    expect(before).toBeLessThan(6);
    await reload(page);
    // Restored from stream_resume: the bar, no lower than before.
    await bar.waitFor({ timeout: 2_000 });
    const after = (await readProgress(page))!;
    expect(after.value).toBeGreaterThanOrEqual(before);
    expect(after.count).toBe(`${after.value} / 6`);
    expect(after.message).toMatch(/^(Indexing \S+|Done)$/);
    await turnEnded(page, 1, 10_000);
    expect(await readProgress(page)).toBeNull();
    const done = page.locator('aalis-chat .bubble.assistant[data-id] .tool-call-block', {
      hasText: 'build_index',
    });
    expect(await done.getAttribute('data-status')).toBe('done');
    await done.locator('summary').click();
    expect(await done.innerText()).toMatch(/Result[\s\S]*"indexed": 6,\s*"documents": 252/);
    expect(await answers(page).innerText()).toContain('Indexed 6 sources (252 documents).');
  }, 20_000);
});
