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

/** How long a request waits for the visitor by default: an MCP call's own limit is longer (10 minutes). */
export const DEFAULT_ELICITATION_TIMEOUT_MS = 5 * 60_000;

interface Waiting {
  elicitation: Elicitation;
  settle(reply: ElicitationReply, reason?: 'expired' | 'stopped'): void;
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
  readonly #waiting = new Map<string, Waiting>();
  /** `url` ones the visitor opened, by the MCP server's id for them: their completion is told. */
  readonly #opened = new Map<string, string>();

  constructor(
    private readonly sessionId: string,
    private readonly broadcast: (frame: ServerFrame) => void,
    private readonly now: () => number,
    private readonly timeoutMs: number,
  ) {}

  ask(question: ElicitationQuestion, signal: AbortSignal): Promise<ElicitationReply> {
    const refusal = unaskable(question);
    if (refusal) return Promise.resolve({ action: refusal });
    if (signal.aborted) return Promise.resolve({ action: 'cancel' });
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
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle({ action: 'cancel' }, 'expired'), this.timeoutMs);
      timer.unref();
      const onAbort = () => settle({ action: 'cancel' }, 'stopped');
      const settle = (reply: ElicitationReply, reason?: 'expired' | 'stopped') => {
        if (this.#waiting.get(elicitationId)?.settle !== settle) return;
        this.#waiting.delete(elicitationId);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if (question.mode === 'url' && reply.action === 'accept' && question.serverElicitationId)
          this.#opened.set(question.serverElicitationId, elicitationId);
        this.broadcast({
          type: 'elicitation_settled',
          sessionId: this.sessionId,
          elicitationId,
          action: reply.action,
          ...(reason ? { reason } : {}),
        });
        resolve(reply);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(elicitationId, { elicitation, settle });
      this.broadcast({ type: 'elicitation', sessionId: this.sessionId, ...elicitation });
    });
  }

  /**
   * A visitor's answer, from a tab of this instance or passed on by another. One that
   * does not fit its form is refused and the request stays open; the first that fits wins.
   */
  answer({ elicitationId, action, content }: ElicitationAnswer): AnswerOutcome {
    const waiting = this.#waiting.get(elicitationId);
    if (!waiting) return NOT_PENDING;
    const check = checkAnswer(waiting.elicitation, { action, content });
    if (!check.ok) return { ok: false, code: ErrorCode.InvalidAnswer, message: check.message };
    waiting.settle(content === undefined ? { action } : { action, content });
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
