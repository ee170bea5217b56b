/**
 * The WebSocket to the protocol server: opens it, says `hello`, hands every decoded
 * frame to the element, and reconnects after a drop with exponential backoff and full
 * jitter (reset once `ready` arrives; none after a deliberate close, nor after the
 * server refused us for good). The socket is made by a factory, so tests drive the
 * element through a transport of their own.
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
}

/** Close codes after which trying again cannot help (1013, TryAgainLater, is not one: it asks for a pause). */
const FINAL = new Set<number>([CloseCode.Unauthorized, CloseCode.BadHello]);

export class Connection {
  state: ConnectionState = 'offline';
  /** When the next attempt is due (performance.now() time), while reconnecting. */
  retryAt: number | undefined;
  #socket: SocketLike | undefined;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #wanted = false;

  constructor(
    private readonly callbacks: ConnectionCallbacks,
    private readonly factory: SocketFactory = browserSocket,
    private readonly backoff: Backoff = { baseMs: 500, maxMs: 30_000 },
  ) {}

  open(url: string): void {
    this.#wanted = true;
    this.#url = url;
    this.#connect();
  }

  /** A deliberate close: no reconnecting. */
  close(): void {
    this.#wanted = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close(1000, 'closed by the page');
    this.#set('offline');
  }

  /** Tries again now instead of waiting for the backoff. */
  retryNow(): void {
    if (this.state !== 'reconnecting' && this.state !== 'offline') return;
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

  #url = '';

  #connect(): void {
    if (!this.#url) return;
    this.#set(this.#attempt === 0 ? 'connecting' : 'reconnecting');
    let socket: SocketLike;
    try {
      socket = this.factory(this.#url);
    } catch {
      this.#scheduleRetry();
      return;
    }
    this.#socket = socket;
    socket.onopen = () => {
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
        this.#set('connected');
      }
      this.callbacks.frame(decoded.frame);
    };
    let opened = false;
    socket.onclose = (event) => {
      if (socket !== this.#socket) return;
      this.#socket = undefined;
      if (!opened && this.#wanted) {
        void this.callbacks.unreachable().then((refused) => {
          if (!refused) return;
          clearTimeout(this.#timer);
          this.#wanted = false;
          this.#set('offline');
        });
      }
      if (FINAL.has(event.code)) {
        this.#wanted = false;
        this.#set('offline');
        this.callbacks.refused(event.code, event.reason);
        return;
      }
      // 1013: the server is up but cannot serve us now (its storage failed). Retrying is
      // right, at once is not: the wait is at least the base delay.
      if (this.#wanted) this.#scheduleRetry(event.code === CloseCode.TryAgainLater ? this.backoff.baseMs : 0);
      else this.#set('offline');
    };
    socket.onerror = () => {};
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
