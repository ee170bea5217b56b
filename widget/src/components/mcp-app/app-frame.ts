/**
 * One tool call's MCP App, open: its sandboxed frame, the bridge that speaks with it
 * (app-bridge-host.ts), what it was sent, and the link it asked to open. The app's HTML
 * comes from the chat's server (`/mcp-apps`, with its strict CSP) into a frame sandboxed to
 * `allow-scripts` only: its origin is opaque, so it cannot read the page's cookies, storage
 * or DOM, open a window, or navigate the page.
 *
 * It lives apart from the `<aalis-mcp-app>` that shows it (its `owner`) because it may
 * outlive it: when a turn ends, the chat draws the stored message with a new element for
 * the same call, which takes this frame over (`moveTo`) rather than load the app again.
 */
import type { ToolCallPart } from '@aalis/protocol/client';
import type { AppWords } from '../../i18n/app-words.js';
import type { AppServices } from './app-host.js';
import { connectBridge, hostContext, toolCallsOf, type HostBridge } from './app-bridge-host.js';
import { appWordsFor } from './app-words.js';
import { toolArguments, toolResult } from './tool-result.js';

/** A tool call whose tool is an MCP App. */
export type AppCall = ToolCallPart & { app: NonNullable<ToolCallPart['app']> };

/** A link the app asked to open, waiting for the visitor's answer. */
interface LinkQuestion {
  row: HTMLElement;
  answer(opened: boolean): void;
}

/**
 * `ParentNode.moveBefore` (Chrome and Edge 133, Firefox 144; not yet in Safari or in
 * TypeScript's DOM types): moves a node without taking it out of the document, so that a
 * frame keeps its page. `insertBefore` and `append` take it out first: the frame reloads.
 */
interface Movable {
  moveBefore?(node: Node, child: Node | null): void;
}

export class AppFrame {
  readonly frame: HTMLIFrameElement;
  readonly #bridge: HostBridge;
  /** The app said it is ready (`ui/notifications/initialized`): it may be sent the call. */
  #initialized = false;
  /** The call's outcome (result, or cancellation) went to the app since it was ready. */
  #outcomeSent = false;
  #link: LinkQuestion | undefined;

  /** Builds the frame at the start of `root`, the owner's shadow root, and loads the app. */
  constructor(
    public owner: HTMLElement,
    root: ShadowRoot,
    public call: AppCall,
    readonly apps: AppServices,
  ) {
    const frame = (this.frame = document.createElement('iframe'));
    // Scripts only: never same-origin (the app would be the chat's server's page), popups,
    // forms or top navigation.
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.setAttribute('part', 'mcp-app-frame');
    frame.setAttribute('loading', 'lazy');
    frame.title = this.#title();
    root.prepend(frame);
    const { callId } = call;
    this.#bridge = connectBridge(frame, this.#context(), {
      callTool: (name, args) => toolCallsOf(apps).call(callId, name, args),
      openLink: (url) => this.#askToOpen(url),
      resize: (height) => (frame.style.height = `${Math.max(0, Math.ceil(height))}px`),
      initialized: () => this.#ready(),
    });
    // The source is set once the bridge listens: nothing the app says is missed.
    const { serverName, resourceUri } = call.app;
    const query = `mcp-apps?server=${encodeURIComponent(serverName)}&uri=${encodeURIComponent(resourceUri)}`;
    frame.src = new URL(query, apps.serverBase()).href;
  }

  /** The call again, maybe with its result: the app gets the outcome it has not had. */
  update(call: AppCall): void {
    this.call = call;
    this.#sendOutcome();
  }

  /**
   * Moves the frame (and the link question, if one waits) to the start of `root`, another
   * element's shadow root, without a reload; false where the browser cannot (no
   * `moveBefore`), or when the frame is no longer in the document.
   */
  moveTo(owner: HTMLElement, root: ShadowRoot): boolean {
    const { moveBefore } = root as Movable;
    if (!moveBefore || !this.frame.isConnected) return false;
    try {
      moveBefore.call(root, this.frame, root.firstChild);
      if (this.#link) moveBefore.call(root, this.#link.row, null);
    } catch {
      return false;
    }
    this.owner = owner;
    return true;
  }

  /**
   * Tells the app its host again (theme, colours, language, bounds), from where its frame
   * is now. ext-apps's `setHostContext` sends the fields that changed
   * (`ui/notifications/host-context-changed`), and nothing when none did. Before the app
   * is ready this sends nothing: it gets the context when it is (`#ready`).
   */
  hostChanged(): void {
    if (!this.#initialized) return;
    this.frame.title = this.#title();
    this.#bridge.setHostContext(this.#context());
  }

  /** The app is gone from the page: its link question is answered, its bridge and frame go. */
  close(): void {
    this.#link?.answer(false);
    void this.#bridge.close();
    this.frame.remove();
  }

  #title(): string {
    return wordsOf(this.apps).frameTitle(this.call.name, this.call.app.serverName);
  }

  #context() {
    return hostContext(this.owner, this.apps, parseFloat(getComputedStyle(this.frame).maxHeight));
  }

  /**
   * The app is ready (again, after it reloaded itself): what changed since its
   * `ui/initialize` answer was computed, then the call's input, and its outcome once there
   * is one.
   */
  #ready(): void {
    this.#initialized = true;
    this.#outcomeSent = false;
    this.hostChanged();
    void this.#bridge.sendToolInput({ arguments: toolArguments(this.call) }).catch(() => {});
    this.#sendOutcome();
  }

  /**
   * The call's result (`done`, `error`), or its cancellation when it never ran: once per
   * time the app is ready. A call still running sends it when its result arrives (a new
   * `call`); one of unknown outcome has none to send.
   */
  #sendOutcome(): void {
    const part = this.call;
    if (!this.#initialized || this.#outcomeSent) return;
    if (part.declined) {
      this.#outcomeSent = true;
      void this.#bridge.sendToolCancelled({ reason: `declined: ${part.declined}` }).catch(() => {});
    } else if (part.status === 'done' || part.status === 'error') {
      this.#outcomeSent = true;
      void this.#bridge.sendToolResult(toolResult(part)).catch(() => {});
    }
  }

  /**
   * `ui/open-link`: never opened by the app's word alone. A row under the frame says where
   * the link goes (its host, then the whole address) and opens it only on the visitor's
   * click on Open, in a new tab that cannot reach this page. Only http and https; a newer
   * request replaces one not answered yet (which is answered as not opened).
   */
  #askToOpen(url: string): Promise<boolean> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(false);
    }
    const root = this.frame.parentNode;
    if (!root || (target.protocol !== 'https:' && target.protocol !== 'http:')) return Promise.resolve(false);
    const words = wordsOf(this.apps);
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
      const cancel = button('cancel', this.apps.host.strings.cancel, () => question.answer(false));
      row.append(ask, address, open, cancel);
      root.appendChild(row);
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
