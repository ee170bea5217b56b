/**
 * Errors whose detail a visitor must not see (a provider's words, a stack, a path): the
 * detail goes to the log at error level under a short new id, and the visitor is given
 * only the id, to quote to the site owner.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from './logger.js';

/** The logger is util/logger.ts's; re-exported for the files that import it from here. */
export type { Logger };

/** Logs `error` in full under a new id; returns the id. */
export function logErrorWithId(
  logger: Pick<Logger, 'error'>,
  error: unknown,
  what: string,
  context: object = {},
): string {
  const errorId = randomUUID().slice(0, 8);
  logger.error({ ...context, err: error, errorId }, what);
  return errorId;
}

/** What a host app hears of each error a visitor was given only an id for. */
export type ErrorListener = (error: unknown, context: { errorId: string; what: string }) => void;

/**
 * The logger, also telling `onError` of every error logged under an id (for a host's own
 * error tracker, and the metrics). A listener that throws is logged, never passed on to the turn.
 */
export function reportingErrors(logger: Logger, onError: ErrorListener | undefined): Logger {
  if (!onError) return logger;
  return {
    info: (object, message) => logger.info(object, message),
    warn: (object, message) => logger.warn(object, message),
    ...(logger.debug ? { debug: (object: object, message: string) => logger.debug!(object, message) } : {}),
    error: (object, message) => {
      logger.error(object, message);
      const { err, errorId } = object as { err?: unknown; errorId?: unknown };
      if (typeof errorId !== 'string') return;
      try {
        onError(err, { errorId, what: message });
      } catch (thrown) {
        logger.warn({ err: thrown, errorId }, 'the onError listener threw');
      }
    },
  };
}
