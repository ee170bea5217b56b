/**
 * A running turn's tool calls that wait for a user's decision. Every tab of the session
 * is asked (`tool_approval_request`); the first `tool_decision` wins and later ones
 * change nothing; no decision by `expiresAt` counts as a denial, and Stop ends the wait.
 * "Allow for this conversation" is kept with the conversation (the store) and answers
 * every waiting call of that tool at once.
 */
import type { ServerFrame, ToolApproval } from '@aalis/protocol';
import type { ApprovalDesk, ApprovalOutcome } from '../agent/turn-agent.js';
import type { HistoryStore } from '../history/store.js';
import type { ApprovalDecision } from './coordination.js';
import { OpenRequests } from './open-requests.js';

export class PendingApprovals implements ApprovalDesk {
  /** By call id. */
  readonly #open = new OpenRequests<ToolApproval, ApprovalOutcome>();

  /**
   * The desk of a new turn, with the tools the user allowed for the rest of the
   * conversation. A grant that cannot be read or kept (storage failed) is not assumed: the
   * user is asked again, which is safe.
   */
  static async forSession(
    sessionId: string,
    store: HistoryStore,
    broadcast: (frame: ServerFrame) => void,
    now: () => number,
    logError: (error: unknown, what: string) => void,
  ): Promise<PendingApprovals> {
    let grants: string[] = [];
    try {
      grants = await store.grantedTools(sessionId);
    } catch (error) {
      logError(error, 'reading the tool grants failed');
    }
    const keepGrant = async (toolName: string): Promise<boolean> => {
      try {
        await store.grantTool(sessionId, toolName);
        return true;
      } catch (error) {
        logError(error, 'storing a tool grant failed');
        return false;
      }
    };
    return new PendingApprovals(sessionId, new Set(grants), broadcast, keepGrant, now);
  }

  /** A desk nobody is asked at (a turn ended on behalf of a dead instance): every decision finds nothing. */
  static closed(sessionId: string, now: () => number): PendingApprovals {
    return new PendingApprovals(
      sessionId,
      new Set(),
      () => {},
      () => Promise.resolve(false),
      now,
    );
  }

  constructor(
    private readonly sessionId: string,
    /** Tools allowed for the rest of the conversation, as stored. */
    private readonly grants: Set<string>,
    private readonly broadcast: (frame: ServerFrame) => void,
    /** Stores a grant; false when it could not (the decision then holds for this call only). */
    private readonly keepGrant: (toolName: string) => Promise<boolean>,
    private readonly now: () => number,
  ) {}

  granted(toolName: string): boolean {
    return this.grants.has(toolName);
  }

  ask(request: ToolApproval, signal: AbortSignal): Promise<ApprovalOutcome> {
    if (signal.aborted) return Promise.resolve('aborted');
    const outcome = this.#open.wait(request.callId, request, {
      ms: Math.max(0, request.expiresAt - this.now()),
      signal,
      expired: 'expired',
      stopped: 'aborted',
    });
    this.broadcast({ type: 'tool_approval_request', sessionId: this.sessionId, ...request });
    return outcome;
  }

  /**
   * A user's decision. Returns false when no call with that id waits (already decided,
   * expired, or never asked): the first decision won, and this one changes nothing.
   */
  decide(callId: string, decision: 'approve' | 'deny', remember?: 'session'): boolean {
    const request = this.#open.get(callId);
    if (!request) return false;
    if (decision === 'deny') return this.#open.settle(callId, 'denied');
    const { name, policy } = request;
    this.#open.settle(callId, 'approved');
    if (remember === 'session' && policy === 'session') void this.#remember(name);
    return true;
  }

  /** A decision as another instance passed it (coordination.ts). */
  take({ callId, decision, remember }: ApprovalDecision): boolean {
    return this.decide(callId, decision, remember);
  }

  /** Keeps the grant, and lets every other call of the tool waiting under it through. */
  async #remember(toolName: string): Promise<void> {
    // Not stored, it would not hold after a restart: so it does not hold now either.
    if (!(await this.keepGrant(toolName))) return;
    this.grants.add(toolName);
    for (const [callId, other] of this.#open.entries()) {
      if (other.name === toolName && other.policy === 'session') this.#open.settle(callId, 'approved');
    }
  }
}
