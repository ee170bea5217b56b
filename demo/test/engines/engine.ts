/**
 * One browser engine as the cross-engine tests see it: pages to load, scripts to run in
 * them, trusted keys and clicks. Chromium (playwright-core), Firefox (puppeteer-core over
 * WebDriver BiDi) and WebKit (WebKitWebDriver) each implement it, so that one suite of
 * tests runs unchanged in all three.
 */

export type EngineName = 'Chromium' | 'Firefox' | 'WebKit';

/** Keys the tests press; each engine maps them to its own names. */
export type Key = 'Enter' | 'Escape' | 'Tab';

export interface EnginePage {
  goto(url: string): Promise<void>;
  reload(): Promise<void>;
  /** Runs `fn` in the page with JSON `args`; resolves with its result, awaited. */
  evaluate<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): Promise<Awaited<R>>;
  /** Presses and releases a key, as a user does, in the focused element. */
  press(key: Key): Promise<void>;
  /** Types text, key by key, into the focused element. */
  type(text: string): Promise<void>;
  /** A mouse click at a point of the viewport. */
  click(x: number, y: number): Promise<void>;
  screenshot(path: string): Promise<void>;
  close(): Promise<void>;
}

/** A page's size in CSS pixels. */
export interface Viewport {
  width: number;
  height: number;
}

/** The size of a page unless a test asks for another. */
export const DESKTOP: Viewport = { width: 1280, height: 860 };

export interface Engine {
  name: EngineName;
  /** The browser's own version string, as its driver reports it. */
  version: string;
  /** A page in a fresh profile (its own storage, so its own session), `viewport` in size. */
  newPage(viewport?: Viewport): Promise<EnginePage>;
  close(): Promise<void>;
}

/** `fn` called with `args`, as source text for an engine to evaluate. */
export const callSource = (fn: (...args: never[]) => unknown, args: unknown[]): string =>
  `(${fn.toString()})(...${JSON.stringify(args)})`;

/**
 * In the page: calls `check` every 20 ms until it returns something truthy, and gives that
 * back; null after `ms`. One round trip to the browser, however long it looks.
 */
const watchInPage = (check: () => unknown, ms: number) =>
  new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const look = () => {
      let value: unknown;
      try {
        value = check();
      } catch (error) {
        return reject(error as Error);
      }
      if (value) resolve(value);
      else if (Date.now() >= deadline) resolve(null);
      else setTimeout(look, 20);
    };
    look();
  });

/**
 * A function for `evaluate` written as source text here: the check goes into the script
 * the driver runs, since the pages' Content-Security-Policy forbids eval in them.
 */
const sourced = (source: string) => ({ toString: () => source }) as unknown as () => unknown;

/** No single look in the page lasts longer (WebKit's script timeout is 20 s). */
const LOOK_MS = 5_000;

/**
 * Waits in the page until `fn` returns something truthy, and gives that back; fails with
 * `what` after `timeout` ms.
 */
export async function waitFor<A extends unknown[], R>(
  page: EnginePage,
  what: string,
  fn: (...args: A) => R,
  args: A,
  timeout = 10_000,
): Promise<Awaited<R>> {
  const deadline = Date.now() + timeout;
  const check = callSource(fn as (...args: never[]) => unknown, args);
  for (;;) {
    const ms = Math.min(Math.max(0, deadline - Date.now()), LOOK_MS);
    const value = await page.evaluate(sourced(`() => (${watchInPage.toString()})(() => ${check}, ${ms})`));
    if (value) return value as Awaited<R>;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
  }
}
