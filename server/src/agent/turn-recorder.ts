/**
 * Emits a turn's events and reads the turn off a view the protocol reducer builds from
 * them, the same way every client does: the caller's (TurnInput.view), or its own. Every
 * back-end records its turn here (the built-in agent, and the upstream agents), so what is
 * stored is exactly what the tabs were shown.
 */
import { randomUUID } from 'node:crypto';
import {
  ErrorCode,
  reduce,
  type ChatView,
  type MessageStatus,
  type StreamChunkMessage,
  type ToolCall,
  type TurnView,
} from '@aalis/protocol';
import { ProviderError } from '../providers/core/errors.js';
import type { RoundReplay } from '../providers/core/types.js';
import type { ErrorReporter } from './public-errors.js';
import type { RoundRecord, StoredMessage } from './stored-message.js';
import type { TurnTrace } from './tracing.js';
import type { EmitAgentEvent, ToolExecuteEvent, TurnError, TurnResult } from './turn-agent.js';

export class TurnRecorder {
  /** The view this recorder folds its events into when the caller keeps none. */
  #own: ChatView | undefined;
  /** The caller's turn as last seen: it stays readable should the caller's buffer move on. */
  #seen: TurnView = {
    parts: [],
    toolCallsProgress: new Map(),
    approvals: new Map(),
    elicitations: new Map(),
  };
  /** The rounds so far, kept with the message when a provider gave something to send back. */
  readonly #rounds: RoundRecord[] = [];
  /** How long each call of the last round took to write, by index (its card's time). */
  #writingMs = new Map<number, number>();
  /** The calls the turn's stop cut off while they ran, by id: they may have completed. */
  readonly #cancelled = new Set<string>();
  /** One id for the turn's answer: the message the model is shown each round is the one stored. */
  readonly id = `msg_${randomUUID()}`;
  /** The turn's spans, set by runTurn before anything is emitted. */
  trace!: TurnTrace;
  /** When the turn began: its answer's `createdAt`. */
  readonly startedAt: number;

  constructor(
    sessionId: string,
    private readonly now: () => number,
    private readonly emit: EmitAgentEvent,
    private readonly view?: () => TurnView | null,
  ) {
    if (!view) this.#own = { sessionId, messages: [], turn: this.#seen };
    this.startedAt = now();
  }

  /** The turn's result: its answer as it stands, with how it ended; its span ends with it. */
  finish(status: MessageStatus, error?: TurnError): TurnResult {
    return this.trace.finish({
      message: this.message(this.startedAt, status, error),
      ...(error ? { error } : {}),
    });
  }

  /**
   * The turn's result once it threw: stopped (`aborted`, no error), a provider's or an
   * agent's failure in the words `told` gives a visitor, or a bug under an error id.
   */
  failed(
    error: unknown,
    signal: AbortSignal,
    told: (error: ProviderError) => TurnError,
    report: ErrorReporter,
  ): TurnResult {
    if (signal.aborted || (error instanceof ProviderError && error.kind === 'aborted'))
      return this.finish('aborted');
    this.trace.fail(error);
    if (error instanceof ProviderError) return this.finish('error', told(error));
    const errorId = report(error, 'the turn failed');
    return this.finish('error', { code: ErrorCode.Internal, message: 'internal error', errorId });
  }

  /** The turn so far: every event emitted, folded by the reducer once. */
  get #turn(): TurnView {
    const turn = this.#own ? this.#own.turn : this.view!();
    if (turn) this.#seen = turn;
    return this.#seen;
  }

  stream(message: StreamChunkMessage): void {
    // The round is written: how long each call took to write, before its card goes.
    if (message.done) {
      this.#writingMs = new Map(
        [...this.#turn.toolCallsProgress.values()].map((card) => [
          card.index,
          Math.max(0, this.now() - card.startedAt),
        ]),
      );
    }
    if (this.#own) this.#own = reduce(this.#own, { type: 'stream', ...message }, this.now());
    this.emit('outbound:stream', message);
  }

  tool(event: ToolExecuteEvent): void {
    if (this.#own) this.#own = reduce(this.#own, { type: 'tool_execute', ...event }, this.now());
    this.emit('tool:execute', event);
  }

  /**
   * A call the turn's stop cut off while it ran: its tabs saw it end `aborted`, but it
   * may have done its work, so it is kept as `unknown` (no result), never as failed.
   */
  cancelled(call: Pick<ToolCall, 'id'>): void {
    this.#cancelled.add(call.id);
  }

  /** `writingMs` for a call's first `tool_execute`, when its card was seen. */
  writing(call: Pick<ToolCall, 'index'>): { writingMs?: number } {
    const ms = this.#writingMs.get(call.index);
    return ms === undefined ? {} : { writingMs: ms };
  }

  roundEnded(calls: readonly ToolCall[], replay: RoundReplay | undefined): void {
    this.#rounds.push({ callIds: calls.map((call) => call.id), ...(replay ? { replay } : {}) });
  }

  message(createdAt: number, status: MessageStatus, error?: TurnError): StoredMessage {
    const turn = this.#turn;
    const message: StoredMessage = {
      id: this.id,
      role: 'assistant',
      parts: turn.parts.map((part) => {
        if (part.type !== 'tool_call' || !this.#cancelled.has(part.callId)) return part;
        const { result: _result, ...cutOff } = part;
        return { ...cutOff, status: 'unknown' as const };
      }),
      createdAt,
      status,
    };
    if (error) message.error = error;
    if (turn.usage) message.usage = turn.usage;
    // Only a provider that sends something back needs the rounds told apart (model-messages.ts).
    if (this.#rounds.some((round) => round.replay)) message.rounds = [...this.#rounds];
    return message;
  }
}
