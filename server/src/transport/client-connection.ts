/**
 * One WebSocket client: the protocol's rules for a connection (PROTOCOL.md section 2)
 * on top of the session hub. `hello` first and in time, the token, binary and flood
 * limits, a send rate limit; after `hello`, a bad frame gets an `error` and the
 * connection stays usable. Outgoing frames go through an `Outbox` for backpressure.
 * With visitor identity configured (`auth`), each `hello` names its visitor: its token
 * is checked before anything else is handled, frames that arrive meanwhile wait, in
 * order, and a refused token closes 4401 with one generic reason.
 */
import { randomUUID } from 'node:crypto';
import {
  CloseCode,
  ErrorCode,
  Limits,
  decodeClientFrame,
  type ClientFrame,
  type Challenge,
  type HelloFrame,
  type ServerFrame,
} from '@aalis/protocol';
import type { Peer, SessionHub } from '../sessions/session-hub.js';
import type { PeerRefusal } from '../sessions/hub-options.js';
import { CHALLENGE_TEXT, challengeClearance, type ChallengeGate } from './challenge-gate.js';
import { logErrorWithId } from '../util/log-error.js';
import type { Logger } from '../util/logger.js';
import type { VisitorAuth } from '../identity/visitor-auth.js';
import { VISITOR_REFUSED_REASON } from '../identity/visitor-auth.js';
import type { Visitor } from '../identity/visitor.js';
import { Outbox, defaultOutboxLimits, type OutboxLimits } from './outbox.js';
import { RateWindow } from '../util/rate-window.js';
import type { ChatEvents } from './chat-events.js';
import { tokenRule } from './visitor-token.js';
import { AppToolCalls, type AppTools } from './app-tool-calls.js';
import { frameText, reason } from './socket-text.js';

/** What the connection needs of a socket; `ws`'s WebSocket has it. */
export interface SocketLike {
  send(text: string): void;
  close(code: number, reason: string): void;
  readonly bufferedAmount: number;
}

export interface ConnectionOptions {
  /** When set, `hello` must carry it (not with `auth` that checks tokens: the token is then a visitor's). */
  token?: string | undefined;
  /** Visitor identity: who each `hello` is from, by its signed token (identity/visitor-auth.ts). */
  auth?: VisitorAuth | undefined;
  /** The bot challenge anonymous visitors pass before their first turn (challenge-gate.ts). */
  challenge?: ChallengeGate | undefined;
  helloTimeoutMs: number;
  /** `send` frames allowed per window before `rate_limited`. */
  sendRate: { max: number; windowMs: number };
  /**
   * `send` frames per client address, across connections and instances
   * (budgets/address-sends.ts), by its count key; checked after `sendRate`.
   */
  ipSends?: { take(address: string): Promise<{ ok: true } | { ok: false; retryInMs: number }> } | undefined;
  /** `hello` frames allowed per window; more get `rate_limited` (each one costs a store read). */
  helloRate: { max: number; windowMs: number };
  /** Frames of any kind allowed per window before the socket is closed with 1008. */
  frameRate: { max: number; windowMs: number };
  outbox: OutboxLimits;
  /** What answers the calls of the MCP Apps shown in the chat; without it, they are refused. */
  apps?: AppTools | undefined;
}

export const defaultConnectionOptions: ConnectionOptions = {
  helloTimeoutMs: 10_000,
  sendRate: { max: 10, windowMs: 60_000 },
  helloRate: { max: 10, windowMs: 60_000 },
  frameRate: { max: 120, windowMs: 10_000 },
  outbox: defaultOutboxLimits,
};

/** Where a connection logs and announces, and who is on the other end. */
export interface ConnectionContext {
  log: Logger;
  events: ChatEvents;
  /** The client's IP (the socket's, or what a trusted proxy said), in its canonical form. */
  remoteAddress?: string;
  /** The key that IP's counts are kept under (an IPv6 address's /64): the per-address limits and budgets. */
  address?: string;
}

/** The codes of the `error` frames that say a budget refused a `send` (budgets/budgets.ts). */
const BUDGET_CODES: ReadonlySet<string> = new Set([ErrorCode.QuotaExceeded, ErrorCode.Overloaded]);

export class ClientConnection implements Peer {
  readonly id = randomUUID();
  readonly #outbox: Outbox;
  readonly #sends: RateWindow;
  readonly #hellos: RateWindow;
  readonly #frames: RateWindow;
  readonly #openedAt = Date.now();
  #sessionId: string | undefined;
  #visitor: Visitor | undefined;
  /** Frames that arrived while a hello's token is checked, handled in order after it. */
  #queue: string[] | undefined;
  #helloTimer: NodeJS.Timeout | undefined;
  /** Ends the connection when its signed visitor's token stops being accepted. */
  #expiryTimer: NodeJS.Timeout | undefined;
  /** Whether this connection's visitor has passed the bot challenge (known, or checked here). */
  #challengePassed = false;
  #closed = false;
  #ended = false;
  #received = 0;
  #sent = 0;
  private readonly log: Logger;
  private readonly remoteAddress: string | undefined;
  /** The client address's count key (Peer.address): the per-address budgets count every visitor on it together. */
  readonly address: string | undefined;
  readonly #events: ChatEvents;
  readonly #apps: AppToolCalls;

  constructor(
    private readonly socket: SocketLike,
    private readonly hub: SessionHub,
    private readonly options: ConnectionOptions,
    { log, events, remoteAddress, address }: ConnectionContext,
  ) {
    this.log = log;
    this.#apps = new AppToolCalls(
      options.apps,
      (callId) =>
        this.#sessionId === undefined
          ? Promise.resolve(undefined)
          : this.hub.toolApp(this.#sessionId, callId),
      (frame) => this.deliver(frame, JSON.stringify(frame)),
      log,
    );
    this.#events = events;
    this.remoteAddress = remoteAddress;
    this.address = address ?? remoteAddress;
    const { onCollapse } = options.outbox;
    this.#outbox = new Outbox(
      {
        write: (text) => socket.send(text),
        bufferedAmount: () => socket.bufferedAmount,
        close: (code, why) => this.close(code, why),
      },
      {
        ...options.outbox,
        onCollapse: () => {
          onCollapse?.();
          events.emit('frame:dropped', { connectionId: this.id, reason: 'progress_collapsed' });
        },
      },
    );
    this.#sends = new RateWindow(options.sendRate.max, options.sendRate.windowMs);
    this.#hellos = new RateWindow(options.helloRate.max, options.helloRate.windowMs);
    this.#frames = new RateWindow(options.frameRate.max, options.frameRate.windowMs);
    this.#helloTimer = setTimeout(
      () => this.close(CloseCode.HelloTimeout, 'no hello in time'),
      options.helloTimeoutMs,
    );
  }

  /**
   * Who is on this connection, once a hello was accepted: the signed visitor its token
   * names, or an anonymous one (`anon:<id>`: the one its hello's `anonymousKey` names,
   * else a new one with a key for `ready`, kept for the connection's later hellos).
   * Undefined before, and always without identity configured.
   */
  get visitor(): Visitor | undefined {
    return this.#visitor;
  }

  deliver(frame: ServerFrame, text: string): void {
    this.#sent++;
    if (frame.type === 'error' && !this.#closed) this.#announce(frame);
    this.#outbox.push(frame, text);
  }

  /** An `error` frame going out: `error:sent`, and `budget:refused` for a budget's refusal. */
  #announce(frame: Extract<ServerFrame, { type: 'error' }>): void {
    const connectionId = this.id;
    this.#events.emit('error:sent', { connectionId, code: frame.code });
    if (!BUDGET_CODES.has(frame.code)) return;
    this.#events.emit('budget:refused', {
      connectionId,
      code: frame.code,
      ...(frame.limit === undefined ? {} : { limit: frame.limit }),
      ...(frame.retryInMs === undefined ? {} : { retryInMs: frame.retryInMs }),
    });
  }

  /** A frame from the client, as text or as the bytes of a text frame. Never throws. */
  receive(data: string | Buffer | ArrayBuffer | Buffer[], isBinary: boolean): void {
    if (this.#closed) return;
    this.#received++;
    if (isBinary)
      return this.close(CloseCode.UnsupportedData, 'binary frames are not supported: send JSON text');
    if (!this.#frames.take().ok) return this.close(CloseCode.PolicyViolation, 'too many frames');
    const text = frameText(data);
    if (this.#queue) {
      // Frames held while a hello or a send waits: at most what the frame rate allows.
      if (this.#queue.length >= this.options.frameRate.max)
        return this.close(CloseCode.PolicyViolation, 'too many frames');
      this.#queue.push(text);
      return;
    }
    this.#process(text);
  }

  #process(text: string): void {
    const decoded = decodeClientFrame(text);
    if (this.#sessionId === undefined) {
      if (!decoded.ok)
        return this.close(CloseCode.BadHello, reason(`expected hello: ${decoded.error.message}`));
      if (decoded.frame.type !== 'hello')
        return this.close(CloseCode.BadHello, 'the first frame must be hello');
    }
    if (!decoded.ok) return this.#error(decoded.error.code, decoded.error.message);
    const { frame } = decoded;
    this.#safely(() => this.#handle(frame));
  }

  /** The socket closed, for whatever reason. The session's turn runs on. */
  closed(code: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#closed = true;
    this.#queue = undefined;
    clearTimeout(this.#helloTimer);
    clearTimeout(this.#expiryTimer);
    this.#outbox.dispose();
    this.#apps.close();
    if (this.#sessionId !== undefined) this.hub.leave(this, this.#sessionId);
    const counts = {
      code,
      ms: Date.now() - this.#openedAt,
      received: this.#received,
      sent: this.#sent,
      collapsed: this.#outbox.collapsed,
    };
    this.log.info(
      {
        connection: this.id,
        sessionId: this.#sessionId ?? null,
        ...(this.#visitor ? { visitor: this.#visitor.id } : {}),
        ...counts,
      },
      'connection closed',
    );
    this.#events.emit('connection:closed', { connectionId: this.id, ...counts });
    this.#sessionId = undefined;
  }

  close(code: number, why: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = undefined;
    clearTimeout(this.#helloTimer);
    clearTimeout(this.#expiryTimer);
    this.#outbox.dispose();
    this.socket.close(code, why);
  }

  /** Handles one frame; a promise when it waits for the store or the cluster (frames after it wait too). */
  #handle(frame: ClientFrame): void | Promise<void> {
    switch (frame.type) {
      case 'hello': {
        const rule = tokenRule(this.options, frame.token);
        if (!rule.ok) return this.close(CloseCode.Unauthorized, 'wrong or missing token');
        if (rule.auth) return this.#identify(rule.auth, frame, rule.visitorToken);
        return this.#bind(frame);
      }
      case 'send':
      case 'regenerate':
      case 'edit':
        return this.#send(frame);
      case 'abort':
        return this.hub.abort(this.#sessionId!);
      case 'history':
        return this.hub.history(this, this.#sessionId!, frame.before, frame.limit ?? Limits.historyPage);
      case 'tool_decision':
        return this.hub.decide(this.#sessionId!, frame.callId, frame.decision, frame.remember);
      case 'feedback':
        return this.hub.feedback(this, this.#sessionId!, frame);
      case 'list_sessions':
        return this.hub.conversations(this, undefined, frame.limit);
      case 'rename_session':
        return this.hub.conversations(this, { rename: { sessionId: frame.sessionId, title: frame.title } });
      case 'delete_session':
        return this.hub.conversations(this, { remove: frame.sessionId });
      case 'elicitation_answer':
        return this.hub.answerElicitation(this, this.#sessionId!, frame);
      case 'app_tool_call':
        // Not awaited: an app's call may take a while, and the chat's own frames go on meanwhile.
        return void this.#apps.handle(frame);
      case 'handoff':
        return this.hub.requestHandoff(this, this.#sessionId!, frame.reason);
    }
  }

  /** A turn asked for (`send`, or `regenerate` and `edit`, which are sends too): within the send rate first. */
  async #send(frame: Extract<ClientFrame, { type: 'send' | 'regenerate' | 'edit' }>): Promise<void> {
    let allowed: { ok: true } | { ok: false; retryInMs: number } = this.#sends.take();
    if (allowed.ok && this.options.ipSends && this.address !== undefined)
      allowed = await this.options.ipSends.take(this.address);
    if (!allowed.ok) {
      const seconds = Math.ceil(allowed.retryInMs / 1000);
      return this.#error(ErrorCode.RateLimited, `too many messages: try again in ${seconds} s`, {
        retryInMs: allowed.retryInMs,
        ...(frame.clientMessageId === undefined ? {} : { clientMessageId: frame.clientMessageId }),
      });
    }
    const sessionId = this.#sessionId!;
    if (frame.type === 'send')
      return this.hub.send(this, sessionId, frame.text, frame.clientMessageId, frame.images);
    const text = frame.type === 'edit' ? { text: frame.text } : {};
    return this.hub.again(this, sessionId, { messageId: frame.messageId, ...text }, frame.clientMessageId);
  }

  /** A hello that passed its checks: (re)binds the connection to the session it asks for. */
  async #bind(frame: HelloFrame): Promise<void> {
    const allowed = this.#hellos.take();
    if (!allowed.ok) {
      // Bound where it was: only a connection's first hello can get here unbound,
      // and the first always fits.
      const seconds = Math.ceil(allowed.retryInMs / 1000);
      return this.#error(ErrorCode.RateLimited, `too many hello frames: try again in ${seconds} s`, {
        retryInMs: allowed.retryInMs,
      });
    }
    clearTimeout(this.#helloTimer);
    if (frame.challenge !== undefined) await this.#takeChallenge(frame.challenge);
    if (this.#closed) return;
    if (this.#sessionId !== undefined) this.hub.leave(this, this.#sessionId);
    this.#sessionId = undefined;
    try {
      const sessionId = await this.hub.hello(this, frame.sessionId, frame.features);
      // The socket closed while the session was opened: it must not stay bound.
      if (this.#ended) return this.hub.leave(this, sessionId);
      this.#sessionId = sessionId;
    } catch (error) {
      // The store cannot be read (a broken disk): say so, and close with a code that
      // tells the client to come back, rather than leave it open and unbound.
      const errorId = logErrorWithId(this.log, error, 'hello failed: the store cannot be read', {
        connection: this.id,
      });
      // Written past the outbox, which closing discards: frames of the session this
      // socket leaves may still be queued, and this is the one it must read.
      const frame: ServerFrame = {
        type: 'error',
        code: ErrorCode.Storage,
        message: 'the server cannot open conversations right now',
        errorId,
      };
      this.#announce(frame);
      this.socket.send(JSON.stringify(frame));
      this.close(CloseCode.TryAgainLater, 'the server cannot serve this now: reconnect in a moment');
    }
  }

  /**
   * Checks the hello's token (or its absence) before anything else is handled: frames
   * that arrive meanwhile are queued and handled in order once it is done.
   */
  #identify(auth: VisitorAuth, frame: HelloFrame, token: string | undefined): void {
    // A hello came in time; checking it may take a moment (a JWKS fetch).
    clearTimeout(this.#helloTimer);
    this.#queue = [];
    auth.identify(token, this.address, frame.anonymousKey).then(
      (result) => {
        if (this.#closed) return;
        if (!result.ok) {
          // Which check failed is for the operator: the client learns nothing from it.
          this.log.info(
            { connection: this.id, remoteAddress: this.remoteAddress ?? null, why: result.why },
            'visitor token refused',
          );
          return this.close(CloseCode.Unauthorized, VISITOR_REFUSED_REASON);
        }
        const { visitor } = result;
        // A hello without a valid key stays the anonymous visitor the connection already is.
        const previous = this.#visitor;
        this.#visitor =
          visitor.anonymousKey !== undefined && previous?.kind === 'anonymous' ? previous : visitor;
        if (this.#visitor.id !== previous?.id) this.#challengePassed = false;
        this.#expireAfter(result.expiresInMs);
        if (!this.#safely(() => this.#bind(frame))) this.#drain();
      },
      (error: unknown) => {
        logErrorWithId(this.log, error, 'visitor check failed', { connection: this.id });
        this.close(CloseCode.TryAgainLater, 'the server cannot serve this now: reconnect in a moment');
      },
    );
  }

  /** Handles the frames queued during a token check, until one starts another check. */
  #drain(): void {
    const queued = this.#queue ?? [];
    this.#queue = undefined;
    while (queued.length > 0 && !this.#closed) {
      this.#process(queued.shift()!);
      if (this.#queue) {
        (this.#queue as string[]).push(...queued);
        return;
      }
    }
  }

  /**
   * Runs a frame's handling; an exception is logged and told to the client by its id.
   * Handling that waits (the store, the cluster) holds the frames after it, in order,
   * until it is done: true then.
   */
  #safely(handle: () => void | Promise<void>): boolean {
    const failed = (error: unknown) => {
      const errorId = logErrorWithId(this.log, error, 'frame handling failed', { connection: this.id });
      this.#error(ErrorCode.Internal, 'internal error', { errorId });
    };
    let pending: void | Promise<void>;
    try {
      pending = handle();
    } catch (error) {
      failed(error);
      return false;
    }
    if (!pending) return false;
    this.#queue ??= [];
    pending.catch(failed).finally(() => {
      if (!this.#closed) this.#drain();
    });
    return true;
  }

  /**
   * Whether this peer may start a turn (asked by the hub before the budgets): an
   * anonymous visitor (or any peer without identity) must have passed the bot challenge,
   * when one is configured; a signed visitor never is asked.
   */
  async clearance(): Promise<PeerRefusal | undefined> {
    if (this.#challengePassed) return undefined;
    const refusal = await challengeClearance(this.options.challenge, this.#visitor);
    // Asked before every turn: a pass, once seen, is not asked of the store again.
    if (!refusal && this.options.challenge && this.#visitor?.kind === 'anonymous')
      this.#challengePassed = true;
    return refusal;
  }

  /**
   * A hello's challenge token: checked with the provider (only for an anonymous visitor,
   * only when a challenge is configured); a failure is `challenge_failed`, the hello is
   * answered all the same.
   */
  async #takeChallenge(token: string): Promise<void> {
    const gate = this.options.challenge;
    if (!gate || this.#visitor?.kind === 'signed' || this.#challengePassed) return;
    const verdict = await gate.verify(token, this.remoteAddress, this.#visitor?.id);
    if (verdict.ok) {
      this.#challengePassed = true;
      return;
    }
    this.log.info(
      { connection: this.id, remoteAddress: this.remoteAddress ?? null, why: verdict.why },
      'bot challenge failed',
    );
    this.#error(ErrorCode.ChallengeFailed, CHALLENGE_TEXT.failed, { challenge: gate.challenge });
  }

  /**
   * A signed visitor's connection lasts as long as its token is accepted: then it closes
   * with 4401, and the client comes back with a fresh one (its token provider), resuming.
   * Each accepted hello sets the end anew; an anonymous one has none.
   */
  #expireAfter(expiresInMs: number | undefined): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    if (expiresInMs === undefined) return;
    this.#expiryTimer = setTimeout(
      () => this.close(CloseCode.Unauthorized, 'the visitor token expired: reconnect with a fresh one'),
      expiresInMs,
    );
    this.#expiryTimer.unref();
  }

  #error(
    code: string,
    message: string,
    more: { errorId?: string; clientMessageId?: string; retryInMs?: number; challenge?: Challenge } = {},
  ): void {
    const frame: ServerFrame = { type: 'error', code, message, ...more };
    this.deliver(frame, JSON.stringify(frame));
  }
}
