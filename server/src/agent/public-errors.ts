/**
 * What a visitor may read of a failure. A provider's error text can hold the tail of an
 * API key, an organisation id or an internal address: it goes to the log under an error
 * id, and the visitor gets a short sentence by kind with that id. (The widget shows its
 * own words for the code, in the visitor's language.)
 */
import { ErrorCode } from '@aalis/protocol';
import type { ProviderError, ProviderErrorKind } from '../providers/core/errors.js';

/** A turn's failure as a visitor may read it. */
export interface TurnError {
  code: (typeof ErrorCode)[keyof typeof ErrorCode];
  /** Safe to show a visitor. */
  message: string;
  /** Finds the detail in the log. */
  errorId?: string;
}

/** Logs `error` in full under a new id, and returns the id. */
export type ErrorReporter = (error: unknown, what: string) => string;

const PUBLIC_MESSAGES: Record<ProviderErrorKind, string> = {
  auth: 'the AI service is not available right now',
  rate_limited: 'the AI service is busy: try again in a moment',
  timeout: 'the AI service did not answer in time',
  upstream: 'the AI service failed to answer',
  bad_response: 'the AI service sent an answer that could not be read',
  aborted: 'the request to the AI service was stopped',
  too_large: 'the answer passed the size the server accepts and was stopped',
};

export function publicProviderError(error: ProviderError, report: ErrorReporter): TurnError {
  const errorId = report(error, `model request failed (${error.kind})`);
  // A cap of ours, not the provider's failure: the same code as the session's own caps.
  const code = error.kind === 'too_large' ? ErrorCode.TooLarge : ErrorCode.Upstream;
  return { code, message: PUBLIC_MESSAGES[error.kind], errorId };
}
