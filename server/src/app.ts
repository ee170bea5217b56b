/**
 * A complete Aalis server from a configuration: Fastify with pino logging, the plugin
 * with the configuration's system prompt, tools, approvals and MCP servers, the provider
 * the environment names (with the configuration file's provider settings under it, as
 * `loadServerConfig` returns it) or, when one is configured, the agent that answers
 * instead, and SQLite history when a data directory is set.
 * `aalis-server` and the demo run this; a host with its own app registers the plugin.
 */
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { ConfigError, type ServerConfig } from './config/server-config.js';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BudgetStore } from './budgets/budget-store.js';
import { RedisBudgetStore } from './budgets/redis-budget-store.js';
import { SqliteBudgetStore } from './budgets/sqlite-budget-store.js';
import { openDatabase } from './history/sqlite-database.js';
import { FilePauseSwitch, RedisPauseSwitch } from './budgets/pause-switch.js';
import { connectRedis } from './cluster/redis-connections.js';
import { RedisSessionCluster } from './cluster/redis-cluster.js';
import { RedisAnswerKeeper } from './cluster/redis-answer-keeper.js';
import { AnswerSpool } from './history/answer-spool.js';
import { SharedIpRates } from './cluster/shared-ip-rates.js';
import { MemoryHistoryStore } from './history/memory-store.js';
import { PostgresHistoryStore } from './history/postgres-store.js';
import { SqliteHistoryStore } from './history/sqlite-store.js';
import type { HistoryStore } from './history/store.js';
import { providerFromEnv, type ProviderChoice } from './providers/from-env.js';
import { upstreamPatience } from './providers/core/settings.js';
import { dataDirProblem } from './config/startup-problems.js';
import { builtinTools } from './tools/builtin/index.js';
import { hostGuardOnce, sharedHostCheck } from './transport/host-guard-once.js';
import { aalisChat, type AalisChatOptions } from './adapters/fastify-plugin.js';
import { DemoProvider } from './providers/demo/index.js';
import { registerChatPage } from './transport/chat-page.js';
import { challengeOrigins } from './identity/challenge-config.js';
import { PROBE_PATHS } from './transport/http-routes.js';
import { READ_METHODS, setBaseSecurityHeaders } from './transport/security-headers.js';

export interface AalisServer {
  app: FastifyInstance;
  /** The model that answers; none when an agent does (`agent`). */
  provider?: ProviderChoice;
  /** The agent that answers instead of a model (`AALIS_AGENT_*`), when one is configured. */
  agent?: { protocol: string; url: string };
  store: HistoryStore;
  /**
   * A rolling deploy's SIGTERM, before `close()`: readiness fails and new sockets and
   * turns are refused at once, running turns finish for up to `drainMs` (the rest are
   * then stopped), and with Redis every tab is sent at once to another instance (1012).
   * Resolves once no turn runs here; with `drainMs` 0, at once (`close()` stops them).
   */
  drain(): Promise<void>;
  /** Ends a drain at once: the turns still running are stopped now (a second SIGTERM). */
  endDrain(): void;
  /** Graceful: running turns are told and stored, sockets closed with 1001. */
  close(): Promise<void>;
  /** Whether /aalis-chat.js has a file to serve (the widget's build). */
  widgetBuilt(): Promise<boolean>;
}

export async function createAalisServer(
  config: ServerConfig,
  env: Record<string, string | undefined>,
  extra: Partial<AalisChatOptions> = {},
): Promise<AalisServer> {
  // An agent answers instead of a model: then no provider is made at all.
  const { agent } = config;
  const provider = agent ? undefined : providerFromEnv(env);
  // One line per request, when it is answered (Fastify's own logging writes two).
  const app = Fastify({
    logger: { level: config.logLevel },
    forceCloseConnections: false,
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });
  // The plugin guards its own routes; a whole server guards every route it has, the
  // routes added after this (the demo page) and its 404s included. Both guards share one
  // check, so that a plugin route, which meets both, is checked once.
  const publicHosts = extra.publicHosts ?? config.publicHosts;
  const refuseUnknownHost = hostGuardOnce(sharedHostCheck(publicHosts));
  app.addHook('onRequest', async (request, reply) => {
    setBaseSecurityHeaders(reply);
    if (request.routeOptions.url && PROBE_PATHS.includes(request.routeOptions.url)) return;
    await refuseUnknownHost(request, reply);
  });
  // Unreachable at start is a configuration mistake: one line, exit 2 (the CLI).
  const store = await openHistory(config);
  const redis = config.redisUrl
    ? await connectRedis(config.redisUrl, app.log).catch((error: unknown) => {
        void store.close();
        throw new ConfigError((error as Error).message);
      })
    : undefined;
  const cluster = redis
    ? new RedisSessionCluster(redis, app.log, { leaseMs: config.turnLeaseMs })
    : undefined;
  // Every path answers OPTIONS (the demo page's included), as the plugin's routes do.
  app.options('*', async (_request, reply) => reply.header('allow', READ_METHODS).code(204).send());
  await app.register(aalisChat, {
    ...(agent
      ? { agent: { ...agent, ...upstreamPatience(env) } }
      : { provider: provider!.provider, model: provider!.model }),
    store,
    allowedOrigins: config.allowedOrigins,
    publicHosts,
    ...(config.token ? { token: config.token } : {}),
    ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
    ...(config.adminToken ? { adminToken: config.adminToken } : {}),
    ...(config.retentionDays ? { retentionDays: config.retentionDays } : {}),
    ...(config.prices ? { prices: config.prices } : {}),
    ...(config.handoff ? { handoff: handoffOptions(config) } : {}),
    ...(config.challenge ? { challenge: config.challenge } : {}),
    // The owner's pause holds for every instance (Redis) and across restarts (the data folder).
    ...(redis
      ? { pauseSwitch: new RedisPauseSwitch(redis.command) }
      : config.dataDir
        ? { pauseSwitch: new FilePauseSwitch(config.dataDir) }
        : {}),
    // An answer the history cannot store yet waits where the next start (or another
    // instance) finds it: Redis, else a spool in the data folder, else memory.
    ...(redis
      ? { answers: { keeper: new RedisAnswerKeeper(redis.command, app.log) } }
      : config.dataDir
        ? { answers: { keeper: new AnswerSpool({ dataDir: config.dataDir, logger: app.log }) } }
        : {}),
    // The data directory keeps the anonymous visitors' signing key across restarts when
    // no secret is configured (a JWKS only).
    ...(cluster && redis
      ? {
          cluster,
          budgetStore: new RedisBudgetStore(redis.command),
          sharedIpRates: new SharedIpRates(redis.command),
        }
      : countersBesideHistory(config, store)),
    // Visitors always have an identity: without a secret or a JWKS every visitor is
    // anonymous, its key signed with the server's own key, which the data directory keeps
    // across restarts (identity/anonymous-key.ts). So a conversation is bound to its
    // visitor, the visitor's list and budgets work, with nothing configured.
    auth: {
      ...(config.auth ?? { mode: 'optional' }),
      ...(config.dataDir ? { dataDir: config.dataDir } : {}),
    },
    budgets: config.budgets,
    // The CLI's server always has per-IP limits (the defaults unless configured).
    ipLimits: config.ipLimits,
    ...(config.systemPrompt ? { systemPrompt: config.systemPrompt } : {}),
    tools: selectedBuiltinTools(config.builtinTools),
    approval: config.approval,
    mcpServers: config.mcpServers,
    // Upload tickets are signed like anonymous visitor keys: with the secret, else the
    // data directory's key, so that they outlive a restart.
    images: {
      ...config.images,
      keys: { secret: config.auth?.secret, dataDir: config.auth?.dataDir ?? config.dataDir },
    },
    ...extra,
    sessions: {
      maxToolArgumentChars: config.maxToolArgumentChars,
      drainMs: config.drainMs,
      elicitationTimeoutMs: config.elicitationTimeoutMs,
      greeting: greetingOf(config, provider),
      ...extra.sessions,
    },
  });
  if (config.page) registerChatPage(app, config.challenge ? challengeOrigins(config.challenge) : []);
  app.addHook('onClose', async () => {
    await provider?.close();
    await cluster?.close();
    await store.close();
  });
  return {
    app,
    ...(provider ? { provider } : {}),
    ...(agent ? { agent: { protocol: agent.protocol, url: agent.url } } : {}),
    store,
    drain: () => (config.drainMs > 0 ? app.aalis.chat.drain() : Promise.resolve()),
    endDrain: () => app.aalis.chat.endDrain(),
    close: () => app.close(),
    widgetBuilt: () => app.aalis.widget.exists(),
  };
}

/**
 * One instance with its history in PostgreSQL keeps its counts (budgets, per-address
 * sends and uploads, challenge passes) in the data folder, so that a restart forgives
 * nothing; a SQLite history holds them in its own file (compose/budget-store-for-history.ts).
 */
function countersBesideHistory(config: ServerConfig, store: HistoryStore): { budgetStore?: BudgetStore } {
  if (store instanceof SqliteHistoryStore || !config.dataDir) return {};
  mkdirSync(config.dataDir, { recursive: true });
  const db = openDatabase(join(config.dataDir, 'counters.db'));
  return { budgetStore: new SqliteBudgetStore(db) };
}

/** The configuration's welcome and starters; with none, the demo model's own (it needs explaining). */
function greetingOf(config: ServerConfig, provider: ProviderChoice | undefined) {
  const { welcome, starters } = config.greeting;
  // An agent, or a real model, says nothing it was not configured to.
  if (welcome || starters?.length || provider?.name !== 'demo') return config.greeting;
  return DemoProvider.greeting;
}

/** The built-in tools named, in the order named (the names were checked against these). */
function selectedBuiltinTools(names: readonly string[]) {
  const tools = builtinTools();
  return names.flatMap((name) => tools.filter((tool) => tool.name === name));
}

/**
 * The history: PostgreSQL when a database URL is set (its migrations applied), else
 * SQLite in the data directory, else memory. One that cannot be opened is a
 * configuration mistake, said in one line.
 */
async function openHistory(config: ServerConfig): Promise<HistoryStore> {
  if (config.databaseUrl) {
    try {
      return await PostgresHistoryStore.open(config.databaseUrl);
    } catch (error) {
      throw new ConfigError((error as Error).message);
    }
  }
  if (!config.dataDir) return new MemoryHistoryStore();
  try {
    return new SqliteHistoryStore(config.dataDir);
  } catch (error) {
    throw new ConfigError(dataDirProblem(error, config.dataDir));
  }
}

/**
 * The handoff's options: the webhook signed with its own secret, else the admin token;
 * the console's address from the first public host (behind TLS), else this server's own.
 */
function handoffOptions(config: ServerConfig) {
  const handoff = config.handoff!;
  const named = config.publicHosts.find((host) => host !== '*' && !host.includes('*'));
  const listen = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const consoleUrl =
    handoff.consoleUrl ??
    (named
      ? `https://${named}/admin`
      : `http://${listen.includes(':') ? `[${listen}]` : listen}:${config.port}/admin`);
  const webhookSecret = handoff.webhookSecret ?? config.adminToken;
  return { ...handoff, consoleUrl, ...(webhookSecret ? { webhookSecret } : {}) };
}
