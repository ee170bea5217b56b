/**
 * Errors whose detail a visitor must not see (a provider's words, a stack, a path): the
 * detail goes to the log at error level under a short new id, and the visitor is given
 * only the id, to quote to the site owner.
 */
import { randomUUID } from 'node:crypto';

export interface ErrorLogger {
  error(object: object, message: string): void;
}

/** Logs `error` in full under a new id; returns the id. */
export function logErrorWithId(
  logger: ErrorLogger,
  error: unknown,
  what: string,
  context: object = {},
): string {
  const errorId = randomUUID().slice(0, 8);
  logger.error({ ...context, err: error, errorId }, what);
  return errorId;
}
