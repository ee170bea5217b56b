/**
 * What the server announces as it happens, for whoever listens: the transport core
 * (admission, connections, frames), and the session hub and the agent, forwarded by the
 * composition (compose/chat-services.ts). The metrics (observability/metrics.ts) and a
 * host's `onError` subscribe here; nothing wraps a socket or reads a frame back to find out.
 *
 *   services.events.on('connection:refused', ({ reason, status }) => ...);
 */
import type { ToolExecuteEvent } from '../agent/agent.js';
import type { TurnStart, TurnSummary } from '../sessions/session-hub.js';
import { Events } from '../util/events.js';
import { reportingErrors, type ErrorListener } from '../util/log-error.js';
import type { Logger } from '../util/logger.js';
import type { IpRefusal } from './ip-limits.js';

/**
 * Why an upgrade was refused before a socket opened: its Host, its Origin, the server
 * draining (a deploy: the client is to try another instance), or a per-IP limit.
 */
export type AdmissionRefusal = 'host' | 'origin' | 'draining' | IpRefusal['limit'];

export interface ChatEventMap {
  /** A socket passed admission and was handed to the core. */
  'connection:opened': { connectionId: string; remoteAddress?: string };
  /** An upgrade refused before it opened, with the HTTP status it was answered. */
  'connection:refused': {
    reason: AdmissionRefusal;
    status: number;
    remoteAddress?: string;
    retryInMs?: number;
  };
  /** A socket closed, for whatever reason: what its closing log line says. */
  'connection:closed': {
    connectionId: string;
    code: number;
    ms: number;
    received: number;
    sent: number;
    /** Its progress frames dropped for newer ones (frame:dropped). */
    collapsed: number;
  };
  /** A progress frame queued for a slow socket was dropped: a newer one says all it said. */
  'frame:dropped': { connectionId: string; reason: 'progress_collapsed' };
  /** An `error` frame written to a client, by its code (`busy`, `rate_limited`, `upstream`...). */
  'error:sent': { connectionId: string; code: string };
  /** A `send` the budgets refused (`quota_exceeded`, `overloaded`), with the budget that ran out. */
  'budget:refused': { connectionId: string; code: string; limit?: string; retryInMs?: number };
  /** A turn started on this instance (the hub's `onTurnStarted`). */
  'turn:started': TurnStart;
  /** A turn ended (the hub's `onTurnEnded`). */
  'turn:ended': TurnSummary;
  /** A tool call ended: ran, failed, or was declined (the agent's `tool:execute` end). */
  'tool:ran': ToolExecuteEvent;
  /** A visitor rated an answer (the hub's `onFeedback`). */
  'feedback:given': { rating: 'up' | 'down' };
  /** An error logged under an id, which is all its visitor was told. */
  'error:reported': { error: unknown; errorId: string; what: string };
}

export type ChatEvents = Events<ChatEventMap>;

/** A listener that throws is logged; it never reaches the connection or the turn that announced. */
export function createChatEvents(logger: Logger): ChatEvents {
  return new Events<ChatEventMap>((error, event) =>
    logger.warn({ err: error, event }, 'an event listener threw'),
  );
}

/** A logger whose errors logged under an id are announced as `error:reported`. */
export function announcingErrors(logger: Logger, events: ChatEvents): Logger {
  return reportingErrors(logger, (error, context) => events.emit('error:reported', { error, ...context }));
}

/** A host's `onError`, hearing `error:reported`; one that throws is logged as before. */
export function hearErrors(events: ChatEvents, onError: ErrorListener, logger: Logger): void {
  events.on('error:reported', ({ error, errorId, what }) => {
    try {
      onError(error, { errorId, what });
    } catch (thrown) {
      logger.warn({ err: thrown, errorId }, 'the onError listener threw');
    }
  });
}
