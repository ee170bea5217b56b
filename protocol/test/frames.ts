/** Builders for the frames the protocol tests feed the reducer, so a test reads like its story. */
import type {
  AppToolResultFrame,
  ChatMessage,
  ElicitationAction,
  ElicitationCompleteFrame,
  ElicitationFrame,
  ElicitationSettledFrame,
  ErrorFrame,
  FeedbackStoredFrame,
  HandoffFrame,
  ImageRef,
  MessageFrame,
  ReadyFrame,
  StreamFrame,
  ToolApprovalRequestFrame,
  ToolExecuteFrame,
  TurnStatusFrame,
  Usage,
  UserMessageFrame,
} from '../src/index.js';

export const SESSION = 'session-1';

export const ready = (messages: ChatMessage[] = [], sessionId = SESSION): ReadyFrame => ({
  type: 'ready',
  sessionId,
  serverTime: 1_000,
  messages,
  resumed: messages.length > 0,
});

export const userMessage = (id: string, text: string, images?: ImageRef[]): UserMessageFrame => ({
  type: 'user_message',
  sessionId: SESSION,
  message: {
    id,
    role: 'user',
    parts: [{ type: 'text', text }],
    createdAt: 1_000,
    ...(images ? { images } : {}),
  },
});

export const stream = (
  fields: Omit<StreamFrame, 'type' | 'sessionId'>,
  sessionId = SESSION,
): StreamFrame => ({
  type: 'stream',
  sessionId,
  ...fields,
});

export const text = (contentDelta: string): StreamFrame => stream({ contentDelta });
export const reasoning = (reasoningDelta: string): StreamFrame => stream({ reasoningDelta });
export const progress = (index: number, name: string, charsAccumulated: number): StreamFrame =>
  stream({ toolCallProgress: { index, name, charsAccumulated } });
export const done = (usage?: Usage): StreamFrame => stream(usage ? { done: true, usage } : { done: true });

/** A `tool_execute` of the test session: what every phase has, and the phase's own fields. */
const execute = (
  phase: ToolExecuteFrame['phase'],
  callId: string,
  index: number,
  name: string,
  fields: Partial<ToolExecuteFrame>,
): ToolExecuteFrame => ({ type: 'tool_execute', sessionId: SESSION, phase, callId, index, name, ...fields });

export const toolStart = (
  callId: string,
  index: number,
  name: string,
  args: unknown = {},
): ToolExecuteFrame =>
  execute('start', callId, index, name, {
    arguments: args,
  });

export const toolEnd = (
  callId: string,
  index: number,
  name: string,
  result: unknown,
  durationMs?: number,
  isError?: boolean,
): ToolExecuteFrame =>
  execute('end', callId, index, name, {
    // As the server sends it: the arguments came with `start`.
    result,
    ...(durationMs === undefined ? {} : { durationMs }),
    ...(isError === undefined ? {} : { isError }),
  });

export const toolProgress = (
  callId: string,
  index: number,
  name: string,
  progress: number,
  total?: number,
  message?: string,
): ToolExecuteFrame =>
  execute('progress', callId, index, name, {
    progress,
    ...(total === undefined ? {} : { total }),
    ...(message === undefined ? {} : { message }),
  });

/** The `end` of a call that never ran. */
export const toolDeclined = (
  callId: string,
  index: number,
  name: string,
  declined: 'user' | 'expired' = 'user',
): ToolExecuteFrame =>
  execute('end', callId, index, name, {
    isError: true,
    declined,
    result: 'The user declined to run this tool.',
  });

export const approvalRequest = (
  callId: string,
  index: number,
  name: string,
  args: unknown = {},
  policy: 'always' | 'session' = 'always',
  expiresAt = 600_000,
): ToolApprovalRequestFrame => ({
  type: 'tool_approval_request',
  sessionId: SESSION,
  callId,
  index,
  name,
  arguments: args,
  policy,
  expiresAt,
});

export const assistantMessage = (id: string, parts: ChatMessage['parts']): MessageFrame => ({
  type: 'message',
  sessionId: SESSION,
  message: { id, role: 'assistant', parts, createdAt: 2_000, status: 'complete' },
});

/**
 * The message that ends a turn whose instance died, as another instance sends it: failed
 * with `interrupted`, and each call that was still running of unknown outcome.
 */
export const interruptedMessage = (id: string, parts: ChatMessage['parts']): MessageFrame => ({
  type: 'message',
  sessionId: SESSION,
  message: {
    id,
    role: 'assistant',
    parts,
    createdAt: 2_000,
    status: 'error',
    error: { code: 'interrupted', message: 'the server running this answer stopped before it was finished' },
  },
});

export const waiting = (attempt?: number): TurnStatusFrame => ({
  type: 'turn_status',
  sessionId: SESSION,
  state: 'waiting',
  ...(attempt === undefined ? {} : { attempt }),
});

export const retrying = (attempt: number, retryInMs: number): TurnStatusFrame => ({
  type: 'turn_status',
  sessionId: SESSION,
  state: 'retrying',
  attempt,
  retryInMs,
});

export const error = (code: string, sessionId?: string): ErrorFrame =>
  sessionId === undefined
    ? { type: 'error', code, message: code }
    : { type: 'error', code, message: code, sessionId };

export const usage = (promptTokens: number, completionTokens: number): Usage => ({
  promptTokens,
  completionTokens,
  totalTokens: promptTokens + completionTokens,
});

export const feedback = (
  messageId: string,
  rating: 'up' | 'down',
  comment?: string,
): FeedbackStoredFrame => ({
  type: 'feedback',
  sessionId: SESSION,
  messageId,
  rating,
  ...(comment === undefined ? {} : { comment }),
});

/** A form the `shop` MCP server asks for during call `callId`: one required text field. */
export const formElicitation = (
  elicitationId: string,
  callId: string,
  expiresAt = 600_000,
): ElicitationFrame => ({
  type: 'elicitation',
  sessionId: SESSION,
  elicitationId,
  callId,
  serverName: 'shop',
  mode: 'form',
  message: 'Where should the parcel go?',
  requestedSchema: {
    type: 'object',
    properties: { street: { type: 'string', title: 'Street' }, express: { type: 'boolean' } },
    required: ['street'],
  },
  expiresAt,
});

/** A page the `payments` MCP server asks the visitor to open during call `callId`. */
export const urlElicitation = (
  elicitationId: string,
  callId: string,
  expiresAt = 600_000,
): ElicitationFrame => ({
  type: 'elicitation',
  sessionId: SESSION,
  elicitationId,
  callId,
  serverName: 'payments',
  mode: 'url',
  message: 'Confirm the payment with your bank.',
  url: 'https://pay.example.com/confirm?flow=42',
  expiresAt,
});

export const elicitationSettled = (
  elicitationId: string,
  action: ElicitationAction,
  reason?: 'expired' | 'stopped',
): ElicitationSettledFrame => ({
  type: 'elicitation_settled',
  sessionId: SESSION,
  elicitationId,
  action,
  ...(reason === undefined ? {} : { reason }),
});

export const elicitationComplete = (elicitationId: string): ElicitationCompleteFrame => ({
  type: 'elicitation_complete',
  sessionId: SESSION,
  elicitationId,
});

/** An app's tool call answered: the MCP tool's result, to the one connection that asked. */
export const appToolResult = (requestId: string, text: string): AppToolResultFrame => ({
  type: 'app_tool_result',
  requestId,
  result: { content: [{ type: 'text', text }], structuredContent: { text } },
});

/** The conversation's handoff changed (section 8). */
export const handoff = (
  state: 'off' | 'waiting' | 'active',
  since: number,
  operator?: string,
  reason?: string,
): HandoffFrame => ({
  type: 'handoff',
  sessionId: SESSION,
  state,
  since,
  ...(operator ? { operator } : {}),
  ...(reason ? { reason } : {}),
});

/** A person's reply in the conversation. */
export const operatorMessage = (id: string, text: string, author = 'Ada'): MessageFrame => ({
  type: 'message',
  sessionId: SESSION,
  message: { id, role: 'operator', author, parts: [{ type: 'text', text }], createdAt: 1_000 },
});

/** A visitor's message for the person answering: no turn follows. */
export const toOperator = (id: string, text: string): UserMessageFrame => ({
  type: 'user_message',
  sessionId: SESSION,
  message: { id, role: 'user', parts: [{ type: 'text', text }], createdAt: 1_000, toOperator: true },
});
