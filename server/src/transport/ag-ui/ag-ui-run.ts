/**
 * One AG-UI run as the session's frames tell it (PROTOCOL.md section 6): turns the frames
 * of the turn it follows into AG-UI events, in the order AG-UI clients check. Text and
 * reasoning become messages that open on their first delta and close when something else
 * begins; a tool call being written becomes TOOL_CALL_START (once its id and name are
 * known) and one TOOL_CALL_ARGS per fragment, TOOL_CALL_END when the round is written,
 * TOOL_CALL_RESULT when the tool ended; the answer ends the run (RUN_FINISHED, or
 * RUN_ERROR when it failed). What AG-UI has no event for (a card's start time, the
 * turn's status, a tool's own progress, an approval, an MCP server's request for the
 * visitor's input) goes out as CUSTOM events named `aalis.*`, with the fields of the frame
 * it stands for. Pure: the caller delivers the frames and writes the events.
 */
import { EventType, type BaseEvent, type Message } from '@ag-ui/core';
import {
  type ChatMessage,
  type ServerFrame,
  type StreamFrame,
  type StreamResumeFrame,
  type ToolCallProgressEntry,
  type ToolExecuteFrame,
} from '@aalis/protocol';
import { agUiMessages, asText, resultMessageId } from './ag-ui-messages.js';

/** Where the run's events go, in order. */
export type EventSink = (event: BaseEvent) => void;

/** A card of the round being written: what its TOOL_CALL_START waits for, and the text meanwhile. */
interface Card {
  callId?: string;
  name: string;
  /** Argument text that came before the call could start (its id or name unknown yet). */
  held: string;
  /** When its first fragment came (server clock): the card's clock, as every client's. */
  startedAt: number;
}

/** The names of the CUSTOM events, documented in PROTOCOL.md section 6. */
export const CustomEvents = {
  /** A tool call's card: `{toolCallId, index, name, startedAt}` (server clock), when it starts and on rejoin. */
  card: 'aalis.tool_call_card',
  /** The turn waits (`turn_status`): `{state, attempt?, retryInMs?}`. */
  turnStatus: 'aalis.turn_status',
  /** A running tool's own progress: `{toolCallId, progress, total?, message?}`. */
  toolProgress: 'aalis.tool_progress',
  /** A tool call waits for a visitor's approval (decided in the widget): the request. */
  approval: 'aalis.tool_approval_request',
  /** An MCP server asks the visitor for input mid-call (answered in the widget): the `Elicitation`. */
  elicitation: 'aalis.elicitation',
  /** How a request for input was settled: `{elicitationId, action, reason?}`. */
  elicitationSettled: 'aalis.elicitation_settled',
  /** A page's flow finished, the MCP server said: `{elicitationId}`. */
  elicitationComplete: 'aalis.elicitation_complete',
  /**
   * The conversation's handoff to a person (PROTOCOL.md section 8): `{state, operator?,
   * reason?, since}`. A run whose message went to the person (`active`) ends with it.
   */
  handoff: 'aalis.handoff',
  /** The key of the anonymous visitor this run made: `{key}`, to send back as `X-Aalis-Anonymous-Key`. */
  anonymousKey: 'aalis.anonymous_key',
} as const;

/** The CUSTOM event each elicitation frame becomes: the frame's fields but its type and session. */
const ELICITATION_EVENTS = {
  elicitation: CustomEvents.elicitation,
  elicitation_settled: CustomEvents.elicitationSettled,
  elicitation_complete: CustomEvents.elicitationComplete,
} as const;

export class AgUiRun {
  #textId: string | undefined;
  #reasoningId: string | undefined;
  #sequence = 0;
  /** The round's cards by index, until the round is written. */
  #cards = new Map<number, Card>();
  /** Calls whose TOOL_CALL_START went out, and whether their TOOL_CALL_END did. */
  readonly #calls = new Map<string, { ended: boolean }>();
  #ended = false;

  constructor(
    readonly threadId: string,
    readonly runId: string,
    private readonly emit: EventSink,
    private readonly now: () => number = Date.now,
  ) {}

  get ended(): boolean {
    return this.#ended;
  }

  started(): void {
    this.emit({ type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId } as BaseEvent);
  }

  /** The anonymous visitor this run made (the client did not name one): its key, to keep. */
  anonymousKey(key: string): void {
    this.#custom(CustomEvents.anonymousKey, { key });
  }

  /**
   * A client that rejoins: the conversation so far (`history`, and the live turn's parts
   * as one assistant message), then text still being written as an open message with
   * what is written so far (the rest continues it), and for each call still being written
   * its start and the arguments so far in one TOOL_CALL_ARGS, with its card's start time.
   */
  rejoined(history: readonly ChatMessage[], live: StreamResumeFrame | null): void {
    this.started();
    const messages: Message[] = agUiMessages(history);
    const parts = [...(live?.parts ?? [])];
    // Text the model is still writing goes on in the same message, not in the snapshot.
    const writing =
      parts.at(-1)?.type === 'text' && !live?.toolCallsProgress.length ? parts.pop() : undefined;
    if (live) {
      const answer: ChatMessage = { id: this.#nextId(), role: 'assistant', parts, createdAt: 0 };
      if (parts.length) messages.push(...agUiMessages([answer]));
      for (const part of parts) if (part.type === 'tool_call') this.#calls.set(part.callId, { ended: true });
    }
    this.emit({ type: EventType.MESSAGES_SNAPSHOT, messages } as BaseEvent);
    if (!live) return this.#finish({ status: 'complete' });
    if (writing?.type === 'text')
      this.#stream({ type: 'stream', sessionId: live.sessionId, contentDelta: writing.text });
    for (const entry of live.toolCallsProgress) {
      this.#cards.set(entry.index, {
        name: entry.name,
        held: entry.arguments ?? '',
        startedAt: entry.startedAt,
        ...callIdOf(entry),
      });
      this.#startCard(entry.index);
    }
    for (const approval of live.approvals ?? []) this.#custom(CustomEvents.approval, approval);
    // Open ones as they stand (a page already opened, or completed, says so).
    for (const elicitation of live.elicitations ?? []) this.#custom(CustomEvents.elicitation, elicitation);
    if (live.turnStatus) this.#custom(CustomEvents.turnStatus, live.turnStatus);
  }

  /** A frame of the turn this run follows; after the one that ends it, nothing more is sent. */
  frame(frame: ServerFrame): void {
    if (this.#ended) return;
    switch (frame.type) {
      case 'stream':
        return this.#stream(frame);
      case 'tool_execute':
        return this.#toolExecute(frame);
      case 'turn_status': {
        const { type: _type, sessionId: _session, ...status } = frame;
        return this.#custom(CustomEvents.turnStatus, status);
      }
      case 'tool_approval_request': {
        const { type: _type, sessionId: _session, ...request } = frame;
        return this.#custom(CustomEvents.approval, request);
      }
      case 'elicitation':
      case 'elicitation_settled':
      case 'elicitation_complete': {
        const { type, sessionId: _session, ...value } = frame;
        return this.#custom(ELICITATION_EVENTS[type], value);
      }
      case 'message':
        if (frame.message.role === 'assistant') this.#finish(frame.message);
        return;
      case 'handoff': {
        const { type: _type, sessionId: _session, ...handoff } = frame;
        return this.#custom(CustomEvents.handoff, handoff);
      }
      case 'user_message':
        // A person answers the conversation: the message is theirs, and no turn follows.
        if (frame.message.toOperator) {
          this.#custom(CustomEvents.handoff, { state: 'active', toOperator: frame.message.id });
          this.#finish({ status: 'complete' });
        }
        return;
      case 'error':
        return this.#fail(frame.code, frame.message);
      case 'session_deleted':
        return this.#fail('session_deleted', 'the conversation was deleted');
      default:
        return;
    }
  }

  /** Ends the run as failed (the server stops, the client's stream is cut). */
  fail(code: string, message: string): void {
    if (!this.#ended) this.#fail(code, message);
  }

  #stream(frame: StreamFrame): void {
    if (frame.reasoningDelta) {
      this.#closeText();
      if (!this.#reasoningId) {
        this.#reasoningId = this.#nextId();
        this.emit({ type: EventType.REASONING_START, messageId: this.#reasoningId } as BaseEvent);
        this.emit({
          type: EventType.REASONING_MESSAGE_START,
          messageId: this.#reasoningId,
          role: 'reasoning',
        } as BaseEvent);
      }
      this.emit({
        type: EventType.REASONING_MESSAGE_CONTENT,
        messageId: this.#reasoningId,
        delta: frame.reasoningDelta,
      } as BaseEvent);
    }
    if (frame.contentDelta) {
      this.#closeReasoning();
      if (!this.#textId) {
        this.#textId = this.#nextId();
        this.emit({
          type: EventType.TEXT_MESSAGE_START,
          messageId: this.#textId,
          role: 'assistant',
        } as BaseEvent);
      }
      this.emit({
        type: EventType.TEXT_MESSAGE_CONTENT,
        messageId: this.#textId,
        delta: frame.contentDelta,
      } as BaseEvent);
    }
    const progress = frame.toolCallProgress;
    if (progress) {
      this.#closeText();
      this.#closeReasoning();
      const card = this.#cards.get(progress.index) ?? { name: '', held: '', startedAt: this.now() };
      this.#cards.set(progress.index, card);
      if (progress.name) card.name = progress.name;
      if (progress.callId && !card.callId) card.callId = progress.callId;
      const started = card.callId !== undefined && this.#calls.has(card.callId);
      if (started && progress.argumentsDelta) this.#args(card.callId!, progress.argumentsDelta);
      else {
        card.held += progress.argumentsDelta ?? '';
        this.#startCard(progress.index);
      }
    }
    // The round is written: every call started ends its arguments.
    if (frame.done) {
      for (const card of this.#cards.values()) if (card.callId) this.#endCall(card.callId);
      this.#cards = new Map();
    }
  }

  #toolExecute(frame: ToolExecuteFrame): void {
    this.#closeText();
    this.#closeReasoning();
    if (frame.phase === 'progress') {
      const { progress, total, message } = frame;
      return this.#custom(CustomEvents.toolProgress, {
        toolCallId: frame.callId,
        progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
      });
    }
    // A call no card announced (a provider that sends calls whole, a declined call): whole now.
    if (!this.#calls.has(frame.callId)) {
      this.#startCall(frame.callId, frame.name, frame.index);
      this.#args(frame.callId, asText(frame.arguments ?? {}));
    }
    this.#endCall(frame.callId);
    if (frame.phase === 'end') {
      this.emit({
        type: EventType.TOOL_CALL_RESULT,
        messageId: resultMessageId(frame.callId),
        toolCallId: frame.callId,
        content: asText(frame.result),
        role: 'tool',
      } as BaseEvent);
    }
  }

  /** Starts a card's call once its id and name are known, with the text held meanwhile. */
  #startCard(index: number): void {
    const card = this.#cards.get(index)!;
    if (!card.callId || !card.name || this.#calls.has(card.callId)) return;
    this.#startCall(card.callId, card.name, index, card.startedAt);
    if (card.held) this.#args(card.callId, card.held);
    card.held = '';
  }

  /** `startedAt`: its card's, else now (a call that starts with no card seen). */
  #startCall(callId: string, name: string, index: number, startedAt = this.now()): void {
    this.#calls.set(callId, { ended: false });
    this.emit({ type: EventType.TOOL_CALL_START, toolCallId: callId, toolCallName: name } as BaseEvent);
    this.#custom(CustomEvents.card, { toolCallId: callId, index, name, startedAt });
  }

  #args(callId: string, delta: string): void {
    if (delta) this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId: callId, delta } as BaseEvent);
  }

  #endCall(callId: string): void {
    const call = this.#calls.get(callId);
    if (!call || call.ended) return;
    call.ended = true;
    this.emit({ type: EventType.TOOL_CALL_END, toolCallId: callId } as BaseEvent);
  }

  /** The answer ended the turn: everything open closes, then the run's last event. */
  #finish(answer: Pick<ChatMessage, 'status' | 'error'>): void {
    this.#closeAll();
    if (answer.status === 'error') {
      const { code = 'error', message = 'the answer failed' } = answer.error ?? {};
      return this.#fail(code, message);
    }
    this.#ended = true;
    this.emit({
      type: EventType.RUN_FINISHED,
      threadId: this.threadId,
      runId: this.runId,
      ...(answer.status === 'aborted' ? { outcome: { type: 'cancelled' } } : {}),
    } as BaseEvent);
  }

  #fail(code: string, message: string): void {
    this.#closeAll();
    this.#ended = true;
    this.emit({ type: EventType.RUN_ERROR, message, code } as BaseEvent);
  }

  #closeAll(): void {
    this.#closeText();
    this.#closeReasoning();
    // A call cut off while written ends its arguments (AG-UI wants every call closed); it
    // has no result, and nothing ran it.
    for (const [callId, call] of this.#calls) if (!call.ended) this.#endCall(callId);
  }

  #closeText(): void {
    if (!this.#textId) return;
    this.emit({ type: EventType.TEXT_MESSAGE_END, messageId: this.#textId } as BaseEvent);
    this.#textId = undefined;
  }

  #closeReasoning(): void {
    if (!this.#reasoningId) return;
    this.emit({ type: EventType.REASONING_MESSAGE_END, messageId: this.#reasoningId } as BaseEvent);
    this.emit({ type: EventType.REASONING_END, messageId: this.#reasoningId } as BaseEvent);
    this.#reasoningId = undefined;
  }

  #custom(name: string, value: unknown): void {
    this.emit({ type: EventType.CUSTOM, name, value } as BaseEvent);
  }

  /** Message ids of this run: unique per run, so a rejoin's never collide with a live run's. */
  #nextId(): string {
    return `${this.runId}:${this.#sequence++}`;
  }
}

const callIdOf = (entry: ToolCallProgressEntry): { callId?: string } =>
  entry.callId ? { callId: entry.callId } : {};
