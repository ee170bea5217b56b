/**
 * The agent: turns a user message into model rounds and tool runs until the model
 * answers without tools. It forwards every provider chunk unchanged as a
 * `StreamChunkMessage` on `outbound:stream` and announces every tool run on
 * `tool:execute`; it keeps no progress state of its own. The final assistant message is
 * built by the protocol's reducer from exactly the events it emitted, so what is stored
 * is what clients were shown.
 */
import { EventEmitter } from 'node:events';
import { ErrorCode, latestVersions, type ToolApproval, type ToolCall } from '@aalis/protocol';
import { logErrorWithId } from '../util/log-error.js';
import { effectivePolicy, type ApprovalPolicy, type ApprovalRules } from './approval-policy.js';
import type { ChatProvider, ModelMessage, RoundReplay } from '../providers/core/types.js';
import type { ToolContext, ToolRegistry } from '../tools/define-tool.js';
import { loadImages } from './load-images.js';
import { toModelMessages } from './model-messages.js';
import { DEFAULT_MAX_TOOL_RESULT_CHARS } from './limits.js';
import { capResult } from './cap-result.js';
import { publicProviderError, type ErrorReporter } from './public-errors.js';
import { ProgressReporter } from './progress-reporter.js';
import { parseCall, runTool, type ParsedCall } from './tool-runner.js';
import { runOnce } from './run-once.js';
import { TurnTrace } from './tracing.js';
import { TurnRecorder } from './turn-recorder.js';
import {
  listenerSafeEmit,
  type AgentEvents,
  type AgentLogger,
  type ApprovalOutcome,
  type ElicitationDesk,
  type EmitAgentEvent,
  type ToolExecuteEvent,
  type TurnAgent,
  type TurnInput,
  type TurnResult,
  type TurnStatusEvent,
} from './turn-agent.js';

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
  /** Which tools wait for a user's approval before they run (by name, `*` a wildcard); none by default. */
  approval?: ApprovalRules;
  /** How long a user has to decide; no decision by then declines the call (default 10 minutes). */
  approvalTimeoutMs?: number;
  /** Where the detail of an error a visitor sees only by its id goes. */
  logger: AgentLogger;
  now?: () => number;
}

const DEFAULT_MAX_ROUNDS = 8;
const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
const DEFAULT_APPROVAL_TIMEOUT_MS = 10 * 60_000;

/** The fields every `tool_execute` event of a call carries. */
const toolEvent = (sessionId: string, call: ToolCall, phase: ToolExecuteEvent['phase']) => ({
  sessionId,
  phase,
  callId: call.id,
  index: call.index,
  name: call.name,
});

/** What the model reads instead of a result when a call never ran. */
const NOT_RUN: Record<Exclude<ApprovalOutcome, 'approved'>, string> = {
  denied: 'The user declined to run this tool call. It was not run.',
  expired: 'No one approved this tool call in time. It was not run.',
  aborted: 'aborted',
};

export class Agent extends EventEmitter<AgentEvents> implements TurnAgent {
  readonly #options: Required<Omit<AgentOptions, 'systemPrompt' | 'waitingNoticeMs'>> &
    Pick<AgentOptions, 'systemPrompt' | 'waitingNoticeMs'>;
  /** Logs an error's detail under a new id, for an error a visitor sees without it. */
  readonly #report: ErrorReporter = (error, what) => logErrorWithId(this.#options.logger, error, what);
  /** A listener that throws must not end the turn of everyone else. */
  readonly #emit: EmitAgentEvent;

  constructor(options: AgentOptions) {
    super();
    this.#emit = listenerSafeEmit(this, options.logger);
    this.#options = {
      maxRounds: DEFAULT_MAX_ROUNDS,
      toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
      maxToolResultChars: DEFAULT_MAX_TOOL_RESULT_CHARS,
      approval: {},
      approvalTimeoutMs: DEFAULT_APPROVAL_TIMEOUT_MS,
      now: Date.now,
      ...options,
    };
  }

  /** The provider's name: what the metrics and the turn's spans say answered. */
  get name(): string {
    return this.#options.provider.name;
  }

  async runTurn(input: TurnInput): Promise<TurnResult> {
    const { provider, model, tools, maxRounds, now, waitingNoticeMs } = this.#options;
    const turn = new TurnRecorder(input.sessionId, now, this.#emit, input.view);
    // Spans (observability/tracing.ts): no-ops unless the host registered an OpenTelemetry SDK.
    turn.trace = new TurnTrace({ messageId: turn.id, provider: provider.name, model });
    const onStatus = (status: Omit<TurnStatusEvent, 'sessionId'>) =>
      this.#emit('turn:status', { sessionId: input.sessionId, ...status });

    try {
      const context = latestVersions(input.history);
      const images = await loadImages(context, input.images);
      for (let round = 1; round <= maxRounds; round++) {
        turn.trace.round(round);
        const messages: ModelMessage[] = [
          ...(this.#options.systemPrompt
            ? [{ role: 'system' as const, content: this.#options.systemPrompt }]
            : []),
          // The conversation as it stands: the latest version of every exchange.
          ...toModelMessages([...context, turn.message(turn.startedAt, 'complete')], images),
        ];
        let calls: ToolCall[] = [];
        let replay: RoundReplay | undefined;
        for await (const chunk of turn.trace.stream(
          provider.chatStream(
            { model, messages, tools: tools.specs() },
            { signal: input.signal, onStatus, waitingNoticeMs },
          ),
        )) {
          // The calls reach clients as `tool_execute`; the replay never does.
          const { toolCalls, replay: roundReplay, ...forwarded } = chunk;
          if (toolCalls) calls = toolCalls;
          if (roundReplay) replay = roundReplay;
          turn.stream({ sessionId: input.sessionId, ...forwarded });
        }
        turn.roundEnded(calls, replay);
        if (!calls.length) return turn.finish('complete');
        await this.#runTools(calls, turn, input);
        if (input.signal.aborted) return turn.finish('aborted');
        if (round === maxRounds) {
          return turn.finish('error', {
            code: ErrorCode.MaxRounds,
            message: `the model was still calling tools after ${maxRounds} rounds; the turn was stopped`,
          });
        }
      }
      return turn.finish('complete');
    } catch (error) {
      return turn.failed(error, input.signal, (e) => publicProviderError(e, this.#report), this.#report);
    } finally {
      turn.trace.end();
    }
  }

  /**
   * The calls that need no approval start at once, in index order; those that do are
   * asked for, each starting when approved (or ending, never run, when not). The tools
   * run in parallel, each ending when it ends.
   */
  async #runTools(calls: ToolCall[], turn: TurnRecorder, input: TurnInput): Promise<void> {
    const { tools, approval } = this.#options;
    const gated = calls.map((call) => {
      const parsed = parseCall(call, tools);
      // A call that cannot run (bad arguments, no such tool) runs nothing to approve.
      const policy: ApprovalPolicy = parsed.refusal
        ? 'never'
        : effectivePolicy(approval, call.name, tools.get(call.name));
      const asks = policy === 'always' || (policy === 'session' && !input.approvals?.granted(call.name));
      return { parsed, policy, asks };
    });
    for (const { parsed, asks } of gated) if (!asks) this.#start(parsed, turn, input);
    await Promise.all(
      gated.map(async ({ parsed, policy, asks }) => {
        if (asks) {
          const outcome = await this.#askApproval(parsed, policy as 'always' | 'session', input);
          if (outcome !== 'approved') return this.#notRun(parsed, outcome, turn, input);
          this.#start(parsed, turn, input);
        }
        await this.#run(parsed, turn, input);
      }),
    );
  }

  #start({ call, text, refusal }: ParsedCall, turn: TurnRecorder, input: TurnInput): void {
    // An MCP App shows in the card from the start: it gets the arguments, then the result.
    const app = refusal ? undefined : this.#options.tools.get(call.name)?.app;
    turn.tool({
      ...toolEvent(input.sessionId, call, 'start'),
      arguments: text,
      ...turn.writing(call),
      ...(app ? { app } : {}),
    });
  }

  #askApproval(
    { call, text }: ParsedCall,
    policy: 'always' | 'session',
    input: TurnInput,
  ): Promise<ApprovalOutcome> {
    if (!input.approvals) return Promise.resolve('denied');
    const request: ToolApproval = {
      callId: call.id,
      index: call.index,
      name: call.name,
      arguments: text,
      policy,
      expiresAt: this.#options.now() + this.#options.approvalTimeoutMs,
    };
    return input.approvals.ask(request, input.signal);
  }

  /** A call that never ran: an `end` without a `start`, with its arguments (no client has them from a start). */
  #notRun(
    { call, text }: ParsedCall,
    outcome: Exclude<ApprovalOutcome, 'approved'>,
    turn: TurnRecorder,
    input: TurnInput,
  ): void {
    turn.trace.tool(call).notRun(outcome === 'aborted' ? 'error' : 'declined');
    turn.tool({
      ...toolEvent(input.sessionId, call, 'end'),
      arguments: text,
      ...turn.writing(call),
      result: NOT_RUN[outcome],
      isError: true,
      ...(outcome === 'aborted' ? {} : { declined: outcome === 'denied' ? 'user' : 'expired' }),
    });
  }

  async #run(parsed: ParsedCall, turn: TurnRecorder, input: TurnInput): Promise<void> {
    const { tools, toolTimeoutMs, maxToolResultChars, now } = this.#options;
    const { call } = parsed;
    const started = now();
    const reporter = new ProgressReporter((update) =>
      turn.tool({
        ...toolEvent(input.sessionId, call, 'progress'),
        ...update,
      }),
    );
    const execute = () =>
      runTool(
        parsed,
        tools,
        {
          sessionId: input.sessionId,
          workspace: input.workspace,
          progress: reporter.report,
          ...askVisitor(input.elicitations, call.id),
        },
        input.signal,
        toolTimeoutMs,
        this.#report,
      );
    // A call refused before it could run (no such tool, bad arguments) executes nothing to record.
    const outcome = await turn.trace.tool(call).run(
      () => (parsed.refusal ? execute() : runOnce(input.executions, call, execute, this.#report)),
      (ran) => (ran.isError ? 'error' : 'ok'),
    );
    reporter.stop();
    if (outcome.cancelled) turn.cancelled(call);
    // No arguments: they went out with `start`, and may be large.
    turn.tool({
      ...toolEvent(input.sessionId, call, 'end'),
      result: capResult(outcome.result, maxToolResultChars),
      isError: outcome.isError,
      durationMs: Math.max(0, now() - started),
    });
  }
}

/** How a call's tool asks the visitor for input, when the turn has a desk to ask at. */
function askVisitor(
  desk: ElicitationDesk | undefined,
  callId: string,
): Pick<ToolContext, 'elicit' | 'elicitationCompleted'> {
  if (!desk) return {};
  return {
    elicit: (request, signal) => desk.ask({ ...request, callId }, signal),
    elicitationCompleted: (_serverName, serverElicitationId) => desk.completed(serverElicitationId),
  };
}

/** The turn contract's types, for the importers that name them from here. */
export type { AgentEvents, ToolExecuteEvent, TurnInput, TurnResult, TurnError } from './turn-agent.js';
