/**
 * How an upstream agent's run fails, and what a visitor reads of it. The failures are
 * `ProviderError`s (the metrics count them by kind, as a model's), carrying beside the
 * detail for the log the one sentence a visitor may read: the agent's own words (a
 * RUN_ERROR's message, an `error` chunk's text) can hold internal names and addresses, so
 * they go to the log under an error id, never to a tab.
 */
import { ErrorCode } from '@aalis/protocol';
import type { ErrorReporter } from '../../agent/public-errors.js';
import type { TurnError } from '../../agent/turn-agent.js';
import { ProviderError, type ProviderErrorKind } from '../../providers/core/errors.js';

/** What a visitor reads, by kind, when the error says nothing more precise. */
const TOLD: Record<ProviderErrorKind, string> = {
  auth: 'the agent is not available right now',
  rate_limited: 'the agent is busy: try again in a moment',
  timeout: 'the agent did not answer in time',
  upstream: 'the agent failed to answer',
  bad_response: 'the agent sent an answer that could not be read',
  aborted: 'the request to the agent was stopped',
  too_large: "the agent's answer passed the size the server accepts and was stopped",
};

export class AgentRunError extends ProviderError {
  /** Safe to show a visitor. */
  readonly told: string;

  constructor(
    kind: ProviderErrorKind,
    message: string,
    options: ProviderError['options'] & { told?: string } = {},
  ) {
    const { told, ...rest } = options;
    super(kind, message, rest);
    this.told = told ?? TOLD[kind];
  }
}

/** An event the protocol does not allow, or not there: the run cannot be read on. */
export const unreadable = (agent: string, what: string): AgentRunError =>
  new AgentRunError('bad_response', `the ${agent} agent sent ${what}`);

/** An event's data as JSON, or the run cannot be read on (`what`: `an event`, `a chunk`). */
export function parseEventJson(agent: string, data: string, what: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw unreadable(agent, `${what} that is not JSON: ${data.slice(0, 200)}`);
  }
}

/** The agent itself said the run failed. */
export const agentFailed = (agent: string, said: string): AgentRunError =>
  new AgentRunError('upstream', `the ${agent} agent reported an error: ${said.slice(0, 500)}`, {
    told: 'the agent reported an error and stopped',
  });

/** The stream ended (or broke) before the agent said the run finished. */
export const runCutOff = (agent: string, cause?: unknown): AgentRunError =>
  new AgentRunError(
    'upstream',
    `the stream from the ${agent} agent ended before its run finished${cause instanceof Error ? ` (${cause.message})` : ''}`,
    { told: "the agent's answer broke off before it finished", cause },
  );

/** The visitor's error for a failed run: its sentence, and the id its detail is logged under. */
export function publicAgentError(error: ProviderError, report: ErrorReporter): TurnError {
  const errorId = report(error, `the upstream agent's run failed (${error.kind})`);
  const code = error.kind === 'too_large' ? ErrorCode.TooLarge : ErrorCode.Upstream;
  const message = error instanceof AgentRunError ? error.told : TOLD[error.kind];
  return { code, message, errorId };
}
