/**
 * Tells the site that a visitor wants a person (AALIS_HANDOFF_WEBHOOK): a POST of
 * `{sessionId, visitorId, reason, url}` as JSON, `url` the conversation in the console.
 * Signed so the receiver can tell it came from this server and was not replayed:
 * `X-Aalis-Timestamp` (ms) and `X-Aalis-Signature: sha256=<hex>`, the HMAC-SHA256 of
 * `<timestamp>.<body>` under the webhook secret. Retried with backoff on a network error,
 * a timeout, 408, 429 or a 5xx, up to five tries; a 4xx otherwise is final. Never blocks
 * the visitor: it runs beside the conversation, and a failure is logged.
 */
import { createHmac } from 'node:crypto';
import type { HandoffRequest } from '../sessions/handoff-desk.js';
import type { Logger } from '../util/logger.js';

export interface HandoffWebhookOptions {
  url: string;
  /** The HMAC key of the signature. */
  secret: string;
  /** The console's address, for the `url` of a conversation (`<console>#<sessionId>`). */
  consoleUrl: string;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Waits before each try after the first (ms). */
  backoffMs?: readonly number[];
  /** Each try's limit (ms). */
  timeoutMs?: number;
  now?: () => number;
}

const BACKOFF_MS = [1_000, 4_000, 15_000, 60_000];

/** What a receiver checks: the signature header for this timestamp and body. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The listener the handoff desk calls; returns the delivery, for tests to await. */
export function handoffWebhook(
  options: HandoffWebhookOptions,
): (request: HandoffRequest) => Promise<boolean> {
  const {
    url,
    secret,
    consoleUrl,
    logger,
    backoffMs = BACKOFF_MS,
    timeoutMs = 10_000,
    now = Date.now,
  } = options;
  return async (request) => {
    const body = JSON.stringify({
      sessionId: request.sessionId,
      visitorId: request.visitorId,
      reason: request.reason ?? null,
      url: `${consoleUrl}#${encodeURIComponent(request.sessionId)}`,
    });
    for (let attempt = 0; attempt <= backoffMs.length; attempt++) {
      if (attempt) await new Promise((resolve) => setTimeout(resolve, backoffMs[attempt - 1]));
      const timestamp = String(now());
      let status: number | string;
      try {
        const answer = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'aalis-server handoff',
            'x-aalis-timestamp': timestamp,
            'x-aalis-signature': webhookSignature(secret, timestamp, body),
          },
          body,
          signal: AbortSignal.timeout(timeoutMs),
          redirect: 'error',
        });
        await answer.body?.cancel();
        if (answer.ok) {
          logger.info({ sessionId: request.sessionId, attempt: attempt + 1 }, 'handoff webhook delivered');
          return true;
        }
        status = answer.status;
        if (status < 500 && status !== 408 && status !== 429) break;
      } catch (error) {
        status = (error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message;
      }
      logger.warn({ sessionId: request.sessionId, attempt: attempt + 1, status }, 'handoff webhook failed');
    }
    logger.error(
      { sessionId: request.sessionId },
      'the handoff webhook was not delivered: the conversation waits in the console (filter: waiting)',
    );
    return false;
  };
}
