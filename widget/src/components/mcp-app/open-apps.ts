/**
 * The MCP Apps open in one chat, by their call's id, and what tells them that their host
 * changed.
 *
 * By call id: when a turn ends, the chat draws its stored message anew (another template
 * at another place than the live turn's), with a new `<aalis-mcp-app>` for the same call.
 * Lit puts the new element in before it takes the old one out: the new one finds the
 * frame here, still in the page, and takes it over (mcp-app-element.ts).
 *
 * Host changes: what an app is told of its host (hostContext() in app-bridge-host.ts) follows
 * the chat's `locale` and `theme`, the system's colour scheme, and the page's tokens. So
 * every open app is told again when the chat renders with another locale or theme, when
 * the colour scheme changes, and when the page changes an attribute of the chat, `<html>`
 * or `<body>`: where sites switch themes (a class, `data-theme`, a style). ext-apps sends
 * an app only what changed, and nothing when nothing did (AppFrame.hostChanged).
 */
import type { ReactiveController } from 'lit';
import type { AppServices } from './app-host.js';
import type { AppFrame } from './app-frame.js';

/**
 * One list for the page: a listener comes off only the MediaQueryList it went on, and each
 * `matchMedia()` call makes a new one. This file loads only in a browser, with an app.
 */
const darkScheme = matchMedia('(prefers-color-scheme: dark)');

class OpenApps implements ReactiveController {
  readonly #byCall = new Map<string, AppFrame>();
  readonly #observer = new MutationObserver(() => this.#changed());
  /** The chat's locale and theme when its apps were last told. */
  #seen = '';

  constructor(private readonly apps: AppServices) {}

  /** The app open for the call, if any: it may be another element's, about to go. */
  get(callId: string): AppFrame | undefined {
    return this.#byCall.get(callId);
  }

  add(callId: string, app: AppFrame): void {
    if (!this.#byCall.size) this.#watch();
    this.#byCall.set(callId, app);
  }

  /** The app closed: forgotten, unless the call's app is another one by now. */
  delete(callId: string, app: AppFrame): void {
    if (this.#byCall.get(callId) !== app) return;
    this.#byCall.delete(callId);
    if (!this.#byCall.size) this.#unwatch();
  }

  /** After each render of the chat: its locale or theme may be new. */
  hostUpdated(): void {
    const seen = this.#chatState();
    if (seen === this.#seen) return;
    this.#seen = seen;
    this.#changed();
  }

  #chatState(): string {
    return `${this.apps.locale} ${this.apps.host.theme}`;
  }

  #watch(): void {
    const chat = this.apps.host;
    this.#seen = this.#chatState();
    chat.addController(this);
    for (const element of [chat, document.documentElement, document.body])
      if (element) this.#observer.observe(element, { attributes: true });
    darkScheme.addEventListener('change', this.#changed);
  }

  #unwatch(): void {
    this.apps.host.removeController(this);
    this.#observer.disconnect();
    darkScheme.removeEventListener('change', this.#changed);
  }

  readonly #changed = () => {
    for (const app of this.#byCall.values()) app.hostChanged();
  };
}

const open = new WeakMap<AppServices, OpenApps>();

/** The open apps of one chat, listed when the first one opens. */
export function openAppsOf(apps: AppServices): OpenApps {
  let list = open.get(apps);
  if (!list) open.set(apps, (list = new OpenApps(apps)));
  return list;
}
