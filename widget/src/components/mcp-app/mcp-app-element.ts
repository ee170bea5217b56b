/**
 * `<aalis-mcp-app>`: a tool's MCP App in the tool's card. Its frame, sandboxed, and the
 * ext-apps bridge that speaks with it are an `AppFrame` (app-frame.ts): the app is given
 * the call's arguments and result, may call its own server's tools through the chat's
 * server, resize its frame within bounds, and ask to open a link, which opens only on the
 * visitor's click.
 *
 * When a turn ends, the chat draws its stored message anew, with a new element for the same
 * call: that one takes the frame over, and the app goes on as it was, without a reload
 * (open-apps.ts). Where the browser cannot move a frame without reloading it (Safari: no
 * `moveBefore`), the new element opens the app again instead, which is given its call again.
 *
 * This module is a file of its own in the script-tag build, loaded by app-slot.ts the
 * first time an app is on screen. It imports nothing from the main file but types: a part
 * that did would name the main file by its address, and a page that loaded
 * `aalis-chat.js?v=2` would load the whole widget a second time.
 */
import type { ToolCallPart } from '@aalis/protocol/client';
import type { AppServices } from './app-host.js';
import { AppFrame, type AppCall } from './app-frame.js';
import { mcpAppStyles } from './mcp-app.styles.js';
import { openAppsOf } from './open-apps.js';

export class AalisMcpApp extends HTMLElement {
  #call: ToolCallPart | undefined;
  #apps: AppServices | undefined;
  /** The app this element shows, while it is this element's: another may have taken it over. */
  #app: AppFrame | undefined;

  constructor() {
    super();
    // Lit may have set them before this file loaded, on the element not yet upgraded.
    for (const key of ['call', 'apps'] as const) {
      if (!Object.hasOwn(this, key)) continue;
      const value: unknown = this[key];
      delete (this as Partial<Record<typeof key, unknown>>)[key];
      (this as Record<typeof key, unknown>)[key] = value;
    }
  }

  /** The tool call whose app this is: a new value with the result sends it to the app. */
  get call(): ToolCallPart | undefined {
    return this.#call;
  }

  set call(part: ToolCallPart | undefined) {
    const before = this.#call;
    this.#call = part;
    // Another call in this place (never expected): its own app, from the start.
    if (before && (part?.callId !== before.callId || part?.app?.resourceUri !== before.app?.resourceUri)) {
      this.#stop();
      this.#start();
    } else if (this.#mine && part?.app) this.#mine.update(part as AppCall);
    else this.#start();
  }

  /** The chat's apps: its words, theme and language, its connection to the server. */
  get apps(): AppServices | undefined {
    return this.#apps;
  }

  set apps(apps: AppServices | undefined) {
    this.#apps = apps;
    this.#start();
  }

  connectedCallback(): void {
    this.#start();
  }

  disconnectedCallback(): void {
    this.#stop();
  }

  /** The app, unless another element took it over. */
  get #mine(): AppFrame | undefined {
    return this.#app?.owner === this ? this.#app : undefined;
  }

  /**
   * Shows the call's app, once everything it needs is there: the one another element of
   * the same call still shows, moved here, or a new one.
   */
  #start(): void {
    const part = this.#call as AppCall | undefined;
    const apps = this.#apps;
    if (this.#mine || !this.isConnected || !part?.app || !apps) return;
    const root = this.shadowRoot ?? this.#makeRoot();
    const open = openAppsOf(apps);
    const earlier = open.get(part.callId);
    if (earlier?.call.app.resourceUri === part.app.resourceUri && earlier.moveTo(this, root)) {
      this.#app = earlier;
      earlier.update(part);
      return;
    }
    this.#app = new AppFrame(this, root, part, apps);
    open.add(part.callId, this.#app);
  }

  #stop(): void {
    const app = this.#mine;
    this.#app = undefined;
    if (!app) return;
    openAppsOf(app.apps).delete(app.call.callId, app);
    app.close();
  }

  #makeRoot(): ShadowRoot {
    const root = this.attachShadow({ mode: 'open' });
    // A constructed sheet where the browser has them: a page's CSP without
    // 'unsafe-inline' for styles does not apply to it.
    if ('adoptedStyleSheets' in Document.prototype && 'replaceSync' in CSSStyleSheet.prototype) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(mcpAppStyles);
      root.adoptedStyleSheets = [sheet];
    } else {
      const style = document.createElement('style');
      style.textContent = mcpAppStyles;
      root.append(style);
    }
    return root;
  }
}

/** Registers the element, once: a second chat on the page, or a second copy of the script, finds it there. */
export function define(): void {
  if (!customElements.get('aalis-mcp-app')) customElements.define('aalis-mcp-app', AalisMcpApp);
}

declare global {
  interface HTMLElementTagNameMap {
    'aalis-mcp-app': AalisMcpApp;
  }
}
