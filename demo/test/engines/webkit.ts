/**
 * WebKitGTK (Debian's), the engine of Safari: its MiniBrowser driven by WebKitWebDriver
 * (plain W3C WebDriver, webdriver.ts) on a virtual X display of its own (Xvfb). Each page
 * is a WebDriver session, a MiniBrowser with a fresh, ephemeral profile.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
// @ts-expect-error: a plain script without types.
import { miniBrowserPath, webkitDriverPath, xvfbPath } from '../../../scripts/ensure-engines.mjs';
import { freePort } from '../e2e-harness.js';
import { DESKTOP, callSource, type Engine, type EnginePage } from './engine.js';
import { KEYS, WebDriverSession } from './webdriver.js';

export async function launchWebKit(): Promise<Engine> {
  const { xvfb, display } = await startXvfb();
  const port = await freePort();
  const driver = spawn(webkitDriverPath as string, [`--port=${port}`, '--host=127.0.0.1'], {
    env: {
      ...process.env,
      DISPLAY: display,
      // As root in a container WebKit's bubblewrap sandbox cannot start; the tests load
      // only pages of their own on loopback.
      WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS: '1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // The end of what the driver said, for the error when it cannot start.
  let said = '';
  driver.stderr!.on('data', (chunk: Buffer) => {
    said = (said + chunk.toString()).slice(-2_000);
    if (process.env.E2E_DEBUG) process.stderr.write(chunk);
  });
  const exited = new Promise<never>((_, reject) => {
    driver.once('error', reject);
    driver.once('exit', (code) => reject(new Error(`WebKitWebDriver exited (${code}): ${said}`)));
  });
  exited.catch(() => {});
  const stop = async () => {
    if (driver.exitCode === null) {
      driver.kill();
      await once(driver, 'exit');
    }
    xvfb.kill();
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    await Promise.race([exited, answering(`${base}/status`, 10_000)]);
    const capabilities = {
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: miniBrowserPath, args: ['--automation'] },
    };
    // A MiniBrowser starts in a second or two. A session not started in 20 s is asked for
    // once more: the suite's first WebKit page once hung for a minute on a loaded machine.
    const session = () =>
      WebDriverSession.start(base, capabilities, 20_000).catch(() =>
        WebDriverSession.start(base, capabilities, 20_000),
      );
    // The first session: for the version, to fail here when WebKit cannot start, and
    // then as the first page.
    let spare: WebDriverSession | undefined = await session();
    const version = `${String(spare.capabilities.browserName)}/${String(spare.capabilities.browserVersion)}`;
    return {
      name: 'WebKit',
      version,
      async newPage(viewport = DESKTOP) {
        const page = spare ?? (await session());
        spare = undefined;
        await page.setWindowSize(viewport.width, viewport.height);
        await page.setTimeouts(20_000, 20_000);
        return webkitPage(page);
      },
      close: async () => {
        await spare?.end();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function webkitPage(session: WebDriverSession): EnginePage {
  return {
    goto: async (url) => void (await session.navigate(url)),
    reload: async () => void (await session.refresh()),
    async evaluate(fn, ...args) {
      // Async: the function may return a promise; errors come back as values to rethrow.
      const outcome = (await session.executeAsync(
        `const done = arguments[arguments.length - 1];
         Promise.resolve().then(() => ${callSource(fn, args)}).then(
           (value) => done({ value: value === undefined ? null : value }),
           (error) => done({ error: String(error && error.stack || error) }),
         );`,
      )) as { value?: unknown; error?: string };
      if (outcome.error !== undefined) throw new Error(`in the page: ${outcome.error}`);
      return outcome.value as never;
    },
    press: (key) => session.keys([KEYS[key]!]),
    type: (text) => session.keys([...text]),
    click: (x, y) => session.click(x, y),
    screenshot: async (path) => writeFileSync(path, await session.screenshot()),
    close: () => session.end(),
  };
}

/** An X server on a free display number (Xvfb picks it and writes it to a pipe). */
async function startXvfb(): Promise<{ xvfb: ChildProcess; display: string }> {
  const xvfb = spawn(
    xvfbPath as string,
    ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] },
  );
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('Xvfb gave no display in 10 s')), 10_000);
    xvfb.stdio[3]!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (!text.includes('\n')) return;
      clearTimeout(timer);
      resolve(`:${text.trim()}`);
    });
    xvfb.once('error', reject);
    xvfb.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}) before it gave a display`));
    });
  }).catch((error: unknown) => {
    xvfb.kill();
    throw error;
  });
  return { xvfb, display };
}

/** Resolves once `url` answers 2xx; rejects after `timeoutMs`. */
async function answering(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) }).catch(() => undefined);
    if (response?.ok) return;
    if (Date.now() > deadline) throw new Error(`WebKitWebDriver did not answer in ${timeoutMs} ms`);
    // The driver says nothing when it is up: asking it again is the only way to know.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
