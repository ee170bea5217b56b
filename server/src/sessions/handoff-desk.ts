/**
 * A conversation's handoff to a person (PROTOCOL.md section 8). The visitor (`handoff`
 * frame) or the agent (the `handoff` tool) asks for one: the conversation is `waiting`,
 * every tab is told, and the site hears of it (the webhook). A person replies from the
 * console: their message reaches every tab, the conversation is `active`, a turn the model
 * runs stops, and from then on the visitor's messages go to the person, stored and shown,
 * and start no turn. Released, the conversation is the model's again.
 *
 * The state is kept in the history (the source of truth for every instance and after a
 * restart); its changes reach the tabs of every instance as shared frames.
 */
import { randomUUID } from 'node:crypto';
import type { ChatMessage, Handoff, ImageRef, ServerFrame } from '@aalis/protocol';
import type { HandoffStore } from '../history/archive.js';

/** A request for a person, as the site is told of it. */
export interface HandoffRequest {
  sessionId: string;
  /** The conversation's owner (`user:<sub>`, `anon:<id>`), null without one. */
  visitorId: string | null;
  reason?: string;
}

export interface HandoffSettings {
  store: HandoffStore;
  /** The name a person's reply shows when it gives none (default "Support"). */
  operatorName?: string;
  /** Someone asked for a person: the site is told (admin/handoff-webhook.ts). */
  onRequested?(request: HandoffRequest): void;
}

/** What the desk needs of the hub: sharing a frame with every tab of a session, on every instance. */
export type ShareFrame = (sessionId: string, frame: ServerFrame) => void;

export const DEFAULT_OPERATOR_NAME = 'Support';
/** The longest reply a person sends, in characters (a visitor's `send` has its own limit). */
export const MAX_OPERATOR_TEXT = 20_000;

export class HandoffDesk {
  constructor(
    private readonly settings: HandoffSettings,
    private readonly share: ShareFrame,
    private readonly now: () => number,
  ) {}

  /** The conversation's handoff; undefined for none. */
  state(sessionId: string): Promise<Handoff | undefined> {
    return this.settings.store.handoff(sessionId);
  }

  /**
   * A person is asked for: `waiting`, said to every tab, and the site told. Asked again
   * while waiting or answered, it changes nothing (and tells no one twice).
   */
  async request(sessionId: string, owner: string | null, reason?: string): Promise<Handoff> {
    const current = await this.settings.store.handoff(sessionId);
    if (current) return current;
    const handoff: Handoff = { state: 'waiting', since: this.now(), ...(reason ? { reason } : {}) };
    await this.settings.store.setHandoff(sessionId, handoff, owner);
    this.#announce(sessionId, handoff);
    this.settings.onRequested?.({ sessionId, visitorId: owner, ...(reason ? { reason } : {}) });
    return handoff;
  }

  /**
   * A person's reply: stored, sent to every tab, and the conversation `active` under their
   * name (the first reply stops a turn the model runs: session-broadcast.ts).
   */
  async reply(
    sessionId: string,
    owner: string | null,
    text: string,
    operator?: string,
  ): Promise<ChatMessage> {
    const author = operator?.trim() || this.settings.operatorName || DEFAULT_OPERATOR_NAME;
    const current = await this.settings.store.handoff(sessionId);
    if (current?.state !== 'active' || current.operator !== author) {
      const handoff: Handoff = {
        state: 'active',
        operator: author,
        since: this.now(),
        ...(current?.reason ? { reason: current.reason } : {}),
      };
      await this.settings.store.setHandoff(sessionId, handoff, owner);
      this.#announce(sessionId, handoff);
    }
    const message: ChatMessage = {
      id: `msg_${randomUUID()}`,
      role: 'operator',
      author,
      parts: [{ type: 'text', text }],
      createdAt: this.now(),
    };
    await this.settings.store.appendMessage(sessionId, message, owner);
    this.share(sessionId, { type: 'message', sessionId, message });
    return message;
  }

  /** The conversation goes back to the model. */
  async release(sessionId: string, owner: string | null): Promise<void> {
    if (!(await this.settings.store.handoff(sessionId))) return;
    await this.settings.store.setHandoff(sessionId, null, owner);
    this.share(sessionId, { type: 'handoff', sessionId, state: 'off', since: this.now() });
  }

  /** A visitor's message while a person answers: stored and shown, for the person; no turn. */
  async toOperator(
    sessionId: string,
    owner: string | null,
    question: { text: string; images?: ImageRef[] },
    clientMessageId?: string,
  ): Promise<void> {
    const message: ChatMessage = {
      id: `msg_${randomUUID()}`,
      role: 'user',
      parts: question.text ? [{ type: 'text', text: question.text }] : [],
      createdAt: this.now(),
      toOperator: true,
      ...(question.images?.length ? { images: question.images } : {}),
    };
    await this.settings.store.appendMessage(sessionId, message, owner);
    this.share(sessionId, {
      type: 'user_message',
      sessionId,
      message,
      ...(clientMessageId ? { clientMessageId } : {}),
    });
  }

  #announce(sessionId: string, handoff: Handoff): void {
    this.share(sessionId, { type: 'handoff', sessionId, ...handoff });
  }
}
