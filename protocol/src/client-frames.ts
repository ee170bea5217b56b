/** Frames a client sends to the server (PROTOCOL.md section 3). */
import * as v from 'valibot';
import { Limits, PROTOCOL_VERSION } from './constants.js';
import { ElicitationActionSchema, ElicitationValueSchema, recordOf } from './shapes.js';

export const HelloFrameSchema = v.object({
  type: v.literal('hello'),
  protocol: v.literal(PROTOCOL_VERSION),
  /** The session to resume; omitted for a new one. */
  sessionId: v.optional(v.pipe(v.string(), v.maxLength(Limits.sessionId))),
  token: v.optional(v.pipe(v.string(), v.maxLength(Limits.token))),
  /** The anonymous visitor key a `ready` issued earlier: the same browser, the same visitor. */
  anonymousKey: v.optional(v.pipe(v.string(), v.maxLength(Limits.anonymousKey))),
  /** The token a bot challenge's widget gave (after `challenge_required`); checked once, then the anonymous key has passed. */
  challenge: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(Limits.challenge))),
  /**
   * Additions the client reads that an older client would refuse to decode, so the server
   * sends them only to a client that names them: `operator` (a person's messages, section 8).
   */
  features: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(32))), v.maxLength(16))),
});

export const SendFrameSchema = v.object({
  type: v.literal('send'),
  /** The question; empty only with `images` (the server refuses an empty send without). */
  text: v.pipe(v.string(), v.maxLength(Limits.messageText)),
  /** Uploaded images (`POST /images`) of this session to ask about, by id, in order. */
  images: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.maxLength(Limits.imageId))),
      v.minLength(1),
      v.maxLength(Limits.imagesPerMessage),
    ),
  ),
  /** Lets the sender match the `user_message` echo to what it typed. */
  clientMessageId: v.optional(v.pipe(v.string(), v.maxLength(Limits.clientMessageId))),
});

export const AbortFrameSchema = v.object({ type: v.literal('abort') });

/** Asks for older history: the messages before the one with id `before`. */
export const HistoryRequestFrameSchema = v.object({
  type: v.literal('history'),
  before: v.pipe(v.string(), v.maxLength(Limits.messageId)),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Limits.historyPage))),
});

/**
 * The user's answer to a `tool_approval_request`. The first decision for a call wins;
 * later ones change nothing. `remember: "session"` (only where the policy is `session`)
 * allows the tool for the rest of the conversation, kept by the server.
 */
export const ToolDecisionFrameSchema = v.object({
  type: v.literal('tool_decision'),
  callId: v.pipe(v.string(), v.maxLength(Limits.callId)),
  decision: v.picklist(['approve', 'deny']),
  remember: v.optional(v.literal('session')),
});

/**
 * A visitor's verdict on an answer of the session: thumbs up or down, with an optional
 * comment. The latest one for an answer replaces the one before.
 */
export const FeedbackFrameSchema = v.object({
  type: v.literal('feedback'),
  messageId: v.pipe(v.string(), v.maxLength(Limits.messageId)),
  rating: v.picklist(['up', 'down']),
  comment: v.optional(v.pipe(v.string(), v.maxLength(Limits.feedbackComment))),
});

/**
 * A new answer to the last question, in place of the last answer (`messageId`, which must
 * be the session's last message). The server sends the question again as a new
 * `user_message` that `replaces` it: the earlier exchange stays, as an earlier version.
 */
export const RegenerateFrameSchema = v.object({
  type: v.literal('regenerate'),
  messageId: v.pipe(v.string(), v.maxLength(Limits.messageId)),
  clientMessageId: v.optional(v.pipe(v.string(), v.maxLength(Limits.clientMessageId))),
});

/**
 * The last question (`messageId`, the session's last user message) rewritten and sent
 * again: a new `user_message` that `replaces` it, then its answer; the earlier exchange
 * stays, as an earlier version.
 */
export const EditFrameSchema = v.object({
  type: v.literal('edit'),
  messageId: v.pipe(v.string(), v.maxLength(Limits.messageId)),
  text: v.pipe(v.string(), v.minLength(1), v.maxLength(Limits.messageText)),
  clientMessageId: v.optional(v.pipe(v.string(), v.maxLength(Limits.clientMessageId))),
});

/**
 * The visitor's conversations (signed, or anonymous in the same browser): answered with
 * `sessions`, newest activity first. A connection without a visitor identity has none.
 */
export const ListSessionsFrameSchema = v.object({
  type: v.literal('list_sessions'),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Limits.sessionList))),
});

/** Names one of the visitor's conversations; answered with `sessions`. */
export const RenameSessionFrameSchema = v.object({
  type: v.literal('rename_session'),
  sessionId: v.pipe(v.string(), v.maxLength(Limits.sessionId)),
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(Limits.sessionTitle)),
});

/**
 * The visitor asks for a person (section 8): the conversation's handoff becomes `waiting`
 * and the site is told. Only where `ready` says `handoffOffered`.
 */
export const HandoffRequestFrameSchema = v.object({
  type: v.literal('handoff'),
  reason: v.optional(v.pipe(v.string(), v.maxLength(Limits.handoffReason))),
});

/** Deletes one of the visitor's conversations (not while it answers); answered with `sessions`. */
export const DeleteSessionFrameSchema = v.object({
  type: v.literal('delete_session'),
  sessionId: v.pipe(v.string(), v.maxLength(Limits.sessionId)),
});

/**
 * A visitor's answer to an `elicitation`. `content` only with `accept` of a form: the
 * values by field name, checked by the server against the form (an invalid answer gets an
 * `error` and the request stays open). The first valid answer wins.
 */
export const ElicitationAnswerFrameSchema = v.object({
  type: v.literal('elicitation_answer'),
  elicitationId: v.pipe(v.string(), v.maxLength(Limits.elicitationId)),
  action: ElicitationActionSchema,
  content: v.optional(recordOf(v.pipe(v.string(), v.maxLength(Limits.callId)), ElicitationValueSchema)),
});

/**
 * An MCP App, shown in the card of tool call `callId`, calls a tool of its own MCP server
 * (the bridge's `tools/call`). Answered by `app_tool_result` with the same `requestId`,
 * to this connection only. The site's approval rules apply.
 */
export const AppToolCallFrameSchema = v.object({
  type: v.literal('app_tool_call'),
  requestId: v.pipe(v.string(), v.maxLength(Limits.callId)),
  callId: v.pipe(v.string(), v.maxLength(Limits.callId)),
  /** The tool's name on its MCP server. */
  name: v.pipe(v.string(), v.maxLength(Limits.callId)),
  arguments: v.optional(recordOf(v.string(), v.unknown())),
});

export type HelloFrame = v.InferOutput<typeof HelloFrameSchema>;
export type SendFrame = v.InferOutput<typeof SendFrameSchema>;
export type AbortFrame = v.InferOutput<typeof AbortFrameSchema>;
export type HistoryRequestFrame = v.InferOutput<typeof HistoryRequestFrameSchema>;
export type ToolDecisionFrame = v.InferOutput<typeof ToolDecisionFrameSchema>;
export type FeedbackFrame = v.InferOutput<typeof FeedbackFrameSchema>;
export type RegenerateFrame = v.InferOutput<typeof RegenerateFrameSchema>;
export type EditFrame = v.InferOutput<typeof EditFrameSchema>;
export type ListSessionsFrame = v.InferOutput<typeof ListSessionsFrameSchema>;
export type RenameSessionFrame = v.InferOutput<typeof RenameSessionFrameSchema>;
export type DeleteSessionFrame = v.InferOutput<typeof DeleteSessionFrameSchema>;
export type ElicitationAnswerFrame = v.InferOutput<typeof ElicitationAnswerFrameSchema>;
export type AppToolCallFrame = v.InferOutput<typeof AppToolCallFrameSchema>;
export type HandoffRequestFrame = v.InferOutput<typeof HandoffRequestFrameSchema>;
export type ClientFrame =
  | HelloFrame
  | SendFrame
  | AbortFrame
  | HistoryRequestFrame
  | ToolDecisionFrame
  | FeedbackFrame
  | RegenerateFrame
  | EditFrame
  | ListSessionsFrame
  | RenameSessionFrame
  | DeleteSessionFrame
  | ElicitationAnswerFrame
  | AppToolCallFrame
  | HandoffRequestFrame;

/** Schema of each client frame, by its `type`. */
export const clientFrameSchemas = {
  hello: HelloFrameSchema,
  send: SendFrameSchema,
  abort: AbortFrameSchema,
  history: HistoryRequestFrameSchema,
  tool_decision: ToolDecisionFrameSchema,
  feedback: FeedbackFrameSchema,
  regenerate: RegenerateFrameSchema,
  edit: EditFrameSchema,
  list_sessions: ListSessionsFrameSchema,
  rename_session: RenameSessionFrameSchema,
  delete_session: DeleteSessionFrameSchema,
  elicitation_answer: ElicitationAnswerFrameSchema,
  app_tool_call: AppToolCallFrameSchema,
  handoff: HandoffRequestFrameSchema,
} as const;
