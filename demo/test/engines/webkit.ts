/**
 * WebKitGTK (Debian's), the engine of Safari: its MiniBrowser driven by WebKitWebDriver
 * (plain W3C WebDriver, webdriver.ts) on a virtual X display of its own (Xvfb). Each page
 * is a WebDriver session, a MiniBrowser with a fresh, ephemeral profile.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
// @ts-expect-error: a plain script without types.
import { miniBrowserPath, webkitDriverPath, xvfbPath } from '../../../scripts/ensure-engines.mjs';
import { freePort } from '../e2e-harness.js';
import { callSource, type Engine, type EnginePage } from './engine.js';
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
    stdio: ['ignore', 'ignore', process.env.E2E_DEBUG ? 'inherit' : 'ignore'],
  });
  const stop = () => {
    driver.kill();
    xvfb.kill();
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${base}/status`).catch(() => undefined))?.ok === true, 10_000);
    const capabilities = {
      browserName: 'MiniBrowser',
      'webkitgtk:browserOptions': { binary: miniBrowserPath, args: ['--automation'] },
    };
    // A first session for the version, and to fail here, once, when WebKit cannot start.
    const probe = await WebDriverSession.start(base, capabilities);
    const version = `${String(probe.capabilities.browserName)}/${String(probe.capabilities.browserVersion)}`;
    await probe.end();
    return {
      name: 'WebKit',
      version,
      async newPage() {
        const session = await WebDriverSession.start(base, capabilities);
        await session.setWindowSize(1280, 860);
        await session.setScriptTimeout(30_000);
        return webkitPage(session);
      },
      close: async () => stop(),
    };
  } catch (error) {
    stop();
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

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('WebKitWebDriver did not answer in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
