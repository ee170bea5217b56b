/**
 * The server's Prometheus metrics, with prom-client, on a registry of its own (two
 * servers in one process do not collide, and the host's global registry is left alone).
 * They are collected by listening to the events the server announces (transport/chat-events.ts:
 * the core's connections and frames, the hub's turns, the agent's tool calls, the errors
 * logged under an id), and gauges read from the hub when scraped. `GET /metrics` serves
 * them (adapters/fastify-plugin.ts);
 * server/README.md ("Metrics and tracing") lists every name with its labels.
 */
import type { Budgets } from '../budgets/budgets.js';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ToolExecuteEvent } from '../agent/turn-agent.js';
import { ProviderError } from '../providers/core/errors.js';
import type { SessionHub, TurnSummary } from '../sessions/session-hub.js';
import type { ChatEvents } from '../transport/chat-events.js';

export interface ServerMetricsOptions {
  /** The provider's name (`openai`, `demo`...), a label of the token counter. */
  provider: string;
  model: string;
  /**
   * Whether a tool of that name is offered. A name the model made up is counted as
   * `(unknown)`: labels must stay few, and the model's output is not ours to trust.
   */
  isKnownTool?: (name: string) => boolean;
}

/** The label of a tool call whose name no tool has. */
export const UNKNOWN_TOOL = '(unknown)';

const TURN_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300];
const FIRST_CHUNK_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];
const TOOL_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class ServerMetrics {
  readonly registry = new Registry();
  readonly #options: ServerMetricsOptions;
  #hub: SessionHub | undefined;

  readonly #turnsEnded: Counter<'status'>;
  readonly #turnDuration: Histogram<'status'>;
  readonly #firstChunk: Histogram;
  readonly #tokens: Counter<'provider' | 'model' | 'kind'>;
  readonly #toolCalls: Counter<'tool' | 'outcome'>;
  readonly #toolDuration: Histogram<'tool' | 'outcome'>;
  readonly #upstreamErrors: Counter<'code'>;
  readonly #refusals: Counter<'code'>;
  readonly #budgetRefusals: Counter<'limit'>;
  #budgets: Budgets | undefined;
  readonly #connections: Gauge;
  readonly #connectionsRefused: Counter<'reason'>;
  readonly #feedback: Counter;
  readonly #collapsed: Counter;

  constructor(options: ServerMetricsOptions) {
    this.#options = options;
    const registers = [this.registry];
    // Read from the hub when scraped (observeHub).
    const gauge = (name: string, help: string, read: () => number): void => {
      const metric: Gauge = new Gauge({ name, help, registers, collect: () => metric.set(read()) });
    };
    this.#connections = new Gauge({
      name: 'aalis_connections_open',
      help: 'WebSocket connections open now.',
      registers,
    });
    this.#connectionsRefused = new Counter({
      name: 'aalis_connections_refused_total',
      help: 'WebSocket upgrades refused before they opened, by reason (host, origin, draining, ip_connections, ip_connections_per_minute).',
      labelNames: ['reason'],
      registers,
    });
    gauge(
      'aalis_sessions',
      'Sessions held in memory now (with a connection or a running turn).',
      () => this.#hub?.sessionCount ?? 0,
    );
    gauge('aalis_turns_running', 'Turns running now.', () => this.#hub?.runningTurns ?? 0);
    this.#turnsEnded = new Counter({
      name: 'aalis_turns_ended_total',
      help: 'Turns ended, by the status of their answer (complete, aborted, error).',
      labelNames: ['status'],
      registers,
    });
    this.#turnDuration = new Histogram({
      name: 'aalis_turn_duration_seconds',
      help: 'Time from a user message to the end of its answer, by status.',
      labelNames: ['status'],
      buckets: TURN_BUCKETS,
      registers,
    });
    this.#firstChunk = new Histogram({
      name: 'aalis_turn_first_chunk_seconds',
      help: "Time from a user message to the model's first chunk.",
      buckets: FIRST_CHUNK_BUCKETS,
      registers,
    });
    this.#tokens = new Counter({
      name: 'aalis_model_tokens_total',
      help: "Model tokens, from the provider's usage, by provider, model and kind (prompt, completion).",
      labelNames: ['provider', 'model', 'kind'],
      registers,
    });
    this.#toolCalls = new Counter({
      name: 'aalis_tool_calls_total',
      help: 'Tool calls ended, by tool and outcome (ok, error, declined).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.#toolDuration = new Histogram({
      name: 'aalis_tool_call_duration_seconds',
      help: 'How long tool calls ran, by tool and outcome (ok, error); declined calls never ran.',
      labelNames: ['tool', 'outcome'],
      buckets: TOOL_BUCKETS,
      registers,
    });
    this.#upstreamErrors = new Counter({
      name: 'aalis_upstream_errors_total',
      help: 'Model requests that failed, by kind (auth, rate_limited, timeout, upstream, bad_response, too_large).',
      labelNames: ['code'],
      registers,
    });
    this.#refusals = new Counter({
      name: 'aalis_refusals_total',
      help: 'Error frames sent to clients, by code (busy, rate_limited, too_large, storage...).',
      labelNames: ['code'],
      registers,
    });
    this.#budgetRefusals = new Counter({
      name: 'aalis_budget_refusals_total',
      help: 'Sends refused by a budget, by which (visitor_turns, visitor_tokens, address_turns, address_tokens, server_tokens, concurrent_turns).',
      labelNames: ['limit'],
      registers,
    });
    // Today's spend against AALIS_SERVER_TOKENS_PER_DAY, read from the shared count when scraped.
    const spend = async (pick: (spend: { used: number; limit: number }) => number) => {
      const read = await this.#budgets?.serverSpend().catch(() => undefined);
      return read ? pick(read) : 0;
    };
    new Gauge({
      name: 'aalis_server_tokens_today',
      help: 'Model tokens every turn together used today (UTC), as AALIS_SERVER_TOKENS_PER_DAY counts them; 0 while that budget is off.',
      registers,
      async collect() {
        this.set(await spend((read) => read.used));
      },
    });
    new Gauge({
      name: 'aalis_server_tokens_per_day_limit',
      help: 'AALIS_SERVER_TOKENS_PER_DAY: the model tokens every turn together may use per UTC day; 0 is no limit.',
      registers,
      async collect() {
        this.set(await spend((read) => read.limit));
      },
    });
    this.#feedback = new Counter({
      name: 'aalis_feedback_total',
      help: "Visitors' verdicts on answers, by rating (up, down).",
      labelNames: ['rating'],
      registers,
    });
    this.#collapsed = new Counter({
      name: 'aalis_progress_frames_collapsed_total',
      help: 'Progress frames replaced by a newer one while queued for a slow socket.',
      registers,
    });
    // Process metrics, nodejs_eventloop_lag_seconds among them, on this registry only.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The Prometheus text exposition, and its content type. */
  async expose(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * Listens to what the server announces (transport/chat-events.ts): connections opened,
   * refused and closed, error frames, progress frames dropped, turns, tool calls, feedback,
   * and errors logged under an id.
   */
  observe(events: ChatEvents): void {
    events.on('connection:opened', () => this.#connections.inc());
    events.on('connection:closed', () => this.#connections.dec());
    events.on('connection:refused', ({ reason }) => this.#connectionsRefused.inc({ reason }));
    events.on('error:sent', ({ code }) => this.#refusals.inc({ code }));
    events.on('budget:refused', ({ limit }) => {
      if (limit !== undefined) this.#budgetRefusals.inc({ limit });
    });
    events.on('frame:dropped', () => this.#collapsed.inc());
    events.on('turn:ended', (summary) => this.#turnEnded(summary));
    events.on('tool:ran', (event) => this.#toolRan(event));
    events.on('feedback:given', ({ rating }) => this.#feedback.inc({ rating }));
    events.on('error:reported', ({ error }) => {
      // A provider's failure is an upstream error.
      if (error instanceof ProviderError && error.kind !== 'aborted')
        this.#upstreamErrors.inc({ code: error.kind });
    });
  }

  /** The budgets whose server-wide spend the gauges read when scraped. */
  observeBudgets(budgets: Budgets): void {
    this.#budgets = budgets;
  }

  /** Sessions and running turns, read from the hub when scraped. */
  observeHub(hub: SessionHub): void {
    this.#hub = hub;
  }

  #turnEnded(summary: TurnSummary): void {
    const status = summary.status ?? 'complete';
    this.#turnsEnded.inc({ status });
    this.#turnDuration.observe({ status }, summary.ms / 1000);
    if (summary.firstChunkMs !== null) this.#firstChunk.observe(summary.firstChunkMs / 1000);
    if (summary.usage) {
      const { provider, model } = this.#options;
      this.#tokens.inc({ provider, model, kind: 'prompt' }, summary.usage.promptTokens);
      this.#tokens.inc({ provider, model, kind: 'completion' }, summary.usage.completionTokens);
    }
  }

  /** A tool call that ended; a name no tool has is `(unknown)`. */
  #toolRan(event: ToolExecuteEvent): void {
    const { isKnownTool } = this.#options;
    const tool = !isKnownTool || isKnownTool(event.name) ? event.name : UNKNOWN_TOOL;
    const outcome = event.declined ? 'declined' : event.isError ? 'error' : 'ok';
    this.#toolCalls.inc({ tool, outcome });
    if (event.durationMs !== undefined)
      this.#toolDuration.observe({ tool, outcome }, event.durationMs / 1000);
  }
}
