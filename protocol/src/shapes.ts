/**
 * The shapes that frames are made of (PROTOCOL.md sections 1 and 3), as valibot
 * schemas. Each TypeScript type is inferred from its schema, so the runtime check,
 * the static type and the published JSON Schema can never drift apart.
 *
 * Objects are `v.object`: unknown keys are dropped when parsing (a receiver ignores
 * fields it does not know) and the JSON Schema allows them (additions are allowed).
 */
import * as v from 'valibot';

/** A whole number that cannot be negative: indexes, counts, durations. */
export const CountSchema = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Epoch milliseconds on the server's clock. (JSON has no Infinity or NaN to rule out.) */
export const TimestampSchema = v.pipe(v.number(), v.minValue(0));

export const UsageSchema = v.object({
  promptTokens: CountSchema,
  completionTokens: CountSchema,
  totalTokens: CountSchema,
});
export type Usage = v.InferOutput<typeof UsageSchema>;

/** What a provider knows about one tool call while its arguments are still streaming. */
export const ToolCallProgressSchema = v.object({
  /** `tool_calls[i].index` in this model round. */
  index: CountSchema,
  /** The function name; `''` until a fragment has carried it. */
  name: v.string(),
  /** Length of the arguments text so far, in UTF-16 units; absolute, not a delta. */
  charsAccumulated: CountSchema,
  /** The call's id, once the model has given it: the same `callId` its `tool_execute` frames carry. */
  callId: v.optional(v.string()),
  /**
   * This fragment's argument text. Between the server's own parts only (the agent, the
   * session buffer, other instances, the AG-UI endpoint): a WebSocket client never gets it
   * (`withoutArgumentText`), so the arguments cross the socket once, with `tool_execute`.
   */
  argumentsDelta: v.optional(v.string()),
});
export type ToolCallProgress = v.InferOutput<typeof ToolCallProgressSchema>;

/** A complete tool call as the model finished writing it. */
export const ToolCallSchema = v.object({
  /** The provider's call id, or one made by the server where the provider has none. */
  id: v.string(),
  index: CountSchema,
  name: v.string(),
  /** The arguments exactly as the model wrote them: JSON text, not yet parsed. */
  arguments: v.string(),
});
export type ToolCall = v.InferOutput<typeof ToolCallSchema>;

/** The fields a provider chunk shares with the agent's stream event and the `stream` frame. */
const streamDeltaEntries = {
  contentDelta: v.optional(v.string()),
  reasoningDelta: v.optional(v.string()),
  /** One tool index per chunk. */
  toolCallProgress: v.optional(ToolCallProgressSchema),
  /** Ends one model round. */
  done: v.optional(v.boolean()),
  usage: v.optional(UsageSchema),
};

/** What every LLM provider yields. */
export const ChatStreamChunkSchema = v.object({
  ...streamDeltaEntries,
  /** Only with `done`: the complete, final tool calls of the round. */
  toolCalls: v.optional(v.array(ToolCallSchema)),
});
export type ChatStreamChunk = v.InferOutput<typeof ChatStreamChunkSchema>;

/** A progress entry as the server's stream buffer keeps it, and as `stream_resume` sends it. */
export const ToolCallProgressEntrySchema = v.object({
  index: ToolCallProgressSchema.entries.index,
  name: ToolCallProgressSchema.entries.name,
  charsAccumulated: ToolCallProgressSchema.entries.charsAccumulated,
  callId: ToolCallProgressSchema.entries.callId,
  /**
   * The arguments written so far, the fragments' `argumentsDelta` joined: kept by the server
   * (a client that rejoins through the AG-UI endpoint gets them), never sent on the socket.
   */
  arguments: v.optional(v.string()),
  /** When this index was first seen. Kept across updates, so elapsed time continues. */
  startedAt: TimestampSchema,
  /** When this index last changed; a client tells a stalled model by it. */
  updatedAt: TimestampSchema,
});
export type ToolCallProgressEntry = v.InferOutput<typeof ToolCallProgressEntrySchema>;

/**
 * What the turn is waiting for when nothing streams: the model has been silent for a
 * while (`waiting`), the server is about to ask it again (`retrying`), the answer is
 * written and kept while the history cannot store it yet (`saving`), or the server
 * running the turn stopped renewing its lease (`unresponsive`, told by another instance).
 */
const turnStatusEntries = {
  state: v.picklist(['waiting', 'retrying', 'saving', 'unresponsive']),
  /** The attempt this is about, 1 for the first (of the model request, or of storing the answer). */
  attempt: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /** `retrying`, `saving`: how long until the next attempt, from when the status was sent. */
  retryInMs: v.optional(CountSchema),
};
export const TurnStatusSchema = v.object(turnStatusEntries);
export type TurnStatus = v.InferOutput<typeof TurnStatusSchema>;

/** A turn status as the stream buffer keeps it and `stream_resume` sends it. */
export const TurnStatusEntrySchema = v.object({
  ...turnStatusEntries,
  /** When the status was set, on the server's clock (the countdown runs from here). */
  since: TimestampSchema,
});
export type TurnStatusEntry = v.InferOutput<typeof TurnStatusEntrySchema>;

/**
 * How far a running tool has come, as it last said (MCP `notifications/progress`):
 * `progress` rises; `total` when the tool knows it; `message` says what it is doing.
 */
const toolProgressEntries = {
  progress: v.pipe(v.number(), v.minValue(0)),
  total: v.optional(v.pipe(v.number(), v.minValue(0))),
  message: v.optional(v.string()),
};
export const ToolProgressSchema = v.object(toolProgressEntries);
export type ToolProgress = v.InferOutput<typeof ToolProgressSchema>;

/**
 * Why a tool call never ran: the user declined it (`user`), or no one decided before
 * its approval request expired (`expired`).
 */
export const DeclinedSchema = v.picklist(['user', 'expired']);
export type Declined = v.InferOutput<typeof DeclinedSchema>;

/**
 * A tool call waiting for a user's approval before it runs. `policy` is the server's
 * rule for the tool: `always` asks every time, `session` lets the user allow the tool for
 * the rest of the conversation.
 */
export const ToolApprovalSchema = v.object({
  callId: v.string(),
  index: CountSchema,
  name: v.string(),
  /**
   * The arguments as the model wrote them (a string). Servers before the redesign sent the
   * parsed value, and history stored then still holds it: a client shows a non-string as JSON.
   */
  arguments: v.optional(v.unknown()),
  policy: v.picklist(['always', 'session']),
  /** When an undecided request counts as declined, on the server's clock. */
  expiresAt: TimestampSchema,
});
export type ToolApproval = v.InferOutput<typeof ToolApprovalSchema>;

/**
 * A JSON object whose keys are not known in advance. valibot's `record` alone takes an
 * array too, which JSON Schema's `type: object` (the published schema, the browser's
 * checks) refuses; the decoders must agree. The JSON Schema is the record's (json-schema.ts
 * describes a pipe by its last schema).
 */
export const recordOf = <TKey extends v.GenericSchema<string, string>, TValue extends v.GenericSchema>(
  key: TKey,
  value: TValue,
) =>
  v.pipe(
    v.unknown(),
    v.rawCheck(({ dataset, addIssue }) => {
      if (Array.isArray(dataset.value)) addIssue({ expected: 'Object', received: 'an array' });
    }),
    v.record(key, value),
  );

/**
 * The form of a form-mode elicitation: MCP's `requestedSchema`, a flat object whose fields
 * are strings (with `format` email, uri, date or date-time), numbers, integers, booleans,
 * single-select enums (`enum`, `oneOf` with titles) and multi-select ones (`type: array`).
 * Kept as the MCP server sent it: the server checked it against the MCP schema, and
 * validates every answer against it.
 */
export const ElicitationFormSchema = v.object({
  type: v.literal('object'),
  properties: recordOf(v.string(), recordOf(v.string(), v.unknown())),
  required: v.optional(v.array(v.string())),
});
export type ElicitationForm = v.InferOutput<typeof ElicitationFormSchema>;

/**
 * A request from an MCP server, during one of its tool calls (`callId`), for the
 * visitor's input (MCP `elicitation/create`): a form (`form`, with `requestedSchema`) or a
 * page to visit (`url`), whose data never passes through the chat. No answer by
 * `expiresAt` counts as `cancel`.
 */
export const ElicitationSchema = v.object({
  elicitationId: v.string(),
  callId: v.string(),
  /** The MCP server that asks, by the name the site's configuration gives it. */
  serverName: v.string(),
  mode: v.picklist(['form', 'url']),
  /** The server's words: shown as the MCP server's, never as the model's. */
  message: v.string(),
  requestedSchema: v.optional(ElicitationFormSchema),
  /** `url` mode: the page to open (http or https). */
  url: v.optional(v.string()),
  expiresAt: TimestampSchema,
  /** `url` mode: the visitor opened the page (answered `accept`); the call waits for the flow to finish. */
  opened: v.optional(v.boolean()),
  /** `url` mode: the MCP server said the flow finished (`elicitation_complete`). */
  completed: v.optional(v.boolean()),
});
export type Elicitation = v.InferOutput<typeof ElicitationSchema>;

/** A visitor's answer to an elicitation: MCP's three actions. */
export const ElicitationActionSchema = v.picklist(['accept', 'decline', 'cancel']);
export type ElicitationAction = v.InferOutput<typeof ElicitationActionSchema>;

/** What a form's field may hold: MCP's primitive values, and lists of strings (multi-select). */
export const ElicitationValueSchema = v.union([v.string(), v.number(), v.boolean(), v.array(v.string())]);

/**
 * A tool whose MCP server shows it as an MCP App (`_meta.ui.resourceUri`): the chat renders
 * the app in the tool's card, loaded from the server's `/mcp-apps` route.
 */
export const ToolAppSchema = v.object({
  /** The MCP server the app belongs to, by its configured name: the only one it may call. */
  serverName: v.string(),
  /** The app's `ui://` resource. */
  resourceUri: v.string(),
});
export type ToolApp = v.InferOutput<typeof ToolAppSchema>;

export const TextPartSchema = v.object({ type: v.literal('text'), text: v.string() });
export const ReasoningPartSchema = v.object({ type: v.literal('reasoning'), text: v.string() });
export const ToolCallPartSchema = v.object({
  type: v.literal('tool_call'),
  callId: v.string(),
  index: CountSchema,
  name: v.string(),
  /**
   * The arguments as the model wrote them (older servers and history: the parsed value). Omitted in a `message`
   * frame: every client of the session has them from `tool_execute` start or
   * `stream_resume`, and large arguments are never sent to a client twice.
   */
  arguments: v.optional(v.unknown()),
  /**
   * `unknown`: the server running the turn stopped while the tool ran, so it may have
   * completed; it is never run again by itself.
   */
  status: v.picklist(['running', 'done', 'error', 'unknown']),
  /** The tool's result, or the error it reported when `status` is `'error'`. */
  result: v.optional(v.unknown()),
  startedAt: TimestampSchema,
  endedAt: v.optional(TimestampSchema),
  /** How long the model took to write it (`tool_execute`'s `writingMs`): its card's time. */
  writingMs: v.optional(v.pipe(v.number(), v.minValue(0))),
  /** While it runs: what the tool last said of its progress. */
  progress: v.optional(ToolProgressSchema),
  /** It never ran: declined by the user, or its approval request expired (`status` is `error`). */
  declined: v.optional(DeclinedSchema),
  /** The tool is shown as an MCP App: the card renders it, with the call's arguments and result. */
  app: v.optional(ToolAppSchema),
});
export const PartSchema = v.variant('type', [TextPartSchema, ReasoningPartSchema, ToolCallPartSchema]);
export type TextPart = v.InferOutput<typeof TextPartSchema>;
export type ReasoningPart = v.InferOutput<typeof ReasoningPartSchema>;
export type ToolCallPart = v.InferOutput<typeof ToolCallPartSchema>;
export type Part = v.InferOutput<typeof PartSchema>;

export const MessageStatusSchema = v.picklist(['complete', 'aborted', 'error']);
export type MessageStatus = v.InferOutput<typeof MessageStatusSchema>;

/** Why a turn did not complete, kept with its message so that the history says so too. */
export const MessageErrorSchema = v.object({
  /** One of `ErrorCode`. */
  code: v.string(),
  /** Short and safe to show a visitor; never the provider's own words. */
  message: v.string(),
  /** Finds the detail in the server's log. */
  errorId: v.optional(v.string()),
});
export type MessageError = v.InferOutput<typeof MessageErrorSchema>;

/** A visitor's verdict on an answer (the `feedback` frames). */
export const FeedbackSchema = v.object({
  rating: v.picklist(['up', 'down']),
  comment: v.optional(v.string()),
});
export type Feedback = v.InferOutput<typeof FeedbackSchema>;

/** One of a visitor's conversations, as its list shows it. */
export const SessionSummarySchema = v.object({
  id: v.string(),
  /** Its name, or the start of its first question. */
  title: v.string(),
  /** When its last message was written. */
  lastActivity: TimestampSchema,
});
export type SessionSummary = v.InferOutput<typeof SessionSummarySchema>;

/** The image types a visitor may attach, by what their bytes say (image-type.ts), never by name. */
export const ImageMimeTypeSchema = v.picklist(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
export type ImageMimeType = v.InferOutput<typeof ImageMimeTypeSchema>;

/**
 * An image a visitor attached to a question: uploaded over HTTP first (`POST /images`),
 * then named by `id` in `send`. Its bytes are at `GET /images/<id>` on the server.
 */
export const ImageRefSchema = v.object({
  id: v.string(),
  mimeType: ImageMimeTypeSchema,
  width: CountSchema,
  height: CountSchema,
  /** Its size in bytes. */
  bytes: CountSchema,
});
export type ImageRef = v.InferOutput<typeof ImageRefSchema>;

export const ChatMessageSchema = v.object({
  id: v.string(),
  /**
   * `operator`: a person who joined the conversation (a handoff, section 8), never the
   * model; its `author` names them.
   */
  role: v.picklist(['user', 'assistant', 'operator']),
  parts: v.array(PartSchema),
  createdAt: TimestampSchema,
  /** Assistant messages only: how the turn ended. */
  status: v.optional(MessageStatusSchema),
  /** Assistant messages with status `error` (or stopped by the server): why. */
  error: v.optional(MessageErrorSchema),
  usage: v.optional(UsageSchema),
  /** Assistant messages: the visitor's latest verdict on it. */
  feedback: v.optional(FeedbackSchema),
  /**
   * User messages: the earlier question this one replaces (a `regenerate` or an `edit`).
   * Its exchange (the question and its answer) is an earlier version of this one.
   */
  replaces: v.optional(v.string()),
  /** User messages: the images attached to the question, in the order attached. */
  images: v.optional(v.array(ImageRefSchema)),
  /** Operator messages: the person's name as the site shows it. */
  author: v.optional(v.string()),
  /**
   * User messages sent while a person answers (a handoff `active`): for the person, not
   * the model; no turn follows.
   */
  toOperator: v.optional(v.literal(true)),
});
export type ChatMessage = v.InferOutput<typeof ChatMessageSchema>;

/**
 * Where a conversation stands with a person (section 8): `waiting` once the visitor (or
 * the agent) asked for one, `active` once one answered; no handoff is `off`.
 */
export const HandoffSchema = v.object({
  state: v.picklist(['waiting', 'active']),
  /** The person answering (`active`), by the name the site shows. */
  operator: v.optional(v.string()),
  /** Why a person was asked for, in the visitor's (or the agent's) words. */
  reason: v.optional(v.string()),
  /** Server time it came to this state. */
  since: TimestampSchema,
});
export type Handoff = v.InferOutput<typeof HandoffSchema>;

/**
 * The agent's event on `outbound:stream`: a provider chunk forwarded unchanged for a
 * session. The final tool calls stay behind: they reach clients as `tool_execute`.
 */
export const StreamChunkMessageSchema = v.object({
  sessionId: v.string(),
  ...streamDeltaEntries,
});
export type StreamChunkMessage = v.InferOutput<typeof StreamChunkMessageSchema>;
