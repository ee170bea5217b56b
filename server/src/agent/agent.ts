/**
 * The agent: turns a user message into model rounds and tool runs until the model
 * answers without tools. It forwards every provider chunk unchanged as a
 * `StreamChunkMessage` on `outbound:stream` and announces every tool run on
 * `tool:execute`; it keeps no progress state of its own. The final assistant message is
 * built by the protocol's reducer from exactly the events it emitted, so what is stored
 * is what clients were shown.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  ErrorCode,
  reduce,
  type ChatMessage,
  type ChatView,
  type MessageStatus,
  type StreamChunkMessage,
  type ToolCall,
  type ToolExecuteFrame,
  type TurnStatusFrame,
} from '@aalis/protocol';
import { logErrorWithId, type ErrorLogger } from '../log-error.js';
import { ProviderError } from '../providers/errors.js';
import type { ChatProvider, ModelMessage } from '../providers/types.js';
import type { ToolRegistry } from '../tools/define-tool.js';
import type { Workspace } from '../tools/workspace.js';
import { toModelMessages } from './model-messages.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS } from '../sessions/limits.js';
import { capResult } from './cap-result.js';
import { publicProviderError, type ErrorReporter } from './public-errors.js';
import { parseCall, runTool } from './tool-runner.js';

export type ToolExecuteEvent = Omit<ToolExecuteFrame, 'type'>;
export type TurnStatusEvent = Omit<TurnStatusFrame, 'type'>;

export interface AgentEvents {
  'outbound:stream': [StreamChunkMessage];
  'tool:execute': [ToolExecuteEvent];
  /** Why nothing streams right now (the model is silent, or its request is retried). */
  'turn:status': [TurnStatusEvent];
}

/** Where the agent writes what visitors must not see: the detail behind an error id. */
export type AgentLogger = ErrorLogger;

export interface AgentOptions {
  provider: ChatProvider;
  model: string;
  tools: ToolRegistry;
  systemPrompt?: string;
  /** Model rounds in one turn before it is stopped. */
  maxRounds?: number;
  /** Time limit of a tool that sets none of its own. */
  toolTimeoutMs?: number;
  /** Silence of the model before the visitor is told it is waited for. */
  waitingNoticeMs?: number;
  /** Longest tool result, as text; a longer one is cut (the model and every tab get the same). */
  maxToolResultChars?: number;
  logger?: AgentLogger;
  now?: () => number;
}

export interface TurnInput {
  sessionId: string;
  /** The conversation so far, ending with the user message that starts this turn. */
  history: readonly ChatMessage[];
  signal: AbortSignal;
  workspace: Workspace;
}

export interface TurnError {
  code: (typeof ErrorCode)[keyof typeof ErrorCode];
  /** Safe to show a visitor. */
  message: string;
  /** Finds the detail in the log. */
  errorId?: string;
}

export interface TurnResult {
  /** The final assistant message, as it should be stored and sent. */
  message: ChatMessage;
  /** Why the turn ended early, for an `error` frame; absent when it completed or was aborted. */
  error?: TurnError;
}

export const DEFAULT_MAX_ROUNDS = 8;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

export class Agent extends EventEmitter<AgentEvents> {
  readonly #options: Required<Omit<AgentOptions, 'systemPrompt' | 'waitingNoticeMs'>> &
    Pick<AgentOptions, 'systemPrompt' | 'waitingNoticeMs'>;
  /** Logs an error's detail under a new id, for an error a visitor sees without it. */
  readonly #report: ErrorReporter = (error, what) => logErrorWithId(this.#options.logger, error, what);

  constructor(options: AgentOptions) {
    super();
    this.#options = {
      maxRounds: DEFAULT_MAX_ROUNDS,
      toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      maxToolResultChars: DEFAULT_MAX_TOOL_RESULT_CHARS,
      now: Date.now,
      logger: { error: (object, message) => console.error(`agent: ${message}`, object) },
      ...options,
    };
  }

  async runTurn(input: TurnInput): Promise<TurnResult> {
    const { provider, model, tools, maxRounds, now, waitingNoticeMs } = this.#options;
    const turn = new TurnRecorder(input.sessionId, now, (event, payload) => this.#emit(event, payload));
    const startedAt = now();
    const finish = (status: MessageStatus, error?: TurnError): TurnResult => ({
      message: turn.message(startedAt, status, error),
      ...(error ? { error } : {}),
    });
    const onStatus = (status: Omit<TurnStatusEvent, 'sessionId'>) =>
      this.#emit('turn:status', { sessionId: input.sessionId, ...status });

    try {
      for (let round = 1; round <= maxRounds; round++) {
        const messages: ModelMessage[] = [
          ...(this.#options.systemPrompt
            ? [{ role: 'system' as const, content: this.#options.systemPrompt }]
            : []),
          ...toModelMessages([...input.history, turn.message(startedAt, 'complete')]),
        ];
        let calls: ToolCall[] = [];
        for await (const chunk of provider.chatStream(
          { model, messages, tools: tools.specs() },
          { signal: input.signal, onStatus, waitingNoticeMs },
        )) {
          const { toolCalls, ...forwarded } = chunk;
          if (toolCalls) calls = toolCalls;
          turn.stream({ sessionId: input.sessionId, ...forwarded });
        }
        if (!calls.length) return finish('complete');
        await this.#runTools(calls, turn, input);
        if (input.signal.aborted) return finish('aborted');
        if (round === maxRounds) {
          return finish('error', {
            code: ErrorCode.MaxRounds,
            message: `the model was still calling tools after ${maxRounds} rounds; the turn was stopped`,
          });
        }
      }
      return finish('complete');
    } catch (error) {
      if (input.signal.aborted || (error instanceof ProviderError && error.kind === 'aborted'))
        return finish('aborted');
      if (error instanceof ProviderError) return finish('error', publicProviderError(error, this.#report));
      const errorId = this.#report(error, 'the turn failed');
      return finish('error', { code: ErrorCode.Internal, message: 'internal error', errorId });
    }
  }

  /** All starts first, in index order; then the tools run in parallel, each ending when it ends. */
  async #runTools(calls: ToolCall[], turn: TurnRecorder, input: TurnInput): Promise<void> {
    const { tools, toolTimeoutMs, maxToolResultChars, now } = this.#options;
    const parsed = calls.map((call) => parseCall(call, tools));
    for (const { call, arguments: args } of parsed) {
      turn.tool({
        sessionId: input.sessionId,
        phase: 'start',
        callId: call.id,
        index: call.index,
        name: call.name,
        arguments: args,
      });
    }
    await Promise.all(
      parsed.map(async (p) => {
        const started = now();
        const outcome = await runTool(
          p,
          tools,
          { sessionId: input.sessionId, workspace: input.workspace },
          input.signal,
          toolTimeoutMs,
          this.#report,
        );
        // No arguments: they went out with `start`, and may be large.
        turn.tool({
          sessionId: input.sessionId,
          phase: 'end',
          callId: p.call.id,
          index: p.call.index,
          name: p.call.name,
          result: capResult(outcome.result, maxToolResultChars),
          isError: outcome.isError,
          durationMs: Math.max(0, now() - started),
        });
      }),
    );
  }

  /** A listener that throws must not end the turn of everyone else. */
  #emit<E extends keyof AgentEvents>(event: E, payload: AgentEvents[E][0]): void {
    try {
      (this.emit as (e: E, p: AgentEvents[E][0]) => boolean)(event, payload);
    } catch (error) {
      this.#options.logger.error({ err: error }, `a listener of ${event} threw`);
    }
  }
}

/**
 * Emits the turn's events and folds each into a view with the protocol reducer, the
 * same way every client does; the final message is read off that view.
 */
class TurnRecorder {
  #view: ChatView;
  /** One id for the turn's answer: the message the model is shown each round is the one stored. */
  readonly #id = `msg_${randomUUID()}`;

  constructor(
    sessionId: string,
    private readonly now: () => number,
    private readonly emit: <E extends keyof AgentEvents>(event: E, payload: AgentEvents[E][0]) => void,
  ) {
    this.#view = { sessionId, messages: [], turn: { parts: [], toolCallsProgress: new Map() } };
  }

  stream(message: StreamChunkMessage): void {
    this.#view = reduce(this.#view, { type: 'stream', ...message }, this.now());
    this.emit('outbound:stream', message);
  }

  tool(event: ToolExecuteEvent): void {
    this.#view = reduce(this.#view, { type: 'tool_execute', ...event }, this.now());
    this.emit('tool:execute', event);
  }

  message(createdAt: number, status: MessageStatus, error?: TurnError): ChatMessage {
    const turn = this.#view.turn!;
    const message: ChatMessage = {
      id: this.#id,
      role: 'assistant',
      parts: [...turn.parts],
      createdAt,
      status,
    };
    if (error) message.error = error;
    if (turn.usage) message.usage = turn.usage;
    return message;
  }
}
