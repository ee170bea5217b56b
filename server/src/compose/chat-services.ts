/**
 * What every way of serving the protocol runs on, whatever carries its sockets: the
 * history store, the agent with its tools, and the session hub between them, and the
 * events they announce, which the metrics hear. The Fastify plugin and the plain `ws`
 * adapter both build them here, from the same options; the transport never does.
 */
import { Agent } from '../agent/agent.js';
import type { TurnAgent } from '../agent/turn-agent.js';
import { NO_BUDGETS, type BudgetLimits } from '../budgets/budget-config.js';
import type { BudgetStore } from '../budgets/budget-store.js';
import { Budgets } from '../budgets/budgets.js';
import { MemoryPauseSwitch, type PauseSwitch } from '../budgets/pause-switch.js';
import { budgetStoreFor } from './budget-store-for-history.js';
import { MemoryHistoryStore } from '../history/memory-store.js';
import type { HistoryStore } from '../history/store.js';
import type { ErrorListener } from '../util/log-error.js';
import type { Logger } from '../util/logger.js';
import { effectivePolicy, type ApprovalRules } from '../agent/approval-policy.js';
import type { ChatProvider } from '../providers/core/types.js';
import { SessionHub, type SessionHubOptions } from '../sessions/session-hub.js';
import { KeptAnswers, type KeptAnswersOptions } from '../sessions/answer-keeper.js';
import type { SessionCoordination } from '../sessions/coordination.js';
import { LocalCoordination } from '../sessions/local-coordination.js';
import { builtinTools } from '../tools/builtin/index.js';
import { ToolRegistry, type ToolDefinition } from '../tools/define-tool.js';
import type { McpServersConfig } from '../tools/mcp/config.js';
import type { McpApps } from '../tools/mcp/mcp-apps.js';
import { McpToolSource } from '../tools/mcp/mcp-tool-source.js';
import { ServerMetrics } from '../observability/metrics.js';
import { createUpstreamAgent, type UpstreamAgentSettings } from '../upstream/registry.js';
import { announcingErrors, createChatEvents, hearErrors, type ChatEvents } from '../transport/chat-events.js';
import { handoffWebhook } from '../admin/handoff-webhook.js';
import { archiveOf } from '../history/archive-of.js';
import type { HandoffRequest, HandoffSettings } from '../sessions/handoff-desk.js';
import { handoffTool } from '../tools/handoff-tool.js';

export interface ChatServicesOptions {
  /** The model that answers, with `model`, through the built-in agent and our tools; or give `agent`. */
  provider?: ChatProvider;
  model?: string;
  /**
   * What answers instead of a model: an agent running elsewhere, reached by its protocol
   * (`{ protocol: 'ag-ui' | 'ai-sdk', url, headers }`: upstream/), or a `TurnAgent` of your
   * own. It runs its own tools and prompt: `tools`, `mcpServers`, `approval`,
   * `systemPrompt` and `maxRounds` are the built-in agent's, and unused with it.
   */
  agent?: UpstreamAgentSettings | TurnAgent;
  /** The tools the model may call; the built-in ones by default. */
  tools?: Array<ToolDefinition<never>>;
  systemPrompt?: string;
  /** Model rounds per turn (default 8). */
  maxRounds?: number;
  /** Silence of the model before visitors are told it is waited for (default 4 s). */
  waitingNoticeMs?: number;
  /** Longest tool result kept, as text (default 100,000 characters); a longer one is cut. */
  maxToolResultChars?: number;
  /**
   * Hears every error a visitor was told only by its id (a provider's failure, a tool's
   * exception, a store that failed), with the error itself: for your own error tracker.
   */
  onError?: ErrorListener;
  /**
   * Tools that wait for a user's approval before they run, by the name the model sees
   * (`*` a wildcard): `always` asks every time, `session` until the user allows the tool
   * for the conversation, `never` does not ask (the default for every tool).
   */
  approval?: ApprovalRules;
  /** How long a user has to decide; no decision by then declines the call (default 10 minutes). */
  approvalTimeoutMs?: number;
  /**
   * MCP servers whose tools the model is offered besides `tools`, by name: stdio servers
   * (`command`, `args`, `env`, `cwd`) or Streamable HTTP ones (`url`, `headers`), each
   * with an optional `tools` allow-list.
   */
  mcpServers?: McpServersConfig;
  /** Where history is kept; in memory by default (lost on restart). */
  store?: HistoryStore;
  /**
   * A person visitors may ask for (PROTOCOL.md section 8): the widget offers "Talk to a
   * person", the model a `handoff` tool, and a person answers from the console. `webhook`
   * is POSTed each request, signed with `webhookSecret`; `consoleUrl` is where its `url`
   * points (default `/admin`). Needs a built-in history store.
   */
  handoff?: { webhook?: string; webhookSecret?: string; operatorName?: string; consoleUrl?: string };
  /**
   * Answers the history could not store yet (it is down, its disk full): where they are
   * kept until it takes them (`keeper`: a spool in the data folder, Redis with several
   * instances; in memory by default), how long a turn waits for its own before it ends for
   * its tabs (`maxWaitMs`, 2 minutes), and how often they are tried again.
   */
  answers?: Omit<KeptAnswersOptions, 'store' | 'logger'>;
  sessions?: Partial<Omit<SessionHubOptions, 'agent' | 'store' | 'logger' | 'budgets' | 'keeper'>>;
  /**
   * What visitors and the whole server may spend (server README, "Budgets"); each 0 or
   * missing is no limit, and without this option there are none. Per-visitor budgets need
   * identity (`auth`): without it there is no visitor to count for.
   */
  budgets?: Partial<BudgetLimits>;
  /** Where the budgets count: beside a SQLite history by default, else in memory (Redis with `cluster`). */
  budgetStore?: BudgetStore;
  /**
   * The owner's pause switch (`/admin/pause`): in the data folder or Redis, so that every
   * instance and the next start see it; in memory by default.
   */
  pauseSwitch?: PauseSwitch;
  /**
   * Live sessions shared with other instances (cluster/redis-cluster.ts); without it this
   * server is the only one. Closed with the server.
   */
  cluster?: SessionCoordination;
}

export interface ChatServices {
  store: HistoryStore;
  /** What answers the turns: the built-in agent over `provider`, or the `agent` option's. */
  agent: TurnAgent;
  hub: SessionHub;
  /** The tools the model is offered: `tools`, and the MCP servers' as they come and go. */
  tools: ToolRegistry;
  /**
   * The MCP servers' connections, when `mcpServers` names any: `ready` settles once each
   * has connected or failed once; `close()` at shutdown stops their processes.
   */
  mcp?: McpToolSource;
  /** The MCP servers' apps: their pages (`GET /mcp-apps`) and the calls they make, when any server runs. */
  apps?: McpApps;
  /** Prometheus metrics on a registry of this server's own (`GET /metrics` serves them). */
  metrics: ServerMetrics;
  /**
   * Where every count that must hold for the whole site and outlive a restart is kept:
   * the budgets, and the per-address counts of sends and uploads. Redis with `cluster`,
   * else beside a SQLite history (the data folder), else memory.
   */
  counters: BudgetStore;
  /** The owner's pause switch the hub reads before each turn. */
  pause: PauseSwitch;
  /** What visitors may spend, when any limit is set (the console forgets an erased visitor's counts). */
  budgets?: Budgets;
  /**
   * What the server announces (transport/chat-events.ts): the hub's turns and feedback,
   * the agent's tool calls, errors logged under an id, and the transport's connections
   * and frames once an adapter runs on these services. The metrics listen here.
   */
  events: ChatEvents;
  /**
   * The answers the history could not store yet, tried again until it does; `close()`
   * stops the retries at shutdown (the keeper keeps the answers for the next start).
   */
  answers: KeptAnswers;
  /**
   * Settles once the answers the last run kept unsaved are stored (or, with the history
   * still down, tried again in the background) and then the turns the last shutdown left
   * running are marked failed (those that run on another instance, or whose answer still
   * waits in the keeper, are left alone); never rejects (a failure is logged).
   */
  recovered: Promise<void>;
}

export function createChatServices(options: ChatServicesOptions, logger: Logger): ChatServices {
  const store = options.store ?? new MemoryHistoryStore();
  const { cluster } = options;
  const answers = new KeptAnswers({ ...options.answers, store, logger });
  const runsElsewhere = cluster ? (sessionId: string) => cluster.isRunning(sessionId) : undefined;
  // The kept answers first: a running mark whose answer the keeper has gets that answer,
  // not `interrupted`. A mark whose answer still waits (the history failed again) stays.
  const recovered = answers
    .storeAll(runsElsewhere)
    .then(() =>
      store.recoverInterruptedTurns(
        async (sessionId) => (await runsElsewhere?.(sessionId)) || (await answers.holds(sessionId)),
      ),
    )
    .then(
      (turns) => {
        if (turns) logger.warn({ turns }, 'turns interrupted by the last shutdown were marked failed');
      },
      (error: unknown) =>
        logger.error({ err: error }, 'marking the turns the last shutdown interrupted failed'),
    );

  const upstream = options.agent;
  const tools = new ToolRegistry(upstream ? [] : (options.tools ?? builtinTools()));
  // The metrics and the host's onError hear what is announced: errors logged under an id,
  // the agent's tool calls, the hub's turns, the transport's connections.
  const events = createChatEvents(logger);
  const metrics = new ServerMetrics({
    provider: backEndName(options),
    model: options.model ?? UPSTREAM_MODEL_LABEL,
    // An upstream agent's tools are its own: their names are labels, as many as a site has.
    isKnownTool: upstream ? firstNames(MAX_UPSTREAM_TOOL_LABELS) : (name) => tools.get(name) !== undefined,
  });
  metrics.observe(events);
  if (options.onError) hearErrors(events, options.onError, logger);
  const log = announcingErrors(logger, events);
  // Not awaited: the server serves at once, and each MCP server's tools join the registry
  // when it connects (a slow or failing one only lacks its own).
  const mcp =
    !upstream && options.mcpServers && Object.keys(options.mcpServers).length > 0
      ? new McpToolSource({ servers: options.mcpServers, registry: tools, logger })
      : undefined;
  const agent = upstream ? upstreamAgent(upstream, options, log) : builtinAgent(options, tools, log);
  // An app's calls follow the rules the model's do: a tool that waits for approval is refused.
  const apps = mcp?.apps(
    (name) => effectivePolicy(options.approval ?? {}, name, tools.get(name)) !== 'never',
  );
  const counters = options.budgetStore ?? budgetStoreFor(store);
  const budgets = budgetsFor(options, counters);
  const pause = options.pauseSwitch ?? new MemoryPauseSwitch();
  const handoff = options.handoff && handoffSettings(options.handoff, store, log);
  if (budgets) metrics.observeBudgets(budgets);
  const hub = new SessionHub({
    agent,
    store,
    logger: log,
    ...options.sessions,
    keeper: answers,
    ...(budgets ? { budgets } : {}),
    ...(handoff ? { handoff } : {}),
    pause,
    // The one place that picks how this instance works with others: alone, or through the cluster.
    cluster: cluster ?? options.sessions?.cluster ?? new LocalCoordination(),
    onTurnStarted: (turn) => {
      events.emit('turn:started', turn);
      options.sessions?.onTurnStarted?.(turn);
    },
    onTurnEnded: (summary) => {
      events.emit('turn:ended', summary);
      options.sessions?.onTurnEnded?.(summary);
    },
    onFeedback: (rating) => {
      events.emit('feedback:given', { rating });
      options.sessions?.onFeedback?.(rating);
    },
  });
  // The model may ask for a person itself (an agent of its own has its own tools).
  if (hub.handoffs && !upstream)
    tools.add(handoffTool((sessionId, reason) => hub.handoffs!.requestForTurn(sessionId, reason)));
  agent.on('tool:execute', (event) => {
    if (event.phase === 'end') events.emit('tool:ran', event);
  });
  metrics.observeHub(hub);
  return {
    store,
    agent,
    hub,
    tools,
    metrics,
    events,
    counters,
    pause,
    answers,
    ...(budgets ? { budgets } : {}),
    recovered,
    ...(mcp ? { mcp } : {}),
    ...(apps ? { apps } : {}),
  };
}

/** The label of the token metric's `model` for an agent of its own: its models are its own. */
const UPSTREAM_MODEL_LABEL = '(agent)';
/** Distinct tool names of an upstream agent counted by name; later ones are `(unknown)`. */
const MAX_UPSTREAM_TOOL_LABELS = 100;

/** What answers, by name: the provider's (`openai`), or the upstream protocol's (`ag-ui`). */
export function backEndName(options: Pick<ChatServicesOptions, 'provider' | 'agent'>): string {
  if (options.agent) return 'runTurn' in options.agent ? options.agent.name : options.agent.protocol;
  if (!options.provider) throw new Error('the chat services need a provider and a model, or an agent');
  return options.provider.name;
}

function builtinAgent(options: ChatServicesOptions, tools: ToolRegistry, logger: Logger): Agent {
  const { provider, model } = options;
  if (!provider || !model) throw new Error('the chat services need a provider and a model, or an agent');
  return new Agent({
    provider,
    model,
    tools,
    ...(options.systemPrompt ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.maxRounds ? { maxRounds: options.maxRounds } : {}),
    ...(options.waitingNoticeMs ? { waitingNoticeMs: options.waitingNoticeMs } : {}),
    ...(options.maxToolResultChars ? { maxToolResultChars: options.maxToolResultChars } : {}),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.approvalTimeoutMs ? { approvalTimeoutMs: options.approvalTimeoutMs } : {}),
    logger,
  });
}

function upstreamAgent(
  agent: UpstreamAgentSettings | TurnAgent,
  options: ChatServicesOptions,
  logger: Logger,
): TurnAgent {
  if ('runTurn' in agent) return agent;
  return createUpstreamAgent(
    {
      ...(options.waitingNoticeMs ? { waitingNoticeMs: options.waitingNoticeMs } : {}),
      ...(options.maxToolResultChars ? { maxToolResultChars: options.maxToolResultChars } : {}),
      ...agent,
    },
    logger,
  );
}

/** Knows the first `limit` names it is asked about, and those only. */
function firstNames(limit: number): (name: string) => boolean {
  const known = new Set<string>();
  return (name) => {
    if (known.has(name)) return true;
    if (known.size >= limit) return false;
    known.add(name);
    return true;
  };
}

/** The budgets the options ask for, counting in `store`; none when every limit is 0. */
function budgetsFor(options: ChatServicesOptions, store: BudgetStore): Budgets | undefined {
  const limits = { ...NO_BUDGETS, ...options.budgets };
  if (!Object.values(limits).some((limit) => limit > 0)) return undefined;
  return new Budgets({ limits, store, ...(options.sessions?.now ? { now: options.sessions.now } : {}) });
}

/** Where a handoff's state is kept (the history's archive), and who is told of a request. */
function handoffSettings(
  options: NonNullable<ChatServicesOptions['handoff']>,
  store: HistoryStore,
  logger: Logger,
): HandoffSettings {
  const archive = archiveOf(store);
  if (!archive) throw new Error('handoff needs a built-in history store (memory, SQLite or PostgreSQL)');
  if (options.webhook && !options.webhookSecret)
    throw new Error('handoff.webhook needs a webhookSecret to sign with');
  const notify =
    options.webhook &&
    handoffWebhook({
      url: options.webhook,
      secret: options.webhookSecret!,
      consoleUrl: options.consoleUrl ?? '/admin',
      logger,
    });
  return {
    store: archive,
    ...(options.operatorName ? { operatorName: options.operatorName } : {}),
    ...(notify ? { onRequested: (request: HandoffRequest) => void notify(request) } : {}),
  };
}
