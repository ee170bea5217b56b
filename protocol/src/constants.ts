/**
 * Named constants of the wire contract (PROTOCOL.md sections 2 and 3).
 * Kept free of imports so that any frontend can take them without the schemas.
 */

/** The protocol version a `hello` frame must name. */
export const PROTOCOL_VERSION = 1;

/** WebSocket close codes the server uses, and what each means to a client. */
export const CloseCode = {
  /** Server shutting down: reconnect and resume. */
  GoingAway: 1001,
  /** A binary frame was sent; the protocol is JSON text only. */
  UnsupportedData: 1003,
  /** Too many frames, or a socket that stays too far behind. */
  PolicyViolation: 1008,
  /** A frame over the size limit. */
  MessageTooBig: 1009,
  /** The server drains (a deploy): reconnect, to another instance, and resume (section 2c). */
  Draining: 1012,
  /** The server could not serve the connection right now (its storage failed): reconnect after a pause. */
  TryAgainLater: 1013,
  /** The first frame was not a valid `hello`. */
  BadHello: 4400,
  /** The token was wrong or missing. */
  Unauthorized: 4401,
  /** No `hello` arrived in time. */
  HelloTimeout: 4408,
} as const;
export type CloseCode = (typeof CloseCode)[keyof typeof CloseCode];

/** The `code` of an `error` frame. */
export const ErrorCode = {
  /** Not JSON, not an object, a field missing or of the wrong type. */
  BadFrame: 'bad_frame',
  /** A `type` the receiver does not know. */
  UnknownType: 'unknown_type',
  /** `send` while a turn runs. */
  Busy: 'busy',
  /** Too many `send` (or `hello`) in a window; the message says when to retry. */
  RateLimited: 'rate_limited',
  /** The model provider failed; the message says how. */
  Upstream: 'upstream',
  /** Reserved: a tool failed in a way that ended the turn (tool failures are results today). */
  Tool: 'tool',
  /** The answer passed the server's size cap (text and reasoning, or one tool call's arguments). */
  TooLarge: 'too_large',
  /** The model was still calling tools when the turn's round limit was reached. */
  MaxRounds: 'max_rounds',
  /** The server could not store the answer (or the message): it is not in the history. */
  Storage: 'storage',
  /** The server stopped before the answer was finished (a crash); the history says so. */
  Interrupted: 'interrupted',
  /**
   * A refused `send`: the server cannot start a turn now (the state it shares with other
   * instances is unreachable); send again in a moment.
   */
  Unavailable: 'unavailable',
  /** The server is restarting; the turn ended. */
  ShuttingDown: 'shutting_down',
  /** A bug; `errorId` finds it in the logs. */
  Internal: 'internal',
  /** A refused `send`: the visitor's own budget ran out; `limit` says which, `retryInMs` when it comes back. */
  QuotaExceeded: 'quota_exceeded',
  /** A refused `send`: the server's daily tokens or its concurrent turns are used up; `retryInMs` when known. */
  Overloaded: 'overloaded',
  /**
   * A refused `send` with images: the model cannot read images (the server offers no
   * `uploads`), or an image is not one of the session's uploads.
   */
  ImagesUnsupported: 'images_unsupported',
  /**
   * A refused `send`: the site's owner has paused the chat (every instance); running
   * answers finish, new ones start once it is resumed. Nothing to retry on a timer.
   */
  Paused: 'paused',
  /**
   * A refused `send` from an anonymous visitor: the server wants a bot challenge passed
   * first. `challenge` says which provider and site key; the client shows the provider's
   * widget and sends its token in its next `hello` as `challenge`.
   */
  ChallengeRequired: 'challenge_required',
  /**
   * The `challenge` token of a `hello` did not pass (the provider said no, or could not be
   * asked): the challenge is shown again. Sent for the hello, before any `send`.
   */
  ChallengeFailed: 'challenge_failed',
  /**
   * An `elicitation_answer` that does not fit its form (a required field missing, a value
   * of the wrong type or out of range): the request stays open; `elicitationId` names it.
   */
  InvalidAnswer: 'invalid_answer',
  /**
   * An `elicitation_answer` for nothing open now (answered, expired, never asked). An
   * `app_tool_call` is never refused with an `error`: its `app_tool_result` says why, so
   * that the app's request gets its answer.
   */
  NotPending: 'not_pending',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * Upper bounds on what a client may send. The server's frame size limit (64 KiB by
 * default) still applies on top; these keep one field from taking all of it.
 * 16,000 characters of CJK text are 48 KB of UTF-8, so a full-length message always
 * fits in a default-sized frame.
 */
export const Limits = {
  messageText: 16_000,
  sessionId: 64,
  clientMessageId: 64,
  token: 1_024,
  /** A server-issued anonymous visitor key (`ready.anonymousKey`) is under 70 characters. */
  anonymousKey: 200,
  /** A bot challenge's token (Turnstile's are up to 2,048 characters). */
  challenge: 4_096,
  messageId: 64,
  /** Providers' call ids are short; MCP-style ones stay well under this. */
  callId: 128,
  /** Most messages one `ready` or `history` frame carries. */
  historyPage: 100,
  /** A visitor's comment with a thumbs up or down. */
  feedbackComment: 2_000,
  /** A visitor's reason for asking for a person (`handoff`), in characters. */
  handoffReason: 500,
  /** A conversation's name. */
  sessionTitle: 120,
  /** Most conversations one `sessions` frame lists. */
  sessionList: 100,
  /** Most images one `send` names (a server's `uploads.maxCount` is at most this). */
  imagesPerMessage: 16,
  /** An uploaded image's id (`img_` and 22 characters). */
  imageId: 64,
  /** An elicitation's id (the server's own, never an MCP server's). */
  elicitationId: 64,
} as const;
