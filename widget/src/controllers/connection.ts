/**
 * The WebSocket to the protocol server: opens it, says `hello`, hands every decoded
 * frame to the element, and reconnects after a drop with exponential backoff and full
 * jitter (reset once `ready` arrives). Any failure keeps the loop going: a close with any
 * code, an `error` without `close`, a throwing constructor, an attempt that does not
 * reach `ready` in time. It ends only on a deliberate close, or when the server itself
 * refused the page for good (a 4400/4401 close, or its origin check saying no). The
 * socket is made by a factory, so tests drive the element through a transport of their own.
 */
import {
  CloseCode,
  PROTOCOL_VERSION,
  decodeServerFrame,
  type ClientFrame,
  type HelloFrame,
  type ServerFrame,
} from '@aalis/protocol/client';

import type { ConnectionState } from '../shared/connection-state.js';

export type { ConnectionState };

/** The part of a browser WebSocket the widget uses. */
export interface SocketLike {
  readonly readyState: number;
  send(text: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

export const browserSocket: SocketFactory = (url) => new WebSocket(url);

export interface ConnectionCallbacks {
  frame(frame: ServerFrame): void;
  state(state: ConnectionState, retryInMs?: number): void;
  /** The server refused for good (bad token, wrong protocol): no more retries. */
  refused(code: number, reason: string): void;
  /**
   * Asked before such a refusal is taken as final: true when the element has something
   * new to try (a fresh token from its provider, the old one having expired). The next
   * attempt then starts at once, and the page is never said to be offline on the way.
   */
  mayRetry?(code: number): boolean;
  /**
   * The socket closed without ever opening. Resolves true when the server says this page
   * may not connect at all, which ends the retrying.
   */
  unreachable(): Promise<boolean>;
  /**
   * Said before each `hello`, so the session the element remembers is asked for: its
   * fields (`sessionId`, `token`, `anonymousKey`), each left out when there is none.
   */
  hello(): Omit<HelloFrame, 'type' | 'protocol'>;
}

export interface Backoff {
  baseMs: number;
  maxMs: number;
  /**
   * How long one attempt may take to reach `ready`, from the socket's creation: a handshake
   * or a hello that never gets an answer (a half-open TCP connection, a proxy holding the
   * upgrade, an engine that reports `error` and never `close`) is given up and retried.
   */
  attemptMs?: number;
}

/** Long enough for a slow mobile handshake, a token provider and a JWKS fetch on the server. */
const ATTEMPT_MS = 15_000;

/** How long a `close` is waited for after an `error`: engines that send both send them together. */
const ERROR_GRACE_MS = 1_000;

/**
 * Close codes after which trying again cannot help: the server itself said the page's
 * credentials (4401) or its hello (4400) will not do. Nothing a network does produces
 * them; every other close, whatever its code (1006, 1015, 1013, 4408...), is retried.
 */
const FINAL = new Set<number>([CloseCode.Unauthorized, CloseCode.BadHello]);

/** The code the widget closes an attempt with when it gives up on it (a private-use code). */
const GAVE_UP = 4000;

export class Connection {
  state: ConnectionState = 'offline';
  /** When the next attempt is due (performance.now() time), while reconnecting. */
  retryAt: number | undefined;
  #socket: SocketLike | undefined;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Gives up on the attempt in flight when it has not reached `ready` in time. */
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #wanted = false;
  #url = '';
  /**
   * The network is back (a changed route, a laptop waking): whatever was pending may be on
   * the old route, so a fresh attempt starts at once. `offline` (and `navigator.onLine`)
   * are never read: WebKitGTK without a network manager says false while the network works.
   */
  readonly #online = () => {
    if (this.#wanted && this.state !== 'connected') this.retryNow();
  };

  constructor(
    private readonly callbacks: ConnectionCallbacks,
    private readonly factory: SocketFactory = browserSocket,
    private readonly backoff: Backoff = { baseMs: 500, maxMs: 30_000 },
  ) {}

  open(url: string): void {
    this.#wanted = true;
    this.#url = url;
    globalThis.addEventListener?.('online', this.#online);
    this.#connect();
  }

  /** A deliberate close: no reconnecting. */
  close(): void {
    this.#stop();
    globalThis.removeEventListener?.('online', this.#online);
    this.#abandon(1000, 'closed by the page');
    this.#set('offline');
  }

  /** Tries again now instead of waiting for the backoff; an attempt still in flight is dropped. */
  retryNow(): void {
    if (this.state === 'connected') return;
    clearTimeout(this.#timer);
    this.#wanted = true;
    this.#connect();
  }

  /** Sends a frame; false when there is no open connection to send it on. */
  send(frame: ClientFrame): boolean {
    if (this.state !== 'connected' || !this.#socket) return false;
    this.#socket.send(JSON.stringify(frame));
    return true;
  }

  /** Re-says hello on the open socket (for a new session). */
  rehello(): void {
    if (this.#socket && this.#socket.readyState === 1) this.#sayHello(this.#socket);
  }

  #connect(): void {
    if (!this.#url || !this.#wanted) return;
    // One attempt at a time: a retry asked for while one is in flight replaces it.
    this.#abandon(GAVE_UP, 'replaced by a new attempt');
    this.#set(this.#attempt === 0 ? 'connecting' : 'reconnecting');
    let socket: SocketLike;
    try {
      socket = this.factory(this.#url);
    } catch {
      // A throwing constructor (a blocked port, a page being torn down) is one more failure.
      this.#scheduleRetry();
      return;
    }
    this.#socket = socket;
    let opened = false;
    const attemptMs = this.backoff.attemptMs ?? ATTEMPT_MS;
    this.#deadline = setTimeout(() => {
      if (socket !== this.#socket || this.state === 'connected') return;
      this.#abandon(GAVE_UP, 'no ready in time');
      this.#failed(opened, 1006);
    }, attemptMs);
    socket.onopen = () => {
      if (socket !== this.#socket) return;
      opened = true;
      this.#sayHello(socket);
    };
    socket.onmessage = (event) => {
      if (socket !== this.#socket || typeof event.data !== 'string') return;
      const decoded = decodeServerFrame(event.data);
      // Frames this version does not know (a newer server) are ignored, as the protocol says.
      if (!decoded.ok) return;
      if (decoded.frame.type === 'ready') {
        this.#attempt = 0;
        clearTimeout(this.#deadline);
        this.#set('connected');
      }
      this.callbacks.frame(decoded.frame);
    };
    socket.onclose = (event) => {
      if (socket !== this.#socket) return;
      this.#release();
      this.#failed(opened, event.code, event.reason);
    };
    // A failure is `error` then `close` by the standard, but WebKit has fired `error`
    // alone (WebKit bug 294842, fixed in 2025): waiting for a `close` that never comes
    // left the widget connecting forever. The `close` is still waited for a moment, as
    // its code is what tells a final refusal from a failure; without it, this is a 1006.
    socket.onerror = () => {
      if (socket !== this.#socket) return;
      clearTimeout(this.#deadline);
      this.#deadline = setTimeout(() => {
        if (socket !== this.#socket) return;
        this.#abandon(GAVE_UP, 'error without close');
        this.#failed(opened, 1006);
      }, ERROR_GRACE_MS);
    };
  }

  /** The attempt ended without the server saying it is done with us: retry, unless it said so. */
  #failed(opened: boolean, code: number, reason = ''): void {
    if (FINAL.has(code) && this.#wanted && this.callbacks.mayRetry?.(code)) return this.#connect();
    if (FINAL.has(code)) {
      this.#stop();
      this.#set('offline');
      this.callbacks.refused(code, reason);
      return;
    }
    if (!this.#wanted) return this.#set('offline');
    // 1013: the server is up but cannot serve us now (its storage failed). Retrying is
    // right, at once is not: the wait is at least the base delay.
    this.#scheduleRetry(code === CloseCode.TryAgainLater ? this.backoff.baseMs : 0);
    // A browser tells a refused upgrade (403, origin not allowed) and a network failure
    // apart to no page: both are a close before open. Only the server's own answer about
    // this page's origin ends the retrying; anything else (no answer, an error page, an
    // attempt that connected meanwhile) leaves the loop running.
    if (opened) return;
    const failure = this.#attempt;
    void this.callbacks.unreachable().then((refused) => {
      // Stale when an attempt has connected since, or the loop was ended another way.
      if (!refused || !this.#wanted || this.state === 'connected' || this.#attempt < failure) return;
      this.#stop();
      this.#abandon(1000, 'origin refused');
      this.#set('offline');
    });
  }

  /** Ends the loop: no attempt is started again (until `retryNow` or `open`). */
  #stop(): void {
    this.#wanted = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** Lets go of the current socket, if any, and closes it; its events are ignored from now. */
  #abandon(code: number, reason: string): void {
    const socket = this.#socket;
    this.#release();
    if (socket && socket.readyState < 2) socket.close(code, reason);
  }

  #release(): void {
    this.#socket = undefined;
    clearTimeout(this.#deadline);
  }

  #sayHello(socket: SocketLike): void {
    const hello: HelloFrame = { type: 'hello', protocol: PROTOCOL_VERSION, ...this.callbacks.hello() };
    socket.send(JSON.stringify(hello));
  }

  #scheduleRetry(minMs = 0): void {
    // Full jitter: anywhere between 0 and the exponential cap, so that a server restart
    // is not met by every client at the same instant.
    const cap = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** this.#attempt);
    const delay = Math.round(minMs + Math.random() * cap);
    this.#attempt++;
    this.retryAt = performance.now() + delay;
    this.#set('reconnecting', delay);
    // One timer at a time: a second would start a second socket beside the first.
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#connect(), delay);
  }

  #set(state: ConnectionState, retryInMs?: number): void {
    if (state !== 'reconnecting') this.retryAt = undefined;
    // Every retry is announced, even in the same state, with its own wait.
    if (state === this.state && retryInMs === undefined && state !== 'reconnecting') return;
    this.state = state;
    this.callbacks.state(state, retryInMs);
  }
}
