/**
 * `<aalis-mcp-app>`: a tool's MCP App in the tool's card. The app's HTML comes from the
 * chat's server (`/mcp-apps`, with its strict CSP) into a frame sandboxed to
 * `allow-scripts` only: its origin is opaque, so it cannot read the page's cookies,
 * storage or DOM, open a window, or navigate the page. It speaks to the chat through the
 * ext-apps bridge (app-bridge-host.ts): it is given the call's arguments and result, may
 * call its own server's tools through the chat's server, resize its frame within bounds,
 * and ask to open a link, which opens only on the visitor's click.
 *
 * This module is a file of its own in the script-tag build, loaded by app-slot.ts the
 * first time an app is on screen. It imports nothing from the main file but types: a part
 * that did would name the main file by its address, and a page that loaded
 * `aalis-chat.js?v=2` would load the whole widget a second time.
 */
import type { ToolCallPart } from '@aalis/protocol/client';
import type { AppWords } from '../../i18n/app-words.js';
import type { AppServices } from './app-host.js';
import { connectBridge, hostContext, toolCallsOf, type HostBridge } from './app-bridge-host.js';
import { appWordsFor } from './app-words.js';
import { mcpAppStyles } from './mcp-app.styles.js';
import { toolArguments, toolResult } from './tool-result.js';

/** A link the app asked to open, waiting for the visitor's answer. */
interface LinkQuestion {
  row: HTMLElement;
  answer(opened: boolean): void;
}

/**
 * One list for the page: a listener comes off only the MediaQueryList it went on, and each
 * `matchMedia()` call makes a new one. This file loads only in a browser, with an app.
 */
const darkScheme = matchMedia('(prefers-color-scheme: dark)');

export class AalisMcpApp extends HTMLElement {
  #call: ToolCallPart | undefined;
  #apps: AppServices | undefined;
  #frame: HTMLIFrameElement | undefined;
  #bridge: HostBridge | undefined;
  /** The app said it is ready (`ui/notifications/initialized`): it may be sent the call. */
  #initialized = false;
  /** The call's outcome (result, or cancellation) went to the app since it was ready. */
  #outcomeSent = false;
  #link: LinkQuestion | undefined;

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
    } else if (!this.#bridge) this.#start();
    else this.#sendOutcome();
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

  /** Builds the frame and its bridge, once everything they need is there. */
  #start(): void {
    const part = this.#call;
    const apps = this.#apps;
    if (this.#bridge || !this.isConnected || !part?.app || !apps) return;
    const root = this.shadowRoot ?? this.#makeRoot();
    const { serverName, resourceUri } = part.app;
    const frame = document.createElement('iframe');
    // Scripts only: never same-origin (the app would be the chat's server's page), popups,
    // forms or top navigation.
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.setAttribute('part', 'mcp-app-frame');
    frame.setAttribute('loading', 'lazy');
    frame.title = wordsOf(apps).frameTitle(part.name, serverName);
    root.prepend(frame);
    this.#frame = frame;
    this.#initialized = false;
    const maxHeight = parseFloat(getComputedStyle(frame).maxHeight);
    this.#bridge = connectBridge(frame, hostContext(this, apps, maxHeight), {
      callTool: (name, args) => toolCallsOf(apps).call(part.callId, name, args),
      openLink: (url) => this.#askToOpen(url),
      resize: (height) => (frame.style.height = `${Math.max(0, Math.ceil(height))}px`),
      initialized: () => this.#ready(),
    });
    // The source is set once the bridge listens: nothing the app says is missed.
    const query = `mcp-apps?server=${encodeURIComponent(serverName)}&uri=${encodeURIComponent(resourceUri)}`;
    frame.src = new URL(query, apps.serverBase()).href;
    darkScheme.addEventListener('change', this.#schemeChanged);
  }

  #stop(): void {
    darkScheme.removeEventListener('change', this.#schemeChanged);
    this.#link?.answer(false);
    void this.#bridge?.close();
    this.#bridge = undefined;
    this.#frame?.remove();
    this.#frame = undefined;
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

  /** The app is ready: it gets the call's input, and its outcome once there is one. */
  #ready(): void {
    this.#initialized = true;
    this.#outcomeSent = false;
    if (!this.#call) return;
    void this.#bridge?.sendToolInput({ arguments: toolArguments(this.#call) }).catch(() => {});
    this.#sendOutcome();
  }

  /**
   * The call's result (`done`, `error`), or its cancellation when it never ran: once per
   * time the app is ready. A call still running sends it when its result arrives (a new
   * `call`); one of unknown outcome has none to send.
   */
  #sendOutcome(): void {
    const part = this.#call;
    const bridge = this.#bridge;
    if (!part || !bridge || !this.#initialized || this.#outcomeSent) return;
    if (part.declined) {
      this.#outcomeSent = true;
      void bridge.sendToolCancelled({ reason: `declined: ${part.declined}` }).catch(() => {});
    } else if (part.status === 'done' || part.status === 'error') {
      this.#outcomeSent = true;
      void bridge.sendToolResult(toolResult(part)).catch(() => {});
    }
  }

  readonly #schemeChanged = () => {
    const apps = this.#apps;
    if (this.#bridge && this.#frame && apps?.host.theme === 'auto')
      this.#bridge.setHostContext(
        hostContext(this, apps, parseFloat(getComputedStyle(this.#frame).maxHeight)),
      );
  };

  /**
   * `ui/open-link`: never opened by the app's word alone. A row in the card says where the
   * link goes (its host, then the whole address) and opens it only on the visitor's click
   * on Open, in a new tab that cannot reach this page. Only http and https; a newer
   * request replaces one not answered yet (which is answered as not opened).
   */
  #askToOpen(url: string): Promise<boolean> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(false);
    }
    const root = this.shadowRoot;
    const apps = this.#apps;
    if (!root || !apps || (target.protocol !== 'https:' && target.protocol !== 'http:'))
      return Promise.resolve(false);
    const words = wordsOf(apps);
    this.#link?.answer(false);
    return new Promise((resolve) => {
      const row = document.createElement('div');
      row.className = 'link-confirm';
      row.setAttribute('part', 'mcp-app-link-confirm');
      row.setAttribute('role', 'group');
      const ask = paragraph('link-ask', words.openLink(target.host));
      const address = paragraph('link-url', target.href);
      row.setAttribute('aria-label', ask.textContent!);
      const open = button('open', words.openLinkButton, () => {
        window.open(target.href, '_blank', 'noopener,noreferrer');
        question.answer(true);
      });
      const cancel = button('cancel', apps.host.strings.cancel, () => question.answer(false));
      row.append(ask, address, open, cancel);
      root.append(row);
      const question: LinkQuestion = {
        row,
        answer: (opened) => {
          if (this.#link === question) this.#link = undefined;
          row.remove();
          resolve(opened);
        },
      };
      this.#link = question;
    });
  }
}

/** The app's words in the chat's language, read when they show: the language may change. */
const wordsOf = (apps: AppServices): AppWords => appWordsFor(apps.locale, apps.host.strings.apps);

function paragraph(className: string, text: string): HTMLParagraphElement {
  const p = document.createElement('p');
  p.className = className;
  p.textContent = text;
  return p;
}

function button(className: string, label: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = label;
  b.addEventListener('click', onClick, { once: true });
  return b;
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
