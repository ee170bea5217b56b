/**
 * A running turn's requests for the visitor's input, made by MCP servers during tool calls
 * (elicitations). Every tab of the session is asked (`elicitation`); the first answer that
 * fits wins and every tab hears how it was settled (`elicitation_settled`); no answer by
 * `expiresAt` is a `cancel`, and so is a Stop. A `url` one the visitor opened waits on for
 * the MCP server to say the flow finished (`elicitation_complete`). The same rules as
 * approvals (pending-approvals.ts), with an answer checked against its form.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, type Elicitation, type ServerFrame } from '@aalis/protocol';
import type { ElicitationDesk, ElicitationQuestion } from '../agent/turn-agent.js';
import type { ElicitationReply } from '../tools/define-tool.js';
import type { ElicitationAnswer } from './coordination.js';
import { checkAnswer, formValidator } from './elicitation-answer.js';
import { OpenRequests } from './open-requests.js';

/** How long a request waits for the visitor by default: an MCP call's own limit is longer (10 minutes). */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 5 * 60_000;
/**
 * The longest a request may be configured to wait: an MCP call's own limit (tools/mcp's
 * DEFAULT_MAX_CALL_MS, 10 minutes) ends the call, and its request with it, first.
 */
export const MAX_ELICITATION_TIMEOUT_MS = 10 * 60_000;

/** How a request was settled: the reply the MCP server gets, and why when nobody gave it. */
interface Settled {
  reply: ElicitationReply;
  reason?: 'expired' | 'stopped';
}

/** What became of an answer: taken, refused (why, the request stays open), or nothing to answer. */
export type AnswerOutcome = { ok: true } | { ok: false; code: ErrorCode; message: string };

/** An answer to a request no longer open (answered, expired, never asked). */
export const NOT_PENDING: AnswerOutcome = {
  ok: false,
  code: ErrorCode.NotPending,
  message: 'this request was already answered or has expired',
};

/** The most an MCP server's request may carry to every tab (and every instance's snapshot). */
const MAX_MESSAGE_CHARS = 2_000;
const MAX_FORM_JSON_CHARS = 16_000;
const MAX_URL_CHARS = 2_048;

export class PendingElicitations implements ElicitationDesk {
  readonly #open = new OpenRequests<Elicitation, Settled>();
  /** `url` ones the visitor opened, by the MCP server's id for them: their completion is told. */
  readonly #opened = new Map<string, string>();

  constructor(
    private readonly sessionId: string,
    private readonly broadcast: (frame: ServerFrame) => void,
    private readonly now: () => number,
    private readonly timeoutMs: number,
  ) {}

  async ask(question: ElicitationQuestion, signal: AbortSignal): Promise<ElicitationReply> {
    const refusal = unaskable(question);
    if (refusal) return { action: refusal };
    if (signal.aborted) return { action: 'cancel' };
    const elicitationId = `el_${randomUUID().replaceAll('-', '')}`;
    const elicitation: Elicitation = {
      elicitationId,
      callId: question.callId,
      serverName: question.serverName,
      mode: question.mode,
      message: question.message,
      ...(question.mode === 'form' ? { requestedSchema: question.requestedSchema! } : { url: question.url! }),
      expiresAt: this.now() + this.timeoutMs,
    };
    const settled = this.#open.wait(elicitationId, elicitation, {
      ms: this.timeoutMs,
      signal,
      expired: { reply: { action: 'cancel' }, reason: 'expired' },
      stopped: { reply: { action: 'cancel' }, reason: 'stopped' },
      onSettled: ({ reply, reason }) => {
        if (question.mode === 'url' && reply.action === 'accept' && question.serverElicitationId)
          this.#opened.set(question.serverElicitationId, elicitationId);
        this.broadcast({
          type: 'elicitation_settled',
          sessionId: this.sessionId,
          elicitationId,
          action: reply.action,
          ...(reason ? { reason } : {}),
        });
      },
    });
    this.broadcast({ type: 'elicitation', sessionId: this.sessionId, ...elicitation });
    return (await settled).reply;
  }

  /**
   * A visitor's answer, from a tab of this instance or passed on by another. One that
   * does not fit its form is refused and the request stays open; the first that fits wins.
   */
  answer({ elicitationId, action, content }: ElicitationAnswer): AnswerOutcome {
    const elicitation = this.#open.get(elicitationId);
    if (!elicitation) return NOT_PENDING;
    const check = checkAnswer(elicitation, { action, content });
    if (!check.ok) return { ok: false, code: ErrorCode.InvalidAnswer, message: check.message };
    this.#open.settle(elicitationId, { reply: content === undefined ? { action } : { action, content } });
    return { ok: true };
  }

  /** An answer as another instance passed it (coordination.ts): it was checked there, and is again. */
  take(answer: ElicitationAnswer): void {
    this.answer(answer);
  }

  /** The MCP server said the visitor finished on its page. */
  completed(serverElicitationId: string): void {
    const elicitationId = this.#opened.get(serverElicitationId);
    if (elicitationId === undefined) return;
    this.#opened.delete(serverElicitationId);
    this.broadcast({ type: 'elicitation_complete', sessionId: this.sessionId, elicitationId });
  }
}

/**
 * A request no visitor should see: a page that is not http(s) (a `javascript:` one would
 * run in the page), a form whose schema cannot be checked, or one larger than a form or a
 * link ever needs (it goes to every tab, and into every instance's snapshot). Declined,
 * and never shown.
 */
function unaskable(question: ElicitationQuestion): 'decline' | undefined {
  if (question.message.length > MAX_MESSAGE_CHARS) return 'decline';
  if (question.mode === 'url') {
    if ((question.url ?? '').length > MAX_URL_CHARS) return 'decline';
    try {
      const { protocol } = new URL(question.url ?? '');
      return protocol === 'https:' || protocol === 'http:' ? undefined : 'decline';
    } catch {
      return 'decline';
    }
  }
  const form = question.requestedSchema;
  if (!form || JSON.stringify(form).length > MAX_FORM_JSON_CHARS) return 'decline';
  try {
    formValidator(form);
    return undefined;
  } catch {
    return 'decline';
  }
}
