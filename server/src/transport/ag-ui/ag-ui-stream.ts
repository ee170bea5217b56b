/**
 * An AG-UI client's stream as the session hub sees it: a peer of the session (one more
 * tab) that is sent the argument text of calls being written, and writes AG-UI events to
 * an HTTP response, encoded as `@ag-ui/encoder` does: SSE, or AG-UI's protobuf framing
 * for a client whose `Accept` names it. Frames that come before the response is ready wait, in order.
 * A client that stops reading is cut off once `maxBufferedBytes` wait to be sent: the
 * server never holds more for it.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { BaseEvent } from '@ag-ui/core';
import type { EventEncoder } from '@ag-ui/encoder';
import type { ServerFrame } from '@aalis/protocol';
import type { Visitor } from '../../identity/visitor.js';
import type { Peer, PeerRefusal } from '../../sessions/hub-options.js';
import { challengeClearance, type ChallengeGate } from '../challenge-gate.js';
import { agUiPackages } from './ag-ui-packages.js';

/** What an AG-UI client may leave unread before its stream is cut. */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;

export interface AgUiStreamOptions {
  visitor?: Visitor | undefined;
  /** The client address's count key, for the per-address budgets. */
  address?: string | undefined;
  /** How events are written: SSE, or the protobuf framing (encoderFor). */
  encoder: EventEncoder;
  challenge?: ChallengeGate | undefined;
  maxBufferedBytes?: number;
}

export class AgUiStream implements Peer {
  readonly id = randomUUID();
  readonly argumentText = true;
  readonly visitor: Visitor | undefined;
  readonly address: string | undefined;
  readonly #encoder: EventEncoder;
  readonly #options: AgUiStreamOptions;
  /** Frames delivered before `attach`; undefined once attached. */
  #waiting: ServerFrame[] | undefined = [];
  #onFrame: (frame: ServerFrame) => void = () => {};
  #response: ServerResponse | undefined;
  #closed = false;
  /** The largest event written, in bytes: what may wait for the client besides the limit. */
  #largest = 0;
  /** Called once when the stream ends, whichever side ends it. */
  #onClose: () => void = () => {};

  constructor(options: AgUiStreamOptions) {
    this.#options = options;
    this.visitor = options.visitor;
    this.address = options.address;
    this.#encoder = options.encoder;
  }

  get contentType(): string {
    return this.#encoder.getContentType();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** An anonymous visitor passes the bot challenge (when one is configured) before a turn, as on the socket. */
  clearance(): Promise<PeerRefusal | undefined> {
    return challengeClearance(this.#options.challenge, this.visitor);
  }

  deliver(frame: ServerFrame): void {
    if (this.#closed) return;
    if (this.#waiting) this.#waiting.push(frame);
    else this.#onFrame(frame);
  }

  /** The frames that came before the response was ready, taken once (rejoin reads `ready` there). */
  takeWaiting(): ServerFrame[] {
    return this.#waiting?.splice(0) ?? [];
  }

  /**
   * Writes from now on to `response` (its head already sent) and hands each frame, the
   * waiting ones first, to `onFrame`; `onClose` runs once when the stream ends.
   */
  attach(response: ServerResponse, onFrame: (frame: ServerFrame) => void, onClose: () => void): void {
    this.#response = response;
    this.#onFrame = onFrame;
    this.#onClose = onClose;
    response.on('close', () => this.end());
    // Gone while the request was checked: its 'close' has been and will not come again.
    if (response.destroyed || response.socket?.destroyed !== false) return this.end();
    const waiting = this.takeWaiting();
    this.#waiting = undefined;
    for (const frame of waiting) if (!this.#closed) onFrame(frame);
  }

  write(event: BaseEvent): void {
    const response = this.#response;
    if (this.#closed || !response) return;
    const max = this.#options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    // Over the limit, beyond the largest event written (a rejoin's snapshot may be large
    // on its own): the client reads nothing. Rather than hold its events, its stream ends;
    // it may rejoin.
    if (response.writableLength - this.#largest > max) {
      response.destroy();
      return this.end();
    }
    const bytes = this.#encoder.encodeBinary(event);
    this.#largest = Math.max(this.#largest, bytes.byteLength);
    response.write(bytes);
  }

  /** Ends the stream (the run ended, the client went, the server stops). */
  end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#waiting = undefined;
    if (this.#response && !this.#response.writableEnded) this.#response.end();
    this.#onClose();
  }
}

/**
 * The encoder for a request's `Accept`: SSE unless AG-UI's protobuf framing is named.
 * (`@ag-ui/encoder` itself picks protobuf for an Accept of any type too, which a plain `fetch` or curl
 * sends and could not read.)
 */
export async function encoderFor(accept: string | undefined): Promise<EventEncoder> {
  const { AGUI_MEDIA_TYPE, EventEncoder } = await agUiPackages();
  return new EventEncoder(accept?.includes(AGUI_MEDIA_TYPE) ? { accept } : {});
}
