/**
 * One run of an upstream agent over HTTP: the POST (`Accept: text/event-stream`), tried
 * again only when the agent surely did not start it (it could not be reached, or said so:
 * 429, 502, 503, 504), each attempt with a deadline for its response to start; then its
 * events, read with the providers' silence watch (silence-watch.ts): after a while the
 * visitor is told the agent is waited for (`waiting`), and a stream silent past the idle
 * limit is given up. The caller's abort signal (Stop) destroys the request at once, which
 * closes the connection to the agent. Whatever ends the reading early (the run's end
 * included) aborts the request.
 */
import type { TurnStatus } from '@aalis/protocol';
import { formatSeconds } from '../../util/format-seconds.js';
import { maskUrl } from '../../util/secrets.js';
import { ProviderError, abortedError, parseRetryAfter } from '../../providers/core/errors.js';
import { httpFetch } from '../../providers/core/http-fetch.js';
import { defaultRetryPolicy, withRetries, type RetryPolicy } from '../../providers/core/retry.js';
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  DEFAULT_IDLE_TIMEOUT_MS,
  openInTime,
} from '../../providers/core/round-stream.js';
import { SilenceWatch } from '../../providers/core/silence-watch.js';
import type { SseEvent } from './agent-event.js';
import { AgentRunError, runCutOff } from './agent-errors.js';
import { DEFAULT_SSE_LIMITS, sseEvents, type SseLimits } from './sse-events.js';

/** How long an agent may keep us waiting, and how to try it again: the providers' settings. */
export interface RunPatience {
  firstByteTimeoutMs?: number | undefined;
  idleTimeoutMs?: number | undefined;
  retry?: RetryPolicy | undefined;
  /** Silence before the visitor is told the agent is waited for. */
  waitingNoticeMs?: number | undefined;
}

export interface RunCall {
  /** The protocol's name, in errors and logs. */
  agent: string;
  url: string;
  headers: Readonly<Record<string, string>>;
  body: unknown;
  checkResponse?: ((headers: Headers) => void) | undefined;
  limits?: SseLimits | undefined;
  signal: AbortSignal;
  onStatus: (status: TurnStatus) => void;
  patience: RunPatience;
  /**
   * Whether the run said it is over (RUN_FINISHED, `finish`): nothing after it is read,
   * and the request is closed, so that an agent (or a proxy) that keeps the connection
   * open, pinging, does not hold the turn open.
   */
  over: () => boolean;
}

const DEFAULT_WAITING_NOTICE_MS = 4_000;
/** Of an error answer's body, what the log keeps. */
const MAX_ERROR_BODY_BYTES = 2_000;

/** Posts the run and hands each event to `consume`, which says whether it showed the visitor something. */
export async function readRun(call: RunCall, consume: (event: SseEvent) => Promise<boolean>): Promise<void> {
  const { agent, signal, onStatus, patience } = call;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let attempt = 1;
  const silence = new SilenceWatch(
    patience.waitingNoticeMs ?? DEFAULT_WAITING_NOTICE_MS,
    patience.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    () => onStatus({ state: 'waiting', attempt }),
    () => controller.abort(),
  );
  let drained = false;
  // Once, however many attempts: the body carries the history, images included.
  const text = JSON.stringify(call.body);
  try {
    if (signal.aborted) throw abortedError(agent);
    const body = await withRetries(
      agent,
      patience.retry ?? defaultRetryPolicy,
      signal,
      (number) => {
        attempt = number;
        silence.attempt();
        return open(call, text, controller.signal);
      },
      ({ attempt: next, delayMs }) => {
        silence.pause();
        onStatus({ state: 'retrying', attempt: next, retryInMs: delayMs });
      },
    );
    try {
      silence.streaming();
      for await (const event of sseEvents(body, agent, call.limits ?? DEFAULT_SSE_LIMITS, () =>
        silence.heard(),
      )) {
        if (await consume(event)) silence.shown();
        // Left before the agent ended it (the run is over): the finally closes the request.
        if (call.over()) break;
      }
      drained = !call.over();
    } catch (error) {
      if (signal.aborted) throw abortedError(agent);
      if (silence.idle) throw idleError(agent, patience);
      if (error instanceof ProviderError) throw error;
      throw runCutOff(agent, error);
    }
    if (signal.aborted) throw abortedError(agent);
    if (silence.idle) throw idleError(agent, patience);
  } finally {
    silence.stop();
    signal.removeEventListener('abort', onAbort);
    // Read to its end, the response needs no abort; otherwise the request must not run on.
    if (!drained) controller.abort();
  }
}

const idleError = (agent: string, patience: RunPatience) =>
  new AgentRunError(
    'timeout',
    `the ${agent} agent sent nothing for ${formatSeconds(patience.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS)}`,
    { told: 'the agent went silent and its answer was given up' },
  );

/** One attempt: the response started in time and is an event stream, else a typed error. */
async function open(
  call: RunCall,
  requestBody: string,
  runSignal: AbortSignal,
): Promise<AsyncIterable<Uint8Array>> {
  const { agent, url, patience } = call;
  let response: Response;
  try {
    response = await openInTime(
      `the ${agent} agent`,
      (signal) =>
        httpFetch(url, {
          method: 'POST',
          headers: { ...call.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: requestBody,
          signal,
        }),
      runSignal,
      patience.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS,
      // The agent may be working on it: a run is never posted twice once it may have started.
      { retryable: false },
    );
  } catch (error) {
    if (runSignal.aborted) throw abortedError(agent);
    if (error instanceof ProviderError) throw error;
    throw new AgentRunError(
      'upstream',
      `the ${agent} agent at ${maskUrl(url)} cannot be reached: ${(error as Error).message}`,
      {
        retryable: true,
        cause: error,
        told: 'the agent cannot be reached right now',
      },
    );
  }
  const body = response.body as unknown as (AsyncIterable<Uint8Array> & { destroy?(): void }) | null;
  if (!response.ok) {
    const detail = await firstBytes(body);
    throw statusError(agent, response.status, detail, parseRetryAfter(response.headers.get('retry-after')));
  }
  const type = response.headers.get('content-type') ?? '';
  if (!body || !/^text\/event-stream\b/i.test(type)) {
    body?.destroy?.();
    throw new AgentRunError(
      'bad_response',
      `the ${agent} agent answered with ${type || 'no content type'}, not an event stream`,
    );
  }
  try {
    call.checkResponse?.(response.headers);
  } catch (error) {
    body.destroy?.();
    throw error;
  }
  return body;
}

/** The start of an error answer's body, for the log; the rest is not read. */
async function firstBytes(body: (AsyncIterable<Uint8Array> & { destroy?(): void }) | null): Promise<string> {
  if (!body) return '';
  const pieces: Uint8Array[] = [];
  let length = 0;
  try {
    for await (const piece of body) {
      pieces.push(piece);
      length += piece.length;
      if (length >= MAX_ERROR_BODY_BYTES) break;
    }
  } catch {
    // What was read is enough to say.
  } finally {
    body.destroy?.();
  }
  return Buffer.concat(pieces).toString('utf8').slice(0, MAX_ERROR_BODY_BYTES).trim();
}

/**
 * An HTTP error from the agent. Tried again only when the run surely did not start: too
 * many requests, or a gateway that did not reach the agent.
 */
function statusError(agent: string, status: number, detail: string, retryAfterMs?: number): AgentRunError {
  const said = `the ${agent} agent answered HTTP ${status}${detail ? `: ${detail.slice(0, 300)}` : ''}`;
  const options = { status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
  if (status === 401 || status === 403) return new AgentRunError('auth', said, options);
  if (status === 429) return new AgentRunError('rate_limited', said, { ...options, retryable: true });
  if (status === 502 || status === 503)
    return new AgentRunError('upstream', said, { ...options, retryable: true });
  if (status === 504) return new AgentRunError('timeout', said, { ...options, retryable: true });
  return new AgentRunError('upstream', said, options);
}
