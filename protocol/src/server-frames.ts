/** Frames the server sends to a client (PROTOCOL.md section 3). */
import * as v from 'valibot';
import {
  ChatMessageSchema,
  FeedbackSchema,
  HandoffSchema,
  ImageMimeTypeSchema,
  SessionSummarySchema,
  CountSchema,
  PartSchema,
  StreamChunkMessageSchema,
  DeclinedSchema,
  ElicitationActionSchema,
  ElicitationSchema,
  TimestampSchema,
  ToolAppSchema,
  recordOf,
  ToolApprovalSchema,
  ToolCallProgressEntrySchema,
  ToolProgressSchema,
  TurnStatusEntrySchema,
  TurnStatusSchema,
  UsageSchema,
} from './shapes.js';

/**
 * How a client uploads images for its session: `POST /images` on the server with the
 * image's bytes as the body and `ticket` as `Authorization: Bearer <ticket>`. The ticket
 * is this session's alone; after `expiresAt` (server clock) a new `hello` gives another.
 */
export const UploadsSchema = v.object({
  ticket: v.string(),
  expiresAt: TimestampSchema,
  /** Largest image accepted, in bytes. */
  maxBytes: CountSchema,
  /** Most images one `send` may name. */
  maxCount: CountSchema,
  /** The types accepted, by their content. */
  types: v.array(ImageMimeTypeSchema),
});
export type Uploads = v.InferOutput<typeof UploadsSchema>;

/** Answer to `hello`: the session and its history. */
export const ReadyFrameSchema = v.object({
  type: v.literal('ready'),
  sessionId: v.string(),
  serverTime: TimestampSchema,
  messages: v.array(ChatMessageSchema),
  /** False when the asked-for session was unknown and a new one was made. */
  resumed: v.boolean(),
  /** True when older messages than these exist; ask for them with a `history` frame. */
  hasMore: v.optional(v.boolean()),
  /**
   * A new anonymous visitor key (server-signed): sent when the connection is an anonymous
   * visitor that did not present a valid one; keep it and send it in every later `hello`.
   */
  anonymousKey: v.optional(v.string()),
  /** The site owner's greeting, shown while the conversation is empty. */
  welcome: v.optional(v.string()),
  /** Prompts a visitor can send with one click while the conversation is empty. */
  starters: v.optional(v.array(v.string())),
  /** Present when the model reads images: how this connection attaches them. */
  uploads: v.optional(UploadsSchema),
  /**
   * True when the connection is a visitor the server knows (signed, or anonymous with a
   * key): it has a conversation list (`list_sessions`). Absent otherwise.
   */
  conversations: v.optional(v.boolean()),
  /** True when the site offers a person (section 8): the visitor may send `handoff`. */
  handoffOffered: v.optional(v.literal(true)),
  /** The conversation's handoff, when a person was asked for or answers (section 8). */
  handoff: v.optional(HandoffSchema),
});

/** Older messages, answering a client's `history` frame; they go before those it has. */
export const HistoryFrameSchema = v.object({
  type: v.literal('history'),
  sessionId: v.string(),
  messages: v.array(ChatMessageSchema),
  hasMore: v.boolean(),
});

/** A user message was accepted; every connection of the session gets it. */
export const UserMessageFrameSchema = v.object({
  type: v.literal('user_message'),
  sessionId: v.string(),
  message: ChatMessageSchema,
  /** Echoes the `clientMessageId` of the `send` that made it. */
  clientMessageId: v.optional(v.string()),
});

/** One agent stream chunk: a `StreamChunkMessage` on the wire. */
export const StreamFrameSchema = v.object({
  type: v.literal('stream'),
  ...StreamChunkMessageSchema.entries,
});

/**
 * A tool really runs (`start`), says how far it has come (`progress`), or finished
 * (`end`); matched by `callId`, never by name. A call that never ran (declined, or its
 * approval expired) has an `end` with `declined` and no `start`.
 */
export const ToolExecuteFrameSchema = v.object({
  type: v.literal('tool_execute'),
  sessionId: v.string(),
  phase: v.picklist(['start', 'progress', 'end']),
  callId: v.string(),
  index: CountSchema,
  name: v.string(),
  /**
   * The arguments as the model wrote them (older servers: the parsed value). Sent with `start`
   * only: an `end` omits it (the client has it), so large arguments cross once.
   */
  arguments: v.optional(v.unknown()),
  result: v.optional(v.unknown()),
  isError: v.optional(v.boolean()),
  durationMs: v.optional(v.pipe(v.number(), v.minValue(0))),
  /**
   * How long the model took to write the call (its pending card's time, from its first
   * fragment to the round's end), with `start`, or with an `end` that has no `start`.
   */
  writingMs: v.optional(v.pipe(v.number(), v.minValue(0))),
  /** `end` of a call that never ran: why. */
  declined: v.optional(DeclinedSchema),
  /** `progress` only: the tool's latest report; each replaces the one before. */
  ...v.partial(ToolProgressSchema).entries,
  /** `start` (and an `end` with no `start`): the tool is shown as an MCP App. */
  app: v.optional(ToolAppSchema),
});

/** Everything of the running turn so far, sent right after `ready`. */
export const StreamResumeFrameSchema = v.object({
  type: v.literal('stream_resume'),
  sessionId: v.string(),
  serverTime: TimestampSchema,
  parts: v.array(PartSchema),
  /** Sorted by `index`, ascending. */
  toolCallsProgress: v.array(ToolCallProgressEntrySchema),
  /** Token usage of the turn's finished rounds so far. */
  usage: v.optional(UsageSchema),
  /** What the turn is waiting for, when it waits (see `turn_status`). */
  turnStatus: v.optional(TurnStatusEntrySchema),
  /** Tool calls waiting for a user's decision, sorted by `index`. */
  approvals: v.optional(v.array(ToolApprovalSchema)),
  /** MCP servers' requests for the visitor's input still open, in the order they came. */
  elicitations: v.optional(v.array(ElicitationSchema)),
});

/**
 * A tool call waits for a user's approval; every connection of the session gets it.
 * Answered by the first `tool_decision`; the outcome reaches every tab as the call's
 * `tool_execute` (`start` when approved, `end` with `declined` when not).
 */
export const ToolApprovalRequestFrameSchema = v.object({
  type: v.literal('tool_approval_request'),
  sessionId: v.string(),
  ...ToolApprovalSchema.entries,
});

/**
 * The turn is waiting: the model has been silent for a while, or the server will ask it
 * again. Holds until the next `stream` or `tool_execute` frame, or the turn's end.
 */
export const TurnStatusFrameSchema = v.object({
  type: v.literal('turn_status'),
  sessionId: v.string(),
  ...TurnStatusSchema.entries,
});

/** The turn ended: the final assistant message as stored. */
export const MessageFrameSchema = v.object({
  type: v.literal('message'),
  sessionId: v.string(),
  message: ChatMessageSchema,
});

/** The bot challenge a `challenge_required` error asks an anonymous visitor to pass. */
export const ChallengeSchema = v.object({
  provider: v.picklist(['turnstile', 'hcaptcha']),
  siteKey: v.string(),
  /** The provider's script (its default, or the server's `AALIS_CHALLENGE_SCRIPT_URL`). */
  scriptUrl: v.string(),
});

/**
 * A clear, human-readable error. With `sessionId` it concerns the session's turn and
 * every connection of the session gets it; without, only the connection that caused it.
 */
export const ErrorFrameSchema = v.object({
  type: v.literal('error'),
  /** One of `ErrorCode`; a client treats a code it does not know as a plain error. */
  code: v.string(),
  /** Short and safe to show a visitor; a client may show its own words for the code instead. */
  message: v.string(),
  sessionId: v.optional(v.string()),
  /** Finds the detail in the server's log, for the errors that have some. */
  errorId: v.optional(v.string()),
  /** A refused `send` (`busy`, `rate_limited`, `storage`...): its `clientMessageId`, so the client can give the text back. */
  clientMessageId: v.optional(v.string()),
  /** `rate_limited`, `quota_exceeded`, `overloaded`: how long until the same frame would be accepted. */
  retryInMs: v.optional(CountSchema),
  /**
   * `quota_exceeded`, `overloaded`: the budget that ran out (`visitor_turns`,
   * `visitor_tokens`, `server_tokens`, `concurrent_turns`); a client treats one it does not know as none.
   */
  limit: v.optional(v.string()),
  /**
   * `challenge_required`, `challenge_failed`: the bot challenge to show (`provider`:
   * `turnstile` or `hcaptcha`, the site key, and the script that draws it).
   */
  challenge: v.optional(ChallengeSchema),
  /** `invalid_answer`, `not_pending`: the elicitation the answer was for. */
  elicitationId: v.optional(v.string()),
});

/**
 * A visitor's verdict on an answer, as stored: every connection of the session gets it,
 * and the answer's `feedback` becomes it (also in the history after).
 */
export const FeedbackStoredFrameSchema = v.object({
  type: v.literal('feedback'),
  sessionId: v.string(),
  messageId: v.string(),
  ...FeedbackSchema.entries,
});

/**
 * The visitor's conversations, newest activity first: the answer to `list_sessions`,
 * `rename_session` and `delete_session`. Empty for a connection without a visitor identity.
 */
export const SessionsFrameSchema = v.object({
  type: v.literal('sessions'),
  sessions: v.array(SessionSummarySchema),
});

/**
 * The conversation's handoff changed (section 8): a person was asked for (`waiting`), one
 * answers (`active`), or the conversation went back to the model (`off`). Every
 * connection of the session gets it.
 */
export const HandoffFrameSchema = v.object({
  type: v.literal('handoff'),
  sessionId: v.string(),
  state: v.picklist(['off', 'waiting', 'active']),
  operator: v.optional(v.string()),
  reason: v.optional(v.string()),
  since: TimestampSchema,
});

/**
 * The session was deleted by its owner (in this tab or another, on any instance): every
 * connection bound to it is told, and leaves it as for a new conversation.
 */
export const SessionDeletedFrameSchema = v.object({
  type: v.literal('session_deleted'),
  sessionId: v.string(),
});

/**
 * An MCP server asks the visitor for input during a tool call; every connection of the
 * session gets it. Answered by the first `elicitation_answer` that is valid; then every
 * tab gets `elicitation_settled`.
 */
export const ElicitationFrameSchema = v.object({
  type: v.literal('elicitation'),
  sessionId: v.string(),
  ...ElicitationSchema.entries,
});

/**
 * An elicitation was answered (by a tab, or by the server: `cancel` when the turn was
 * stopped or the request expired, `reason` says which). A form is dropped; an accepted
 * `url` one stays, `opened`, until its `elicitation_complete` or the call's end.
 */
export const ElicitationSettledFrameSchema = v.object({
  type: v.literal('elicitation_settled'),
  sessionId: v.string(),
  elicitationId: v.string(),
  action: ElicitationActionSchema,
  reason: v.optional(v.picklist(['expired', 'stopped'])),
});

/** A `url` elicitation's flow finished: the MCP server said so (`notifications/elicitation/complete`). */
export const ElicitationCompleteFrameSchema = v.object({
  type: v.literal('elicitation_complete'),
  sessionId: v.string(),
  elicitationId: v.string(),
});

/**
 * The answer to one `app_tool_call`, to the connection that sent it only: the MCP tool's
 * result as the MCP server gave it (`CallToolResult`), or why it was refused (`error`).
 */
export const AppToolResultFrameSchema = v.object({
  type: v.literal('app_tool_result'),
  requestId: v.string(),
  result: v.optional(recordOf(v.string(), v.unknown())),
  error: v.optional(v.string()),
});

export type ReadyFrame = v.InferOutput<typeof ReadyFrameSchema>;
export type UserMessageFrame = v.InferOutput<typeof UserMessageFrameSchema>;
export type StreamFrame = v.InferOutput<typeof StreamFrameSchema>;
export type ToolExecuteFrame = v.InferOutput<typeof ToolExecuteFrameSchema>;
export type StreamResumeFrame = v.InferOutput<typeof StreamResumeFrameSchema>;
export type MessageFrame = v.InferOutput<typeof MessageFrameSchema>;
export type ErrorFrame = v.InferOutput<typeof ErrorFrameSchema>;
export type Challenge = v.InferOutput<typeof ChallengeSchema>;
export type HistoryFrame = v.InferOutput<typeof HistoryFrameSchema>;
export type TurnStatusFrame = v.InferOutput<typeof TurnStatusFrameSchema>;
export type ToolApprovalRequestFrame = v.InferOutput<typeof ToolApprovalRequestFrameSchema>;
export type FeedbackStoredFrame = v.InferOutput<typeof FeedbackStoredFrameSchema>;
export type SessionsFrame = v.InferOutput<typeof SessionsFrameSchema>;
export type SessionDeletedFrame = v.InferOutput<typeof SessionDeletedFrameSchema>;
export type ElicitationFrame = v.InferOutput<typeof ElicitationFrameSchema>;
export type ElicitationSettledFrame = v.InferOutput<typeof ElicitationSettledFrameSchema>;
export type ElicitationCompleteFrame = v.InferOutput<typeof ElicitationCompleteFrameSchema>;
export type AppToolResultFrame = v.InferOutput<typeof AppToolResultFrameSchema>;
export type HandoffFrame = v.InferOutput<typeof HandoffFrameSchema>;
export type ServerFrame =
  | ReadyFrame
  | UserMessageFrame
  | StreamFrame
  | ToolExecuteFrame
  | StreamResumeFrame
  | MessageFrame
  | ErrorFrame
  | HistoryFrame
  | TurnStatusFrame
  | ToolApprovalRequestFrame
  | FeedbackStoredFrame
  | SessionsFrame
  | SessionDeletedFrame
  | ElicitationFrame
  | ElicitationSettledFrame
  | ElicitationCompleteFrame
  | AppToolResultFrame
  | HandoffFrame;

/** Schema of each server frame, by its `type`. */
export const serverFrameSchemas = {
  ready: ReadyFrameSchema,
  user_message: UserMessageFrameSchema,
  stream: StreamFrameSchema,
  tool_execute: ToolExecuteFrameSchema,
  stream_resume: StreamResumeFrameSchema,
  message: MessageFrameSchema,
  error: ErrorFrameSchema,
  history: HistoryFrameSchema,
  turn_status: TurnStatusFrameSchema,
  tool_approval_request: ToolApprovalRequestFrameSchema,
  feedback: FeedbackStoredFrameSchema,
  sessions: SessionsFrameSchema,
  session_deleted: SessionDeletedFrameSchema,
  elicitation: ElicitationFrameSchema,
  elicitation_settled: ElicitationSettledFrameSchema,
  elicitation_complete: ElicitationCompleteFrameSchema,
  app_tool_result: AppToolResultFrameSchema,
  handoff: HandoffFrameSchema,
} as const;
