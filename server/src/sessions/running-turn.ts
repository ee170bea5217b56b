/**
 * A turn this instance runs: what stops it (its controller, and why the server stopped
 * it), what it has streamed against its caps, and what its end reports. The one place a
 * turn is built, whether a visitor asked it or it is ended on behalf of a dead instance.
 */
import { ErrorCode, type StreamChunkMessage } from '@aalis/protocol';
import type { TurnError } from '../agent/turn-agent.js';
import type { TurnLease } from './coordination.js';
import type { Peer } from './hub-options.js';
import type { TurnDecision } from './coordination.js';
import type { PendingApprovals } from './pending-approvals.js';
import type { PendingElicitations } from './pending-elicitations.js';

/** What one turn may stream (SessionHubOptions `maxTurnChars`, `maxToolArgumentChars`). */
export interface TurnCaps {
  maxTurnChars: number;
  maxToolArgumentChars: number;
}

export class RunningTurn {
  /** The turn's id: its user message's id (the history's running mark, the lease's turn). */
  readonly id: string;
  readonly controller: AbortController;
  /** Its lease: every frame is published under it (for other instances, when there are any). */
  readonly lease: TurnLease;
  readonly startedAt: number;
  /** Who sent it: its tokens count against their budget when it ends. */
  readonly visitor: Peer['visitor'];
  /** The count key of the address that asked for it: its tokens count there too. */
  readonly address: string | undefined;
  /** Its tool calls waiting for a user's decision. */
  readonly approvals: PendingApprovals;
  /** Its MCP servers' requests for the visitor's input; none for a turn ended on a dead instance's behalf. */
  readonly elicitations: PendingElicitations | undefined;
  firstChunkAt?: number;
  chars = 0;
  tools = 0;
  /** Set when the server stopped it (a cap, shutdown): its answer says so. */
  stopReason?: TurnError;
  finished: Promise<void> = Promise.resolve();
  /** The round's tool calls by index: arguments seen so far (absolute, as progress says). */
  readonly #argumentChars = new Map<number, number>();

  constructor(turn: {
    id: string;
    lease: TurnLease;
    startedAt: number;
    visitor: Peer['visitor'];
    address?: string | undefined;
    approvals: PendingApprovals;
    elicitations?: PendingElicitations;
    controller?: AbortController;
  }) {
    this.id = turn.id;
    this.lease = turn.lease;
    this.startedAt = turn.startedAt;
    this.visitor = turn.visitor;
    this.address = turn.address;
    this.approvals = turn.approvals;
    this.elicitations = turn.elicitations;
    this.controller = turn.controller ?? new AbortController();
  }

  /** A visitor's decision for one of its calls or answer to one of its elicitations, from any instance. */
  take(decision: TurnDecision): void {
    if ('callId' in decision) this.approvals.take(decision);
    else this.elicitations?.take(decision);
  }

  /** Counts what the turn streamed against its caps; a turn over one is stopped at once. */
  count(chunk: StreamChunkMessage, now: number, { maxTurnChars, maxToolArgumentChars }: TurnCaps): void {
    this.firstChunkAt ??= now;
    this.chars += (chunk.contentDelta?.length ?? 0) + (chunk.reasoningDelta?.length ?? 0);
    const progress = chunk.toolCallProgress;
    if (progress) {
      const before = this.#argumentChars.get(progress.index) ?? 0;
      this.#argumentChars.set(progress.index, progress.charsAccumulated);
      this.chars += Math.max(0, progress.charsAccumulated - before);
      if (progress.charsAccumulated > maxToolArgumentChars) {
        return this.stop({
          code: ErrorCode.TooLarge,
          message: `a tool call passed ${maxToolArgumentChars} characters of arguments: it was stopped and not run`,
        });
      }
    }
    // Indexes start again at 0 in the next round.
    if (chunk.done) this.#argumentChars.clear();
    if (this.chars > maxTurnChars) {
      this.stop({
        code: ErrorCode.TooLarge,
        message: `the answer passed ${maxTurnChars} characters and was stopped`,
      });
    }
  }

  /** Ends the turn as cut off: its model request is aborted, so no half-written call runs. */
  stop(reason: TurnError): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.controller.abort();
  }

  /** Stopped because the server is going down: its tabs are told why. */
  stopForShutdown(): void {
    this.stopReason = {
      code: ErrorCode.ShuttingDown,
      message: 'the server restarted and stopped this answer',
    };
    this.controller.abort();
  }
}
