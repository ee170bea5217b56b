/**
 * The session hub's contract with the rest of the server: the connection as it sees one
 * (`Peer`), its options, and what it tells listeners. Kept apart from the hub so that
 * the hub's parts (registry, broadcast, turn runner) can name them without importing the
 * hub that composes them. session-hub.ts exports them again.
 */
import type { Logger } from '../util/logger.js';
import type { ChatMessage, Feedback, ServerFrame, Usage } from '@aalis/protocol';
import type { TurnAgent } from '../agent/turn-agent.js';
import {
  DEFAULT_MAX_PAGE_BYTES,
  DEFAULT_MAX_TOOL_ARGUMENT_CHARS,
  DEFAULT_MAX_TURN_CHARS,
} from '../agent/limits.js';
import { Budgets } from '../budgets/budgets.js';
import { MemoryPauseSwitch, type PauseSwitch } from '../budgets/pause-switch.js';
import type { HistoryStore } from '../history/store.js';
import type { ImageAttachments } from '../images/attachments.js';
import { Workspaces } from '../tools/workspace.js';
import { KeptAnswers } from './answer-keeper.js';
import type { HandoffSettings } from './handoff-desk.js';
import type { SessionCoordination } from './coordination.js';
import { LocalCoordination } from './local-coordination.js';
import { DEFAULT_ELICITATION_TIMEOUT_MS } from './pending-elicitations.js';

/** How long a drain lets running turns finish: long enough for most answers, short of a deploy's patience. */
export const DEFAULT_DRAIN_MS = 30_000;

/** A connection as the hub sees it. */
export interface Peer {
  readonly id: string;
  /**
   * Who is on the other end, when the server verifies visitors: the sessions a visitor
   * (signed or anonymous) makes are theirs alone (sessions/owner.ts).
   */
  readonly visitor?:
    | { readonly id: string; readonly kind: 'signed' | 'anonymous'; readonly anonymousKey?: string }
    | undefined;
  /**
   * The key its client address is counted under (an IPv6 address's /64), when the
   * transport knows the address: the per-address budgets count every visitor on it together.
   */
  readonly address?: string | undefined;
  /**
   * Whether this peer may start a turn at all, asked before the budgets: a refusal to
   * send back (the connection's bot challenge: `challenge_required`), or undefined.
   */
  clearance?(): Promise<PeerRefusal | undefined>;
  /**
   * Whether it is sent a tool call's argument text while the model writes it (progress'
   * `argumentsDelta`, a resumed card's `arguments`): the AG-UI endpoint, whose clients get
   * every fragment. A WebSocket client is not: its arguments come once, with the call's start.
   */
  readonly argumentText?: boolean;
  /** Sends one frame; `text` is its JSON, made once for every peer of a broadcast. */
  deliver(frame: ServerFrame, text: string): void;
}

/** Why a peer may not start a turn: the `error` frame's code, message and extra fields. */
export interface PeerRefusal {
  code: string;
  message: string;
  more?: Record<string, unknown>;
}

/** The hub writes only these two levels of the server's one logger. */
export type HubLogger = Pick<Logger, 'info' | 'error'>;

export type { ImageAttachments };

/** What a site owner says to a visitor before the first message (configuration `welcome`, `starters`). */
export interface Greeting {
  welcome?: string;
  starters?: string[];
}

export interface SessionHubOptions {
  agent: TurnAgent;
  store: HistoryStore;
  logger: HubLogger;
  workspaces?: Workspaces;
  now?: () => number;
  /** Messages `ready` carries; older ones are paged with `history`. */
  historyPageSize?: number;
  /** The owner's greeting and starter prompts, sent in every `ready` (shown while a conversation is empty). */
  greeting?: Greeting;
  /**
   * Images visitors may attach, when the model reads them: `ready` carries the session's
   * upload ticket (images/upload-ticket.ts), and a `send` names at most `maxCount` of the
   * session's uploads. Without it a `send` with images is refused (`images_unsupported`).
   */
  images?: ImageAttachments;
  /**
   * A person a visitor may ask for (`handoff`, PROTOCOL.md section 8), with where its state
   * is kept; without it `ready` offers none and a `handoff` frame is refused.
   */
  handoff?: HandoffSettings;
  /** Stored messages the model sees as context for a new turn. */
  contextMessages?: number;
  /** Text, reasoning and tool-call arguments one turn may stream before it is stopped. */
  maxTurnChars?: number;
  /** Arguments one tool call may have; a longer call is cut off and never runs. */
  maxToolArgumentChars?: number;
  /**
   * Most bytes of messages one `ready` or `history` frame carries (at least one message
   * always): a tab must be able to join a session however large its answers were.
   */
  maxPageBytes?: number;
  /** How long shutdown waits for running turns to store their final message. */
  shutdownGraceMs?: number;
  /**
   * How long a drain (a rolling deploy's SIGTERM: `shutdown`) lets the running turns
   * finish, new ones refused meanwhile, before it stops those left (default 30 s; 0 stops
   * them at once).
   */
  drainMs?: number;
  /**
   * How long an MCP server's request for the visitor's input waits for an answer before it
   * is cancelled (default 5 minutes, within an MCP call's own 10-minute limit).
   */
  elicitationTimeoutMs?: number;
  /**
   * Answers the history could not store yet: where they are kept, how they are tried
   * again, and how long a turn stays open (`turn_status` `saving`) waiting for its own
   * (answer-keeper.ts). In memory, 2 minutes, by default.
   */
  keeper?: KeptAnswers;
  /**
   * Hears every turn as it ends, with what the `turn ended` log line says (for metrics:
   * observability/metrics.ts). A listener that throws is logged; the turn is not affected.
   */
  onTurnEnded?: (summary: TurnSummary) => void;
  /**
   * Hears every turn this instance starts, once its question is stored (for metrics and
   * tracing). A listener that throws is logged; the turn is not affected.
   */
  onTurnStarted?: (turn: TurnStart) => void;
  /** Hears every verdict a visitor gave an answer (the metrics count them). */
  onFeedback?: (rating: Feedback['rating']) => void;
  /** What visitors and the server may spend (budgets/budgets.ts); none by default. */
  budgets?: Budgets;
  /** The owner's pause switch (budgets/pause-switch.ts): while on, new turns get `paused`. Off, in memory, by default. */
  pause?: PauseSwitch;
  /**
   * How this instance works with others serving the same sessions (coordination.ts): the
   * Redis one of cluster/redis-cluster.ts, or by default LocalCoordination, this hub
   * being the only one.
   */
  cluster?: SessionCoordination;
}

/** A turn that started, as `onTurnStarted` hears it. No session id, as for `TurnSummary`. */
export interface TurnStart {
  /** The question's message id. */
  questionId: string;
  startedAt: number;
}

/** A turn that ended, as `onTurnEnded` hears it. No session id: it is the key to a conversation. */
export interface TurnSummary {
  sessionId: string;
  /** The answer's message id. */
  messageId: string;
  status: ChatMessage['status'];
  ms: number;
  /** Time to the first chunk of the model; null when none came. */
  firstChunkMs: number | null;
  tools: number;
  chars: number;
  /** The provider's token counts, summed over the turn's rounds; absent when it gave none. */
  usage?: Usage;
  /** The codes of the `error` frames the turn ended with (its own, then storage's). */
  errors: string[];
}

/** The options with every default filled in, as the hub's parts read them. */
export type HubSettings = Required<Omit<SessionHubOptions, 'cluster' | 'images' | 'handoff'>> & {
  images: ImageAttachments | undefined;
  handoff: HandoffSettings | undefined;
  coordination: SessionCoordination;
};

export function hubSettings(options: SessionHubOptions): HubSettings {
  const { cluster, images, handoff, ...rest } = options;
  return {
    workspaces: new Workspaces(),
    now: Date.now,
    historyPageSize: 50,
    contextMessages: 100,
    maxTurnChars: DEFAULT_MAX_TURN_CHARS,
    maxToolArgumentChars: DEFAULT_MAX_TOOL_ARGUMENT_CHARS,
    maxPageBytes: DEFAULT_MAX_PAGE_BYTES,
    shutdownGraceMs: 5_000,
    drainMs: DEFAULT_DRAIN_MS,
    elicitationTimeoutMs: DEFAULT_ELICITATION_TIMEOUT_MS,
    greeting: {},
    onTurnEnded: () => {},
    onTurnStarted: () => {},
    onFeedback: () => {},
    budgets: new Budgets(),
    pause: new MemoryPauseSwitch(),
    ...rest,
    keeper: rest.keeper ?? new KeptAnswers({ store: rest.store, logger: rest.logger }),
    images,
    handoff,
    coordination: cluster ?? new LocalCoordination(),
  };
}
