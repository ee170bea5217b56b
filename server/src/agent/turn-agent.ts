/**
 * The contract between the session hub and whatever answers a turn: the built-in agent
 * (agent.ts, a model and our tools) or an agent running elsewhere (upstream/, which runs
 * its own tools). The hub gives every back-end the same input, hears the same events and
 * stores the same result, so history, resume, Stop, budgets and scale-out work alike for
 * all of them.
 */
import type { EventEmitter } from 'node:events';
import type {
  ChatMessage,
  StreamChunkMessage,
  ToolApproval,
  ToolExecuteFrame,
  TurnStatusFrame,
  TurnView,
} from '@aalis/protocol';
import type { Logger } from '../util/logger.js';
import type { ElicitationReply, ElicitationRequest } from '../tools/define-tool.js';
import type { Workspace } from '../tools/workspace.js';
import type { ImageSource } from './load-images.js';
import type { TurnError } from './public-errors.js';
import type { ToolExecutionLog } from './run-once.js';
import type { StoredMessage } from './stored-message.js';

export type { TurnError };

export type ToolExecuteEvent = Omit<ToolExecuteFrame, 'type'>;
export type TurnStatusEvent = Omit<TurnStatusFrame, 'type'>;

export interface AgentEvents {
  'outbound:stream': [StreamChunkMessage];
  'tool:execute': [ToolExecuteEvent];
  /** Why nothing streams right now (the model is silent, or its request is retried). */
  'turn:status': [TurnStatusEvent];
}

/** Where an agent writes what visitors must not see: the detail behind an error id. */
export type AgentLogger = Pick<Logger, 'error'>;

/** How a call that waited for approval came out. */
export type ApprovalOutcome = 'approved' | 'denied' | 'expired' | 'aborted';

/** Where a turn asks its users to approve a tool call (the session hub, for every tab). */
export interface ApprovalDesk {
  /** The user allowed this tool for the rest of the conversation. */
  granted(toolName: string): boolean;
  /** Asks, and waits for the first decision, the request's expiry, or the signal. */
  ask(request: ToolApproval, signal: AbortSignal): Promise<ApprovalOutcome>;
}

/** A tool's request for the visitor's input, with the call it came from. */
export interface ElicitationQuestion extends ElicitationRequest {
  callId: string;
}

/** Where a turn's tools ask the visitor for input (the session hub, for every tab). */
export interface ElicitationDesk {
  /** Asks, and waits for the first answer that fits, the request's expiry, or the signal (`cancel`). */
  ask(question: ElicitationQuestion, signal: AbortSignal): Promise<ElicitationReply>;
  /** A `url` request's flow finished, as the MCP server said (by its own id for it). */
  completed(serverElicitationId: string): void;
}

export interface TurnInput {
  sessionId: string;
  /** The conversation so far, ending with the user message that starts this turn. */
  history: readonly ChatMessage[];
  signal: AbortSignal;
  workspace: Workspace;
  /** Without one, a call that needs approval is declined: there is no one to ask. */
  approvals?: ApprovalDesk;
  /** Without one, a tool's request for the visitor's input is cancelled: there is no one to ask. */
  elicitations?: ElicitationDesk;
  /** Where tool executions are recorded, so that each runs at most once (run-once.ts). */
  executions?: ToolExecutionLog;
  /** The bytes of an image a user message names (the history's uploads); none without it. */
  images?: ImageSource;
  /**
   * The turn as the caller folds this agent's events into a view, synchronously as they
   * are emitted (the session hub's stream buffer). Given it, the agent reads its answer
   * there rather than running the reducer over every event a second time; without it
   * (the agent on its own), it keeps a view of its own.
   */
  view?: () => TurnView | null;
}

export interface TurnResult {
  /** The final assistant message, as it should be stored (stored-message.ts: sent without its rounds). */
  message: StoredMessage;
  /** Why the turn ended early, for an `error` frame; absent when it completed or was aborted. */
  error?: TurnError;
}

/**
 * What answers turns. It emits what happens as it happens (`outbound:stream`,
 * `tool:execute`, `turn:status`) and resolves with the message to store; it never
 * rejects (a failure is the result's `error`).
 */
export interface TurnAgent extends EventEmitter<AgentEvents> {
  /** The back-end, for logs and metrics labels: a provider's name (`openai`), or an upstream protocol (`ag-ui`). */
  readonly name: string;
  runTurn(input: TurnInput): Promise<TurnResult>;
}

/** How an agent emits: synchronously, each event to every listener. */
export type EmitAgentEvent = <E extends keyof AgentEvents>(event: E, payload: AgentEvents[E][0]) => void;

/**
 * `emitter.emit`, except that a listener that throws is logged and the turn goes on: one
 * broken listener must not end the turn of everyone else.
 */
export function listenerSafeEmit(emitter: EventEmitter<AgentEvents>, logger: AgentLogger): EmitAgentEvent {
  return (event, payload) => {
    try {
      (emitter.emit as (e: typeof event, p: typeof payload) => boolean)(event, payload);
    } catch (error) {
      logger.error({ err: error }, `a listener of ${event} threw`);
    }
  };
}
