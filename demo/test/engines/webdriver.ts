/**
 * The W3C WebDriver commands the cross-engine tests use, over HTTP: a session, a page,
 * scripts, keys and pointer actions, a screenshot. WebKitGTK is driven this way (its
 * `WebKitWebDriver` speaks plain WebDriver). Written here, not taken from a client
 * library: a handful of commands of JSON over `fetch` read more plainly than a framework,
 * and the maintained clients (selenium-webdriver 4.48+, webdriver 10) need Node 22.
 * https://www.w3.org/TR/webdriver2/
 */

/** A WebDriver error (`value.error`, e.g. "javascript error"), with the driver's message. */
export class WebDriverError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`WebDriver ${code}: ${message}`);
  }
}

/** Keys by their WebDriver code points (the spec's "keyboard actions" table). */
export const KEYS: Record<string, string> = {
  // U+E006 is the main Enter key (Return); U+E007 would be the keypad's.
  Enter: '\uE006',
  Escape: '\uE00C',
  Tab: '\uE004',
  Shift: '\uE008',
  Backspace: '\uE003',
};

export class WebDriverSession {
  private constructor(
    private readonly base: string,
    readonly id: string,
    readonly capabilities: Record<string, unknown>,
  ) {}

  /** Starts a session on the driver at `base` (http://127.0.0.1:PORT). */
  static async start(
    base: string,
    alwaysMatch: Record<string, unknown>,
    timeoutMs = ANSWER_MS,
  ): Promise<WebDriverSession> {
    const body = { capabilities: { alwaysMatch } };
    const value = (await call(base, 'POST', '/session', body, timeoutMs)) as {
      sessionId: string;
      capabilities: Record<string, unknown>;
    };
    return new WebDriverSession(base, value.sessionId, value.capabilities);
  }

  #command(method: string, path: string, body?: unknown): Promise<unknown> {
    return call(this.base, method, `/session/${this.id}${path}`, body);
  }

  navigate(url: string): Promise<unknown> {
    return this.#command('POST', '/url', { url });
  }

  refresh(): Promise<unknown> {
    return this.#command('POST', '/refresh', {});
  }

  setWindowSize(width: number, height: number): Promise<unknown> {
    return this.#command('POST', '/window/rect', { width, height });
  }

  /** How long a script and a page load may take before the driver gives up. */
  setTimeouts(script: number, pageLoad: number): Promise<unknown> {
    return this.#command('POST', '/timeouts', { script, pageLoad });
  }

  /** Runs `script` (a function body; `arguments` are `args`); its result is what it passes to its last argument. */
  executeAsync(script: string, args: unknown[] = []): Promise<unknown> {
    return this.#command('POST', '/execute/async', { script, args });
  }

  /** Presses and releases each key in turn (characters, or `KEYS` values), to the focused element. */
  async keys(keys: string[]): Promise<void> {
    const actions = keys.flatMap((value) => [
      { type: 'keyDown', value },
      { type: 'keyUp', value },
    ]);
    await this.#command('POST', '/actions', { actions: [{ type: 'key', id: 'keyboard', actions }] });
  }

  /** A mouse click at a point of the viewport (CSS pixels). */
  async click(x: number, y: number): Promise<void> {
    await this.#command('POST', '/actions', {
      actions: [
        {
          type: 'pointer',
          id: 'mouse',
          parameters: { pointerType: 'mouse' },
          actions: [
            { type: 'pointerMove', x: Math.round(x), y: Math.round(y), origin: 'viewport' },
            { type: 'pointerDown', button: 0 },
            { type: 'pointerUp', button: 0 },
          ],
        },
      ],
    });
  }

  /** The viewport as a PNG. */
  async screenshot(): Promise<Buffer> {
    return Buffer.from((await this.#command('GET', '/screenshot')) as string, 'base64');
  }

  async end(): Promise<void> {
    await this.#command('DELETE', '').catch(() => {});
  }
}

/** No command waits longer than this for the driver's answer (it has its own timeouts below it). */
const ANSWER_MS = 30_000;

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = ANSWER_MS,
): Promise<unknown> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      signal: AbortSignal.timeout(timeoutMs),
      headers: body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    text = await response.text();
  } catch (error) {
    // Which command hung or failed, not only that a fetch did.
    throw new WebDriverError('no answer', `${method} ${path}: ${String(error)}`);
  }
  let value: unknown;
  try {
    ({ value } = JSON.parse(text) as { value: unknown });
  } catch {
    throw new WebDriverError('invalid response', `${response.status} ${text.slice(0, 200)}`);
  }
  const error = value as { error?: string; message?: string } | null;
  if (!response.ok || error?.error) {
    throw new WebDriverError(error?.error ?? String(response.status), error?.message ?? text.slice(0, 200));
  }
  return value;
}
