/**
 * Everything between the element and its server, as a Lit ReactiveController: the
 * `Connection` (socket, hello, backoff), the session id kept in localStorage, the
 * "reconnecting in N s" countdown, and the reason the server refused the page. It opens
 * when the element connects, closes when it leaves the page, and opens again when the
 * element is given another server or socket factory. With a `tokenProvider`, each socket
 * says hello only once the provider has given this attempt's token. The anonymous visitor
 * key a server issues in `ready` is kept (`${sessionKey}:visitor`) and sent in every hello:
 * the same browser stays the same visitor, its sessions and budgets with it. A bot
 * challenge's token (`passChallenge`) goes in the hellos until one is answered.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { CloseCode, ErrorCode, type ClientFrame, type ServerFrame } from '@aalis/protocol/client';
import { AalisConnectionChangeEvent, AalisErrorEvent } from '../shared/events.js';
import type { Strings } from '../i18n/strings.js';
import { Connection, type ConnectionState, type SocketFactory, type SocketLike } from './connection.js';

/** Gives the visitor's token (a JWT the site's backend signed), fresh for each connect. */
export type TokenProvider = () => Promise<string> | string;

/** What the controller reads from its element. */
export interface ChatConnectionHost extends ReactiveControllerHost, HTMLElement {
  server: string;
  token: string;
  tokenProvider: TokenProvider | undefined;
  sessionKey: string;
  socketFactory: SocketFactory;
  readonly strings: Strings;
}

/** The longest the first socket waits for `before` (a slow network): a quarter second. */
export const BEFORE_CONNECT_MS = 250;

export class ChatConnection implements ReactiveController {
  state: ConnectionState = 'offline';
  /** Why the server will not serve this page (bad token, origin not allowed); empty otherwise. */
  refusal = '';
  #connection: Connection | undefined;
  #retryTicker: ReturnType<typeof setInterval> | undefined;
  /** The server and factory the open connection was made with. */
  #openedWith: { server: string; factory: SocketFactory } | undefined;
  /** The token the provider gave for the current socket; undefined without a provider. */
  #provided: string | undefined;
  /** Whether a 4401 already made us ask the provider again (reset by `ready`). */
  #askedAgain = false;
  /**
   * A bot challenge's token, said in every hello until a `ready` (or `challenge_failed`)
   * answers one: a reconnect on the way still carries it. In memory only: once passed, the
   * server remembers the pass for the anonymous key, and a token is good for one check.
   */
  #challenge: string | undefined;

  /**
   * @param before What the first socket waits for, at most `BEFORE_CONNECT_MS`: the
   *   markdown part, so that its loading never lands between the frames that restore a
   *   conversation and their paint.
   */
  constructor(
    private readonly host: ChatConnectionHost,
    private readonly onFrame: (frame: ServerFrame) => void,
    private readonly before: () => Promise<unknown> = () => Promise.resolve(),
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    // The first attempt is on its way: "Connecting", never "Offline" with a Retry that has
    // nothing to retry, which is what a page painted before it (and a slow engine showed
    // it for seconds, WebKit's frames coming late under load).
    this.state = 'connecting';
    // Not at once: properties bound in the same template settle first, and `before` arrives.
    const waited = new Promise((resolve) => {
      setTimeout(resolve, BEFORE_CONNECT_MS);
      this.before().then(resolve, resolve);
    });
    void waited.then(() => this.#open());
  }

  hostDisconnected(): void {
    this.#connection?.close();
    this.#connection = undefined;
    this.state = 'offline';
    this.#openedWith = undefined;
    clearInterval(this.#retryTicker);
  }

  hostUpdated(): void {
    // Another server or transport after the connection opened: connect again.
    const opened = this.#openedWith;
    if (opened && (opened.server !== this.host.server || opened.factory !== this.host.socketFactory))
      this.#open();
  }

  /** Sends a frame; false when there is no open connection to send it on. */
  send(frame: ClientFrame): boolean {
    return this.#connection?.send(frame) ?? false;
  }

  retryNow(): void {
    this.#connection?.retryNow();
  }

  /** Says a bot challenge's token in a new hello on the open socket (or the next one's). */
  passChallenge(token: string): void {
    this.#challenge = token;
    this.#connection?.rehello();
  }

  /** Where the anonymous visitor key is kept; a new session keeps it (same browser, same visitor). */
  get #visitorKey(): string {
    return `${this.host.sessionKey}:visitor`;
  }

  /** Forgets the remembered session and asks the server for a new one. */
  newSession(): void {
    storage((s) => s.removeItem(this.host.sessionKey));
    this.#connection?.rehello();
  }

  /** Opens another of the visitor's conversations: remembered, and asked for with a new hello. */
  openSession(sessionId: string): void {
    storage((s) => s.setItem(this.host.sessionKey, sessionId));
    this.#connection?.rehello();
  }

  /** Whole seconds until the next attempt, while reconnecting. */
  get retryInSeconds(): number {
    const retryAt = this.#connection?.retryAt;
    return retryAt === undefined ? 0 : Math.max(0, Math.ceil((retryAt - performance.now()) / 1000));
  }

  /** The server's base address, ending in `/`: the page's origin when none is set. */
  get serverBase(): URL {
    const base = new URL(this.host.server || location.origin, location.href);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    return base;
  }

  #open(): void {
    if (!this.host.isConnected) return;
    this.#connection?.close();
    this.#openedWith = { server: this.host.server, factory: this.host.socketFactory };
    this.#connection = new Connection(
      {
        frame: (frame) => {
          if (frame.type === 'ready') {
            storage((s) => {
              s.setItem(this.host.sessionKey, frame.sessionId);
              if (frame.anonymousKey) s.setItem(this.#visitorKey, frame.anonymousKey);
            });
            this.refusal = '';
            this.#askedAgain = false;
            this.#challenge = undefined;
          } else if (frame.type === 'error' && frame.code === ErrorCode.ChallengeFailed) {
            this.#challenge = undefined;
          }
          this.onFrame(frame);
        },
        state: (state, retryInMs) => this.#setState(state, retryInMs),
        // The provider's token may have expired (the server closes a signed visitor's socket
        // at its `exp`, or it expired on the way): ask it once more. Reset by every `ready`,
        // so each expiry of a long session gets its fresh token.
        mayRetry: (code) => {
          if (code !== CloseCode.Unauthorized || this.#provided === undefined || this.#askedAgain)
            return false;
          this.#askedAgain = true;
          return true;
        },
        refused: (code, reason) => this.#refuse(String(code), reason || `closed (${code})`),
        unreachable: () => this.#checkOrigin(),
        hello: () => {
          const sessionId = storage((s) => s.getItem(this.host.sessionKey)) ?? undefined;
          const token = this.#provided ?? this.host.token;
          const anonymousKey = storage((s) => s.getItem(this.#visitorKey));
          const challenge = this.#challenge;
          return {
            ...(sessionId ? { sessionId } : {}),
            ...(token ? { token } : {}),
            ...(anonymousKey ? { anonymousKey } : {}),
            ...(challenge ? { challenge } : {}),
            // A person's messages (role `operator`): the server sends them only to clients that read them.
            features: ['operator'],
          };
        },
      },
      (url) => this.#socket(url),
    );
    this.#connection.open(this.#socketUrl());
  }

  /**
   * A socket from the element's factory; with a token provider, one whose `open` is told
   * only once the provider has answered, so that hello carries this attempt's token. A
   * provider that fails closes the socket, and the connection retries with its backoff.
   */
  #socket(url: string): SocketLike {
    const provider = this.host.tokenProvider;
    this.#provided = undefined;
    const socket = this.host.socketFactory(url);
    if (!provider) return socket;
    const token = (async () => provider())();
    // Told through `aalis-error` once the socket opens; never an unhandled rejection.
    token.catch(() => {});
    const wrapped: SocketLike = {
      get readyState() {
        return socket.readyState;
      },
      send: (text) => socket.send(text),
      close: (code, reason) => socket.close(code, reason),
      onopen: null,
      onmessage: null,
      onclose: null,
      onerror: null,
    };
    socket.onopen = (event) =>
      token.then(
        (value) => {
          if (socket.readyState !== 1) return;
          this.#provided = value || '';
          wrapped.onopen?.(event);
        },
        (error: unknown) => {
          this.host.dispatchEvent(new AalisErrorEvent('token_provider_failed', String(error)));
          socket.close(1000, 'no token');
        },
      );
    socket.onmessage = (event) => wrapped.onmessage?.(event);
    socket.onclose = (event) => wrapped.onclose?.(event);
    socket.onerror = (event) => wrapped.onerror?.(event);
    return wrapped;
  }

  #setState(state: ConnectionState, retryInMs: number | undefined): void {
    this.state = state;
    this.host.requestUpdate();
    this.host.dispatchEvent(new AalisConnectionChangeEvent(state, retryInMs));
    clearInterval(this.#retryTicker);
    // The "reconnecting in N s" line counts down.
    if (state === 'reconnecting') this.#retryTicker = setInterval(() => this.host.requestUpdate(), 1000);
  }

  #refuse(code: string, reason: string): void {
    this.refusal = reason;
    this.host.requestUpdate();
    this.host.dispatchEvent(new AalisErrorEvent(code, reason));
  }

  /**
   * Asks the server whether this page's origin is allowed; true (and a visible error) when
   * it answers, in so many words, that it is not. No answer, an error status or a body that
   * is not the server's (a proxy's error page) is no refusal: the retrying goes on.
   */
  async #checkOrigin(): Promise<boolean> {
    try {
      const response = await fetch(new URL('origin-check', this.serverBase), { cache: 'no-store' });
      if (!response.ok) return false;
      const { allowed } = (await response.json()) as { allowed?: unknown };
      if (allowed !== false) return false;
    } catch {
      return false;
    }
    this.#refuse('origin_refused', this.host.strings.originRefused);
    return true;
  }

  #socketUrl(): string {
    const url = new URL('ws', this.serverBase);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return url.toString();
  }
}

function storage<T>(use: (storage: Storage) => T): T | undefined {
  try {
    return use(localStorage);
  } catch {
    // Storage can be disabled (privacy modes, sandboxed frames): the session then lasts the page.
    return undefined;
  }
}
