/**
 * The hub's side of a handoff to a person (handoff-desk.ts keeps the state): which way a
 * visitor's message goes (to the model, or to the person answering), the visitor's request
 * for a person, and what the console does: a person's reply, the release, and watching a
 * conversation live as a tab of it would.
 */
import { ErrorCode, type ChatMessage, type Handoff } from '@aalis/protocol';
import { logErrorWithId } from '../util/log-error.js';
import { HandoffDesk, type HandoffSettings } from './handoff-desk.js';
import type { HubLogger, Peer } from './hub-options.js';
import { ownerKey } from './owner.js';
import type { Question, Refusal } from './questions.js';
import type { SessionBroadcast } from './session-broadcast.js';
import type { SessionRegistry } from './session-registry.js';

/** Where a visitor's message goes: a turn of the model, the person answering, or nowhere (refused). */
export type MessageRoute = 'model' | 'operator' | 'refused';

export class HubHandoffs {
  readonly #desk: HandoffDesk;

  constructor(
    settings: HandoffSettings,
    private readonly registry: SessionRegistry,
    private readonly broadcast: SessionBroadcast,
    private readonly logger: HubLogger,
    now: () => number,
  ) {
    this.#desk = new HandoffDesk(settings, (sessionId, frame) => broadcast.share(sessionId, frame), now);
  }

  /**
   * What `ready` says of handoffs: offered, and the conversation's own when it has one (a
   * new session has none: it is not read for).
   */
  async readyFields(sessionId: string, known: boolean): Promise<{ handoffOffered: true; handoff?: Handoff }> {
    const handoff = known ? await this.#desk.state(sessionId) : undefined;
    return { handoffOffered: true, ...(handoff ? { handoff } : {}) };
  }

  /** Where a visitor's message goes now; a history that cannot be read refuses it (said to the peer). */
  async route(peer: Peer, sessionId: string, clientMessageId?: string): Promise<MessageRoute> {
    try {
      return (await this.#desk.state(sessionId))?.state === 'active' ? 'operator' : 'model';
    } catch (error) {
      this.#refuse(
        peer,
        ErrorCode.Storage,
        'the conversation could not be read: try again in a moment',
        clientMessageId,
        error,
      );
      return 'refused';
    }
  }

  /** A visitor's message while a person answers. */
  async toOperator(
    peer: Peer,
    sessionId: string,
    ask: () => Promise<Question | Refusal>,
    clientMessageId?: string,
  ): Promise<void> {
    try {
      const question = await ask();
      if ('refused' in question)
        return this.#refuse(peer, question.refused, question.message, clientMessageId);
      await this.#desk.toOperator(sessionId, this.#owner(sessionId, peer), question, clientMessageId);
    } catch (error) {
      this.#refuse(
        peer,
        ErrorCode.Storage,
        'your message could not be saved: send it again',
        clientMessageId,
        error,
      );
    }
  }

  /** `regenerate` and `edit` ask the model: not while a person answers. */
  refuseAgain(peer: Peer, clientMessageId?: string): void {
    this.#refuse(
      peer,
      ErrorCode.Busy,
      'a person is answering this conversation: send them a message',
      clientMessageId,
    );
  }

  /** The visitor's `handoff`. */
  async request(peer: Peer, sessionId: string, reason?: string): Promise<void> {
    const text = reason?.replace(/\s+/g, ' ').trim();
    try {
      await this.#desk.request(sessionId, this.#owner(sessionId, peer), text || undefined);
    } catch (error) {
      this.#refuse(
        peer,
        ErrorCode.Storage,
        'a person could not be asked for: try again in a moment',
        undefined,
        error,
      );
    }
  }

  /** A person's reply from the console; `owner` is the stored session's. */
  reply(sessionId: string, owner: string | null, text: string, operator?: string): Promise<ChatMessage> {
    return this.#desk.reply(sessionId, owner, text, operator);
  }

  /** The conversation goes back to the model. */
  release(sessionId: string, owner: string | null): Promise<void> {
    return this.#desk.release(sessionId, owner);
  }

  /** The agent's `handoff` tool, during a turn of the session. */
  requestForTurn(sessionId: string, reason?: string): Promise<Handoff> {
    return this.#desk.request(sessionId, this.registry.get(sessionId)?.owner ?? null, reason);
  }

  /** The session's owner as held in memory, else the peer's own (a session it made). */
  #owner(sessionId: string, peer: Peer): string | null {
    return this.registry.get(sessionId)?.owner ?? ownerKey(peer.visitor);
  }

  #refuse(peer: Peer, code: string, message: string, clientMessageId?: string, error?: unknown): void {
    const errorId =
      error === undefined ? undefined : logErrorWithId(this.logger, error, 'a handoff step failed');
    this.broadcast.toPeer(peer, {
      type: 'error',
      code,
      message,
      ...(errorId === undefined ? {} : { errorId }),
      ...(clientMessageId === undefined ? {} : { clientMessageId }),
    });
  }
}
