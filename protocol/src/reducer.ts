/**
 * The one reducer from frames to a view (PROTOCOL.md section 4). The server builds each
 * session's stream buffer with it and takes `stream_resume` snapshots from it; the
 * widget renders what it returns. Pure: a new view out, the old one untouched.
 *
 * Times in a view are on the server's clock. Frames that carry no time (`stream`,
 * `tool_execute`) are stamped with the `now` the caller passes: the server passes its
 * own clock, a client passes its clock converted with the server offset (see clock.ts).
 */
import type { AbortFrame } from './client-frames.js';
import type {
  ElicitationSettledFrame,
  ServerFrame,
  StreamFrame,
  StreamResumeFrame,
  ToolApprovalRequestFrame,
  ToolExecuteFrame,
} from './server-frames.js';
import type {
  ChatMessage,
  Elicitation,
  Handoff,
  Part,
  ToolApproval,
  ToolCallPart,
  ToolCallProgressEntry,
  TurnStatusEntry,
  Usage,
} from './shapes.js';

/** The running turn: what the assistant produced so far and the tool calls being written. */
export interface TurnView {
  parts: readonly Part[];
  /** Summed over the turn's finished model rounds. */
  usage?: Usage;
  /** By tool-call index: the calls whose arguments are streaming right now. */
  toolCallsProgress: ReadonlyMap<number, ToolCallProgressEntry>;
  /** What the turn waits for while nothing streams; gone with the next stream or tool frame. */
  status?: TurnStatusEntry;
  /**
   * By call id: tool calls waiting for a user's decision. Each is gone with its call's
   * `tool_execute` (approved: `start`; declined or expired: `end`), all of them with
   * `abort` and the turn's end.
   */
  approvals: ReadonlyMap<string, ToolApproval>;
  /**
   * By elicitation id, in the order they came: MCP servers' requests for the visitor's
   * input. A form is gone once settled; an accepted `url` one stays (`opened`, then
   * `completed`) until its call ends. All of them go with `abort` and the turn's end.
   */
  elicitations: ReadonlyMap<string, Elicitation>;
}

export interface ChatView {
  sessionId: string | null;
  /** The session's finished messages, oldest first. */
  messages: readonly ChatMessage[];
  /** The turn in progress, or null when none runs. */
  turn: TurnView | null;
  /** The conversation's handoff to a person (section 8), while a person is asked for or answers. */
  handoff?: Handoff;
}

/** Frames the reducer understands: every server frame, and `abort` for a client that stops at once. */
export type ViewFrame = ServerFrame | AbortFrame;

const NO_PROGRESS: ReadonlyMap<number, ToolCallProgressEntry> = new Map();
const NO_APPROVALS: ReadonlyMap<string, ToolApproval> = new Map();
const NO_ELICITATIONS: ReadonlyMap<string, Elicitation> = new Map();

export const emptyView: ChatView = Object.freeze({ sessionId: null, messages: [], turn: null });

const emptyTurn = (): TurnView => ({
  parts: [],
  toolCallsProgress: NO_PROGRESS,
  approvals: NO_APPROVALS,
  elicitations: NO_ELICITATIONS,
});

export function reduce(view: ChatView, frame: ViewFrame, now: number): ChatView {
  if (frame.type === 'ready') {
    // A (re)bound connection: the history is the server's, nothing else carries over.
    const fresh = { sessionId: frame.sessionId, messages: frame.messages, turn: null };
    return frame.handoff ? { ...fresh, handoff: frame.handoff } : fresh;
  }
  if (frame.type === 'abort') {
    return withTurn(view, view.turn && clearElicitations(clearApprovals(clearProgress(view.turn))));
  }
  // The visitor's conversation list is not part of a conversation's view.
  // Neither is an app's tool call answered to one connection.
  if (frame.type === 'sessions' || frame.type === 'app_tool_result') return view;
  // A frame for another session (a connection rebound by a later hello) changes nothing.
  if (frame.sessionId !== undefined && view.sessionId !== null && frame.sessionId !== view.sessionId) {
    return view;
  }
  switch (frame.type) {
    case 'session_deleted':
      // Nothing of it is left to show; the client leaves it (a new hello).
      return { sessionId: view.sessionId, messages: [], turn: null };
    case 'user_message':
      // A new turn starts from nothing; a message for the person who answers starts none.
      return {
        ...view,
        messages: appendMessage(view.messages, frame.message),
        turn: frame.message.toOperator ? view.turn : emptyTurn(),
      };
    case 'handoff': {
      const { type: _type, sessionId: _session, state, ...rest } = frame;
      const { handoff: _was, ...without } = view;
      return state === 'off' ? without : { ...view, handoff: { state, ...rest } };
    }
    case 'stream':
      return withTurn(view, applyStream(withoutStatus(view.turn ?? emptyTurn()), frame, now));
    case 'tool_execute':
      return withTurn(view, applyToolExecute(withoutStatus(view.turn ?? emptyTurn()), frame, now));
    case 'tool_approval_request':
      return withTurn(view, applyApprovalRequest(withoutStatus(view.turn ?? emptyTurn()), frame));
    case 'elicitation': {
      const { type: _type, sessionId: _session, ...elicitation } = frame;
      return withTurn(view, withElicitation(view.turn ?? emptyTurn(), elicitation));
    }
    case 'elicitation_settled':
      return withTurn(view, view.turn && applyElicitationSettled(view.turn, frame));
    case 'elicitation_complete': {
      const known = view.turn?.elicitations.get(frame.elicitationId);
      return withTurn(view, known ? withElicitation(view.turn!, { ...known, completed: true }) : view.turn);
    }
    case 'turn_status': {
      const { type: _type, sessionId: _session, ...status } = frame;
      return withTurn(view, { ...(view.turn ?? emptyTurn()), status: { ...status, since: now } });
    }
    case 'stream_resume':
      return withTurn(view, turnFromSnapshot(frame));
    case 'message': {
      // A person's reply is no turn's end: a turn running on goes on.
      if (frame.message.role === 'operator')
        return { ...view, messages: appendMessage(view.messages, frame.message) };
      const message = withKnownArguments(frame.message, view.turn);
      return { ...view, messages: appendMessage(view.messages, message), turn: null };
    }
    case 'history':
      return { ...view, messages: prependOlder(view.messages, frame.messages) };
    case 'feedback': {
      // The answer it is about, wherever it is in the history shown; one not shown changes nothing.
      const at = view.messages.findIndex((m) => m.id === frame.messageId);
      if (at < 0) return view;
      const feedback =
        frame.comment === undefined
          ? { rating: frame.rating }
          : { rating: frame.rating, comment: frame.comment };
      const messages = view.messages.map((m, i) => (i === at ? { ...m, feedback } : m));
      return { ...view, messages };
    }
    case 'error':
      // Only errors addressed to the session concern its turn; the turn itself ends
      // with the `message` that follows.
      return frame.sessionId === undefined
        ? view
        : withTurn(view, view.turn && withoutStatus(clearProgress(view.turn)));
    default:
      return view;
  }
}

/**
 * The `stream_resume` frame for a view: everything of the running turn, so that a client
 * that applies it and then the frames after it sees what a client that never left sees.
 * Null when no turn runs.
 */
export function snapshot(view: ChatView, serverTime: number): StreamResumeFrame | null {
  if (view.turn === null || view.sessionId === null) return null;
  const frame: StreamResumeFrame = {
    type: 'stream_resume',
    sessionId: view.sessionId,
    serverTime,
    parts: [...view.turn.parts],
    toolCallsProgress: progressList(view.turn),
  };
  if (view.turn.usage) frame.usage = view.turn.usage;
  if (view.turn.status) frame.turnStatus = view.turn.status;
  if (view.turn.approvals.size) frame.approvals = approvalList(view.turn);
  if (view.turn.elicitations.size) frame.elicitations = [...view.turn.elicitations.values()];
  return frame;
}

/** The turn's pending tool calls, sorted by index: the order cards are shown in. */
export function progressList(turn: TurnView): ToolCallProgressEntry[] {
  return [...turn.toolCallsProgress.values()].sort((a, b) => a.index - b.index);
}

/** The turn's tool calls waiting for a decision, sorted by index. */
export function approvalList(turn: TurnView): ToolApproval[] {
  return [...turn.approvals.values()].sort((a, b) => a.index - b.index);
}

function withTurn(view: ChatView, turn: TurnView | null): ChatView {
  return turn === view.turn ? view : { ...view, turn };
}

function withoutStatus(turn: TurnView): TurnView {
  if (!turn.status) return turn;
  const { status: _status, ...rest } = turn;
  return rest;
}

function clearProgress(turn: TurnView): TurnView {
  return turn.toolCallsProgress.size === 0 ? turn : { ...turn, toolCallsProgress: NO_PROGRESS };
}

function clearApprovals(turn: TurnView): TurnView {
  return turn.approvals.size === 0 ? turn : { ...turn, approvals: NO_APPROVALS };
}

function clearElicitations(turn: TurnView): TurnView {
  return turn.elicitations.size === 0 ? turn : { ...turn, elicitations: NO_ELICITATIONS };
}

function withElicitation(turn: TurnView, elicitation: Elicitation): TurnView {
  const elicitations = new Map(turn.elicitations);
  elicitations.set(elicitation.elicitationId, elicitation);
  return { ...turn, elicitations };
}

/** A form, or a page the visitor would not open, is done with; an opened page waits for its end. */
function applyElicitationSettled(turn: TurnView, frame: ElicitationSettledFrame): TurnView {
  const known = turn.elicitations.get(frame.elicitationId);
  if (!known) return turn;
  if (known.mode === 'url' && frame.action === 'accept')
    return withElicitation(turn, { ...known, opened: true });
  const elicitations = new Map(turn.elicitations);
  elicitations.delete(frame.elicitationId);
  return { ...turn, elicitations: elicitations.size ? elicitations : NO_ELICITATIONS };
}

/** A call's end ends whatever its MCP server still asked during it. */
function withoutCallElicitations(turn: TurnView, callId: string): TurnView {
  if (turn.elicitations.size === 0) return turn;
  if (![...turn.elicitations.values()].some((e) => e.callId === callId)) return turn;
  const elicitations = new Map([...turn.elicitations].filter(([, e]) => e.callId !== callId));
  return { ...turn, elicitations: elicitations.size ? elicitations : NO_ELICITATIONS };
}

function applyApprovalRequest(turn: TurnView, frame: ToolApprovalRequestFrame): TurnView {
  const { type: _type, sessionId: _session, ...approval } = frame;
  const approvals = new Map(turn.approvals);
  approvals.set(approval.callId, approval);
  // The round is written: no card is still pending.
  return { ...turn, approvals, toolCallsProgress: NO_PROGRESS };
}

/** A call's `tool_execute` answers its approval request, whatever the outcome. */
function withoutApproval(turn: TurnView, callId: string): TurnView {
  if (!turn.approvals.has(callId)) return turn;
  const approvals = new Map(turn.approvals);
  approvals.delete(callId);
  return { ...turn, approvals: approvals.size ? approvals : NO_APPROVALS };
}

function applyStream(turn: TurnView, frame: StreamFrame, now: number): TurnView {
  let { parts, usage, toolCallsProgress } = turn;
  // An empty delta is no delta: it neither makes an empty part nor ends the tool-call phase.
  if (frame.reasoningDelta) {
    parts = appendText(parts, 'reasoning', frame.reasoningDelta);
    toolCallsProgress = NO_PROGRESS;
  }
  if (frame.contentDelta) {
    parts = appendText(parts, 'text', frame.contentDelta);
    toolCallsProgress = NO_PROGRESS;
  }
  if (frame.toolCallProgress) {
    const { index, name, charsAccumulated, callId, argumentsDelta } = frame.toolCallProgress;
    const known = toolCallsProgress.get(index);
    const next = new Map(toolCallsProgress);
    const entry: ToolCallProgressEntry = {
      index,
      // A fragment without the name (or the id) never takes back one already known.
      name: name || (known?.name ?? ''),
      charsAccumulated,
      startedAt: known?.startedAt ?? now,
      updatedAt: now,
    };
    const id = callId || known?.callId;
    if (id) entry.callId = id;
    const written =
      argumentsDelta === undefined ? known?.arguments : (known?.arguments ?? '') + argumentsDelta;
    if (written !== undefined) entry.arguments = written;
    next.set(index, entry);
    toolCallsProgress = next;
  }
  if (frame.usage) usage = addUsage(usage, frame.usage);
  if (frame.done) toolCallsProgress = NO_PROGRESS;
  const changed =
    parts !== turn.parts || usage !== turn.usage || toolCallsProgress !== turn.toolCallsProgress;
  if (!changed) return turn;
  const { usage: _usage, ...rest } = turn;
  return usage ? { ...rest, parts, usage, toolCallsProgress } : { ...rest, parts, toolCallsProgress };
}

function applyToolExecute(answered: TurnView, frame: ToolExecuteFrame, now: number): TurnView {
  const turn = withoutApproval(answered, frame.callId);
  if (frame.phase === 'progress') return applyToolProgress(turn, frame);
  if (frame.phase === 'start') {
    const part: ToolCallPart = {
      type: 'tool_call',
      callId: frame.callId,
      index: frame.index,
      name: frame.name,
      arguments: frame.arguments,
      status: 'running',
      startedAt: now,
    };
    if (frame.writingMs !== undefined) part.writingMs = frame.writingMs;
    if (frame.app !== undefined) part.app = frame.app;
    // The real tool-call block takes over from the pending cards.
    return { ...turn, parts: [...turn.parts, part], toolCallsProgress: NO_PROGRESS };
  }
  // Matched by callId, never by name: the same tool may run twice at once.
  const at = turn.parts.findIndex((p) => p.type === 'tool_call' && p.callId === frame.callId);
  const started = at >= 0 ? (turn.parts[at] as ToolCallPart) : undefined;
  const startedAt = started?.startedAt ?? now - (frame.durationMs ?? 0);
  const ended: ToolCallPart = {
    type: 'tool_call',
    callId: frame.callId,
    index: frame.index,
    name: frame.name,
    status: frame.isError ? 'error' : 'done',
    startedAt,
    // The server measured the run; a receipt time would add network delay to it.
    endedAt: frame.durationMs === undefined ? now : startedAt + frame.durationMs,
  };
  // `end` omits the arguments: they came with `start`.
  const args = started ? started.arguments : frame.arguments;
  if (args !== undefined) ended.arguments = args;
  if (frame.result !== undefined) ended.result = frame.result;
  if (frame.declined !== undefined) ended.declined = frame.declined;
  const writingMs = started ? started.writingMs : frame.writingMs;
  if (writingMs !== undefined) ended.writingMs = writingMs;
  const app = started ? started.app : frame.app;
  if (app !== undefined) ended.app = app;
  const parts = at >= 0 ? turn.parts.map((p, i) => (i === at ? ended : p)) : [...turn.parts, ended];
  return { ...withoutCallElicitations(turn, frame.callId), parts };
}

/** The running call's latest report replaces the one before; a call not running ignores it. */
function applyToolProgress(turn: TurnView, frame: ToolExecuteFrame): TurnView {
  if (frame.progress === undefined) return turn;
  const at = turn.parts.findIndex(
    (p) => p.type === 'tool_call' && p.callId === frame.callId && p.status === 'running',
  );
  if (at < 0) return turn;
  const progress: NonNullable<ToolCallPart['progress']> = { progress: frame.progress };
  if (frame.total !== undefined) progress.total = frame.total;
  if (frame.message !== undefined) progress.message = frame.message;
  const part = { ...(turn.parts[at] as ToolCallPart), progress };
  return { ...turn, parts: turn.parts.map((p, i) => (i === at ? part : p)) };
}

function turnFromSnapshot(frame: StreamResumeFrame): TurnView {
  const toolCallsProgress = new Map(frame.toolCallsProgress.map((entry) => [entry.index, entry] as const));
  const approvals = new Map((frame.approvals ?? []).map((entry) => [entry.callId, entry] as const));
  const elicitations = new Map((frame.elicitations ?? []).map((e) => [e.elicitationId, e] as const));
  const turn: TurnView = {
    parts: frame.parts,
    toolCallsProgress: toolCallsProgress.size ? toolCallsProgress : NO_PROGRESS,
    approvals: approvals.size ? approvals : NO_APPROVALS,
    elicitations: elicitations.size ? elicitations : NO_ELICITATIONS,
  };
  if (frame.usage) turn.usage = frame.usage;
  if (frame.turnStatus) turn.status = frame.turnStatus;
  return turn;
}

/**
 * A `message` frame omits its tool calls' arguments, which the client already has from
 * the running turn: they are put back from there, so the view holds the whole message.
 */
function withKnownArguments(message: ChatMessage, turn: TurnView | null): ChatMessage {
  if (!turn) return message;
  let filled = false;
  const parts = message.parts.map((part) => {
    if (part.type !== 'tool_call' || part.arguments !== undefined) return part;
    const known = turn.parts.find((p) => p.type === 'tool_call' && p.callId === part.callId);
    if (known?.type !== 'tool_call' || known.arguments === undefined) return part;
    filled = true;
    return { ...part, arguments: known.arguments };
  });
  return filled ? { ...message, parts } : message;
}

/** Adjacent text of the same kind is one part, however many deltas it came in. */
function appendText(parts: readonly Part[], type: 'text' | 'reasoning', delta: string): Part[] {
  const last = parts[parts.length - 1];
  if (last?.type === type) return [...parts.slice(0, -1), { type, text: last.text + delta }];
  return [...parts, { type, text: delta }];
}

function appendMessage(messages: readonly ChatMessage[], message: ChatMessage): ChatMessage[] {
  // The same message twice (a replay after reconnecting) replaces, never duplicates.
  const at = messages.findIndex((m) => m.id === message.id);
  return at >= 0 ? messages.map((m, i) => (i === at ? message : m)) : [...messages, message];
}

/** Older messages go first; any the view already has are not repeated. */
function prependOlder(messages: readonly ChatMessage[], older: readonly ChatMessage[]): ChatMessage[] {
  const known = new Set(messages.map((m) => m.id));
  return [...older.filter((m) => !known.has(m.id)), ...messages];
}

function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return b;
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
