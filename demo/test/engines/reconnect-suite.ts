/**
 * The widget's reconnect loop in each engine, on a page embedding it from another origin
 * (the examples' plain page), its socket going through a proxy that fails on command
 * (flaky-proxy.ts): a server unreachable at first, sockets cut, a handshake that never
 * ends. Each failure is made to happen at a chosen attempt, so no test depends on luck;
 * none may end the retrying. Only the server refusing the page's origin does, and then
 * nothing is tried again.
 */
import { expect, test } from 'vitest';
import { textAnswer } from '../../../server/test/fake-upstream.js';
import { freePort, type E2E } from '../e2e-harness.js';
import { waitFor, type EnginePage } from './engine.js';
import { startFlakyProxy, type FlakyProxy } from './flaky-proxy.js';

/** What the smoke suite lends these tests: its server, its pages and its clean-up. */
export interface SuiteParts {
  e2e: E2E;
  /** A fresh page on `url`, once `ready` holds in it. */
  open(url: string, ready: () => unknown): Promise<EnginePage>;
  /** The examples from an origin of their own, their chat pointed at `chatServer`. */
  examplesSite(chatServer: string): Promise<{ url: string }>;
  /** Types into the chat and sends, as a user does. */
  ask(page: EnginePage, text: string): Promise<void>;
  /** Done after the test, whatever its outcome. */
  defer(close: () => Promise<void>): void;
}

// In-page helpers: each runs in the browser, so it names everything it uses itself.

/** The chat's state as it says it (connectionState), and how many times it connected since `countConnects`. */
const connection = () => {
  const el = document.querySelector('aalis-chat') as (HTMLElement & { connectionState?: string }) | null;
  const status = el?.shadowRoot?.querySelector('.status');
  return {
    state: el?.connectionState ?? '',
    shown: status?.getAttribute('data-state') ?? '',
    text: status?.textContent?.replace(/\s+/g, ' ').trim() ?? '',
    connects: (window as unknown as { connects?: number }).connects ?? 0,
  };
};

/** Counts the chat's connects from now on, in `window.connects`. */
const countConnects = () => {
  const counted = window as unknown as { connects: number };
  counted.connects = 0;
  document.querySelector('aalis-chat')!.addEventListener('aalis-connection-change', (event) => {
    if ((event as CustomEvent<{ state: string }>).detail.state === 'connected') counted.connects++;
  });
  return true;
};

const isConnected = () =>
  (document.querySelector('aalis-chat') as (HTMLElement & { connectionState?: string }) | null)
    ?.connectionState === 'connected';

const answers = () =>
  document.querySelector('aalis-chat')!.shadowRoot!.querySelectorAll('.bubble.assistant[data-id]').length;

/** The network back, as the browser says it when a route comes up again. */
const online = () => window.dispatchEvent(new Event('online'));

/** Polls `check` here, in the test, every 20 ms; fails with `what` after `ms`. */
async function until(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export function reconnectTests(parts: SuiteParts): void {
  const { e2e } = parts;

  /** The proxy in front of the chat server (started later, on `e2e.port`), and the page's site behind it. */
  async function proxied(
    allowed: 'site' | 'elsewhere',
  ): Promise<{ proxy: FlakyProxy; site: { url: string } }> {
    e2e.port ||= await freePort();
    const proxy = await startFlakyProxy({ host: '127.0.0.1', port: e2e.port });
    parts.defer(() => proxy.close());
    const site = await parts.examplesSite(proxy.url);
    const origins = allowed === 'site' ? site.url : 'https://somewhere-else.example';
    await e2e.startWithoutBrowser([{ body: textAnswer('Back again.') }], { AALIS_ALLOWED_ORIGINS: origins });
    return { proxy, site };
  }

  test('a server unreachable at first (reset, 502, reset): the chat keeps trying, connects and answers', async () => {
    const { proxy, site } = await proxied('site');
    proxy.fail('reset', 'bad-gateway', 'reset');
    // Three failed attempts: the backoff's waits add up to 3.5 s at most.
    const page = await parts.open(site.url, isConnected);
    expect(proxy.upgrades.slice(0, 4)).toEqual(['reset', 'bad-gateway', 'reset', 'pass']);
    await parts.ask(page, 'are you there?');
    await waitFor(page, 'the answer', answers, []);
  }, 60_000);

  test('a socket cut three times, once in the middle of its hello: reconnects each time and answers', async () => {
    const { proxy, site } = await proxied('site');
    const page = await parts.open(site.url, isConnected);
    await page.evaluate(countConnects);
    for (const [n, midHello] of [false, true, false].entries()) {
      const before = proxy.upgrades.length;
      // The next attempt is cut too, once its hello is through: the one after gets in.
      if (midHello) proxy.fail('cut-after-open');
      proxy.cutAll();
      await until('a new attempt', () => proxy.upgrades.length > before + (midHello ? 1 : 0));
      const back = (connects: number) =>
        (document.querySelector('aalis-chat') as HTMLElement & { connectionState?: string })
          .connectionState === 'connected' &&
        ((window as unknown as { connects?: number }).connects ?? 0) >= connects;
      await waitFor(page, `connected again (${n + 1})`, back, [n + 1]);
    }
    await parts.ask(page, 'still there?');
    await waitFor(page, 'the answer', answers, []);
  }, 60_000);

  test('a handshake that never ends says Connecting, and the network coming back starts a fresh one', async () => {
    const { proxy, site } = await proxied('site');
    // Neither open nor close: what a stuck proxy gives, and what a page sees of an engine
    // that reports `error` without `close` (the widget gives such an attempt up after 15 s).
    proxy.fail('hang');
    const page = await parts.open(site.url, () => true);
    await until('the first attempt', () => proxy.upgrades.length === 1);
    const stuck = await page.evaluate(connection);
    expect(stuck.state).toBe('connecting');
    expect(stuck.text).not.toContain('Offline');
    await page.evaluate(online);
    await waitFor(page, 'connected', isConnected, []);
    expect(proxy.upgrades).toEqual(['hang', 'pass']);
    await parts.ask(page, 'hello?');
    await waitFor(page, 'the answer', answers, []);
  }, 60_000);

  test('an origin the server refuses: the refusal shows, and nothing is tried again, even once online', async () => {
    const { proxy, site } = await proxied('elsewhere');
    const page = await parts.open(site.url, () => true);
    const refused = () =>
      document.querySelector('aalis-chat')?.shadowRoot?.querySelector('.status.refused')?.textContent ?? '';
    expect(await waitFor(page, 'the refusal', refused, [])).toContain("does not allow this page's address");
    const seen = proxy.upgrades.length;
    await page.evaluate(online);
    // Proving that nothing happens takes real time: an attempt `online` started would
    // reach the proxy within milliseconds; half a second is many times that.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // One more at most: an attempt the backoff had started as the refusal came back.
    expect(proxy.upgrades.length).toBeLessThanOrEqual(seen + 1);
    const after = await page.evaluate(connection);
    expect(after.state).toBe('offline');
    expect(after.text).toContain("does not allow this page's address");
    expect(after.text).not.toContain('Retry');
  }, 60_000);
}
