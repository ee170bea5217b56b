/**
 * What the chat keeps about MCP servers' requests for the visitor's input beyond the
 * reducer's view: which were answered from this tab and wait for their `elicitation_settled`
 * (their buttons stay disabled, so a double click answers once) or were refused by the
 * server (said at the form), and which were already announced and evented (once each,
 * reconnects included). Kept by the conversation (controllers/conversation.ts).
 */
import type { ReactiveControllerHost } from 'lit';
import type {
  ClientFrame,
  Elicitation,
  ElicitationAction,
  ElicitationAnswerFrame,
  ErrorFrame,
  TurnView,
} from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';

/** A form's answer: its values by field name (strings, numbers, booleans, lists of choices). */
export type ElicitationContent = NonNullable<ElicitationAnswerFrame['content']>;

/**
 * `aalis-elicitation`: an MCP server asks the visitor for input during a tool call (a form,
 * or a page to visit), dispatched once per request when it first shows (live, or restored
 * after a reload). Bubbling and composed, as the chat's other events.
 */
export type AalisElicitationEvent = CustomEvent<
  Pick<Elicitation, 'elicitationId' | 'callId' | 'serverName' | 'mode' | 'message'>
>;

/** The chat the requests show in, and are answered through (`<aalis-chat>`). */
export interface ElicitationChat {
  readonly strings: Strings;
  readonly locale: string;
  readonly theme: string;
  answerElicitation(elicitationId: string, action: ElicitationAction, content?: ElicitationContent): boolean;
}

/** What a request's card answers through. */
export interface ElicitationHost {
  readonly chat: ElicitationChat;
  /**
   * An answer from the card went: its pressed button is disabled, then goes with the
   * card, and the focus with it. The chat moves it to the composer, as after a decision.
   */
  answered(): void;
}

declare global {
  interface HTMLElementEventMap {
    'aalis-elicitation': AalisElicitationEvent;
  }
}

/**
 * This tab's answer to a request, until it settles: `true` once sent, or the server's
 * `error` that refused it (`invalid_answer`: it may be corrected and sent again;
 * `not_pending`: it was answered elsewhere, or is no longer open).
 */
export type Answered = true | ErrorFrame;

export class ElicitationRequests {
  /** By elicitation id: the requests answered here whose settling has not arrived. */
  readonly answered = new Map<string, Answered>();
  readonly #seen = new Set<string>();

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly send: (frame: ClientFrame) => boolean,
  ) {}

  /**
   * Sends an answer to a request still open, once: false when there is none such, it was
   * answered here, or the frame could not be sent. `content` goes only with an accept.
   */
  answer(
    turn: TurnView | null,
    elicitationId: string,
    action: ElicitationAction,
    content?: ElicitationContent,
  ): boolean {
    const asked = turn?.elicitations.get(elicitationId);
    const frame = { type: 'elicitation_answer', elicitationId, action } as const;
    if (
      !asked ||
      asked.opened ||
      this.answered.get(elicitationId) === true ||
      !this.send(content && action === 'accept' ? { ...frame, content } : frame)
    )
      return false;
    this.answered.set(elicitationId, true);
    this.host.requestUpdate();
    return true;
  }

  /** Another conversation is asked for: its requests are announced and evented as they show. */
  leave(): void {
    this.#seen.clear();
  }

  /** An `error` about an answer (it names its elicitation): said at the form. */
  refused(frame: ErrorFrame): boolean {
    const id = frame.elicitationId;
    if (id !== undefined) this.answered.set(id, frame);
    return id !== undefined;
  }

  /**
   * After a frame that changed the requests: forgets the answers of requests that are gone
   * (settled; or, after a reconnect, never received), and events new requests; returns
   * what to announce of them.
   */
  track(turn: TurnView | null, strings: Strings): string {
    const open = turn?.elicitations;
    for (const id of this.answered.keys()) if (!open?.has(id)) this.answered.delete(id);
    const said: string[] = [];
    for (const asked of open?.values() ?? []) {
      const { elicitationId, callId, serverName, mode, message } = asked;
      if (this.#seen.has(elicitationId)) continue;
      this.#seen.add(elicitationId);
      const detail = { elicitationId, callId, serverName, mode, message };
      this.host.dispatchEvent(
        new CustomEvent('aalis-elicitation', { bubbles: true, composed: true, detail }),
      );
      said.push(`${strings.elicitationAsk(serverName)} ${message}`);
    }
    return said.join(' ');
  }
}
