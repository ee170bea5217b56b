/**
 * The server's configuration, from environment variables and, when one is named, the
 * configuration file (a variable that is set wins over the file for what it names), as
 * one typed object. What each setting is, is said once in settings/; every mistake is
 * one line naming the variable or the file's path, and every one is found, not only the
 * first.
 */
import type { ChallengeConfig } from '../identity/challenge-config.js';
import { loadAdminToken, loadChallenge } from './load-protection.js';
import { loadHandoff, type HandoffConfig } from './load-handoff.js';
import type { Greeting } from '../sessions/session-hub.js';
import { inspectConfigFile, type ApprovalPolicy, type ConfigFile } from './config-file.js';
import { isSet, overriddenByEnvironment, withFileProvider } from './file-environment.js';
import { ConfigError, chooseProviderName } from '../providers/from-env.js';
import type { AuthConfig } from '../identity/auth-config.js';
import type { BudgetLimits } from '../budgets/budget-config.js';
import type { ImageConfig } from '../images/image-config.js';
import { builtinTools } from '../tools/builtin/index.js';
import type { McpServersConfig } from '../tools/mcp/config.js';
import { listenHostEntry } from '../transport/host-guard.js';
import type { IpLimitValues } from '../transport/ip-limits.js';
import { Problems } from './problems.js';
import { providerProblems } from './provider-problems.js';
import { loadAuthConfig, loadLimits } from './load-access.js';
import { agentConflicts, loadAgent, type AgentConfig } from './load-agent.js';
import {
  dataDirFrom,
  limitSetting,
  listEntries,
  loadImageConfig,
  parseOrigins,
  parsePublicHosts,
  parseTrustProxy,
  onOffSetting,
  portFrom,
  serviceUrl,
  wholeSetting,
  type Entry,
} from './load-values.js';
import { LOG_LEVELS, setting, variableOf } from './settings/index.js';

export { ConfigError };
export { DEFAULT_DATA_DIR, IN_MEMORY } from './settings/index.js';
export { ENVIRONMENT } from './environment-help.js';
export type { AgentConfig, ApprovalPolicy, ConfigFile };

export interface ServerConfig {
  /**
   * The agent that answers instead of a model (`AALIS_AGENT_*`, the file's `agent`); none:
   * the provider the environment names answers, through the built-in agent.
   */
  agent?: AgentConfig;
  port: number;
  host: string;
  token: string | undefined;
  allowedOrigins: string[];
  /**
   * Host names served besides loopback ones: AALIS_PUBLIC_HOSTS, plus HOST when it is one
   * specific non-loopback address. `*` serves any.
   */
  publicHosts: string[];
  metricsToken: string | undefined;
  /** The owner's switch (`AALIS_ADMIN_TOKEN`): `/admin/*` answer 404 without it. */
  adminToken?: string;
  /** Conversations idle longer than this many days are erased (`AALIS_RETENTION_DAYS`); 0 keeps them. */
  retentionDays: number;
  /** USD per million tokens by model (the file's `prices`): the console's cost per day. */
  prices?: Record<string, { input: number; output: number }>;
  /** The bot challenge for anonymous visitors (`AALIS_CHALLENGE*`, the file's `challenge`). */
  challenge?: ChallengeConfig;
  /** A person visitors may ask for (`AALIS_HANDOFF*`, the file's `handoff`). */
  handoff?: HandoffConfig;
  /** Signed visitor identity (`AALIS_AUTH*`, the file's `auth`); undefined without a secret or JWKS. */
  auth: AuthConfig | undefined;
  /** What visitors and the server may spend (`AALIS_VISITOR_*`, `AALIS_ANON_*`, ..., the file's `budgets`); 0 is no limit. */
  budgets: BudgetLimits;
  /**
   * Limits per client IP (`AALIS_IP_*`, the file's `ipLimits`; 0 is no limit) and the
   * proxies whose `X-Forwarded-For` names the client (`AALIS_TRUST_PROXY`).
   */
  ipLimits: IpLimitValues & { trustProxy: string[]; ipv6Prefix: number };
  /** Where the SQLite history lives; undefined keeps it in memory (`AALIS_DATA_DIR=:memory:`). */
  dataDir: string | undefined;
  /** Shared live state for several instances (`AALIS_REDIS_URL`, the file's `redisUrl`): redis:// or rediss://. */
  redisUrl?: string;
  /** History in PostgreSQL instead of SQLite (`AALIS_DATABASE_URL`, the file's `databaseUrl`): postgres://. */
  databaseUrl?: string;
  /** With Redis: how long a turn's owner that stopped renewing is waited for before another instance ends its turn. */
  turnLeaseMs: number;
  /** On SIGTERM, how long running turns may finish before they are stopped (`AALIS_DRAIN_MS`; 0: at once). */
  drainMs: number;
  logLevel: string;
  /** Whether GET / serves a page to chat on (`AALIS_PAGE`, the file's `page`). */
  page: boolean;
  /** Arguments one tool call may have before it is cut off and never run. */
  maxToolArgumentChars: number;
  /** The configuration file's system prompt (its text, read from its file when it names one). */
  systemPrompt?: string;
  /** The configuration file's greeting: `welcome` and `starters`, sent to every tab in `ready`. */
  greeting: Greeting;
  /** Images visitors may attach (`AALIS_VISION`, `AALIS_IMAGE_*`, the file's `images`). */
  images: ImageConfig;
  /**
   * The built-in tools offered, by name: the file's `builtinTools`, else all of them with
   * the demo model and none with a real provider (their data is made up).
   */
  builtinTools: string[];
  /** The MCP servers whose tools are offered, by name; a stdio server's `cwd` is absolute. */
  mcpServers: McpServersConfig;
  /** Which tools need the visitor's approval, by the name the model sees (`*` matches any characters). */
  approval: Record<string, ApprovalPolicy>;
  /** How long an MCP server's request for the visitor's input waits for an answer before it is cancelled. */
  elicitationTimeoutMs: number;
}

type Env = Record<string, string | undefined>;

/**
 * The configuration from `env` and, when given, the configuration file: a variable that is
 * set wins over the file for what it names. The provider is chosen from
 * `withFileProvider(env, file)` (as `loadServerConfig` returns it): pass that environment
 * to `createAalisServer`. Every mistake found is a line of the one ConfigError thrown.
 */
export function loadConfig(env: Env, file?: ConfigFile): ServerConfig {
  const settings = file?.settings ?? {};
  const problems = new Problems();
  // With the provider's own message.
  const provider = problems.catch(() => chooseProviderName(withFileProvider(env, file)));
  /** The list the variable names, else the file's, each entry with where it came from. */
  const listFrom = (key: string, fileList: string[] | undefined): Entry[] => {
    const variable = variableOf(key);
    return isSet(env, variable) || !fileList
      ? listEntries(env[variable] ?? '').map((entry) => ({ entry, label: variable }))
      : fileList.map((entry, index) => ({ entry: entry.trim(), label: `${file!.path}: ${key}[${index}]` }));
  };

  const agent = loadAgent(env, settings.agent, problems);
  if (agent) agentConflicts(env, settings, problems);
  const port = problems.catch(() => portFrom(env, settings.port)) ?? 0;
  const logLevel = env.LOG_LEVEL?.trim() || settings.logLevel || (setting('logLevel').default as string);
  if (!LOG_LEVELS.includes(logLevel))
    problems.add(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; it is "${logLevel}"`);
  const host = env.HOST?.trim() || settings.host?.trim() || (setting('host').default as string);
  const listenHost = listenHostEntry(host);
  const publicHosts = parsePublicHosts(listFrom('publicHosts', settings.publicHosts), problems);
  const allowedOrigins = parseOrigins(listFrom('allowedOrigins', settings.allowedOrigins), problems);
  const maxToolArgumentChars =
    problems.catch(() => wholeSetting(env, 'maxToolArgumentChars', settings.maxToolArgumentChars)) ?? 0;
  const token = env.AALIS_TOKEN || settings.token || undefined;
  const auth = problems.catch(() => loadAuthConfig(env, settings.auth, file ? `${file.path}: auth` : 'auth'));
  if (auth && token)
    problems.add(
      'AALIS_TOKEN cannot be used with visitor tokens (AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL): hello carries one token; unset it',
    );
  const limits = loadLimits(env, settings.budgets, settings.ipLimits, problems);
  const trustProxy = parseTrustProxy(
    listFrom('ipLimits.trustProxy', settings.ipLimits?.trustProxy),
    problems,
  );
  const ipv6Prefix =
    problems.catch(() => wholeSetting(env, 'ipLimits.ipv6Prefix', settings.ipLimits?.ipv6Prefix)) ?? 64;
  const adminToken = loadAdminToken(env, settings.adminToken, problems);
  const challenge = loadChallenge(env, settings.challenge, problems);
  const handoff = loadHandoff(env, settings.handoff, adminToken, problems);
  const turnLeaseMs = problems.catch(() => wholeSetting(env, 'turnLeaseMs', settings.turnLeaseMs)) ?? 0;
  const drainMs = problems.catch(() => drainSetting(env, settings.drainMs)) ?? 0;
  const redisUrl = problems.catch(() => serviceUrl(env, 'redisUrl', settings.redisUrl));
  // Each instance would otherwise make its own signing key in its own data folder, and a
  // visitor's key from one would be a stranger's on the next.
  if (redisUrl && !auth?.secret && !(auth?.jwksUrl && auth.mode === 'required'))
    problems.add(
      'AALIS_REDIS_URL: the instances of a cluster must share one signing key: set AALIS_AUTH_SECRET (openssl rand -base64 32), the same on every instance',
    );
  const databaseUrl = problems.catch(() => serviceUrl(env, 'databaseUrl', settings.databaseUrl));
  const images = loadImageConfig(env, settings.images, problems);
  const page = problems.catch(() => onOffSetting(env, 'page')) ?? settings.page ?? true;
  const retentionDays = problems.catch(() => limitSetting(env, 'retentionDays', settings.retentionDays)) ?? 0;
  const elicitationTimeoutMs =
    problems.catch(() => wholeSetting(env, 'elicitationTimeoutMs', settings.elicitationTimeoutMs)) ?? 0;
  problems.throwFound();

  return {
    ...(agent ? { agent } : {}),
    port,
    host,
    token,
    allowedOrigins,
    publicHosts: listenHost && !publicHosts.includes(listenHost) ? [...publicHosts, listenHost] : publicHosts,
    metricsToken: env.AALIS_METRICS_TOKEN || settings.metricsToken || undefined,
    auth,
    budgets: limits.budgets,
    ipLimits: { ...limits.ipLimits, trustProxy, ipv6Prefix },
    ...(adminToken ? { adminToken } : {}),
    retentionDays,
    ...(settings.prices ? { prices: settings.prices } : {}),
    ...(challenge ? { challenge } : {}),
    ...(handoff ? { handoff } : {}),
    dataDir:
      isSet(env, 'AALIS_DATA_DIR') || settings.dataDir === undefined
        ? dataDirFrom(env.AALIS_DATA_DIR)
        : dataDirFrom(settings.dataDir, file!.dir),
    turnLeaseMs,
    drainMs,
    ...(redisUrl ? { redisUrl } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    logLevel,
    page,
    maxToolArgumentChars,
    ...(file?.systemPrompt ? { systemPrompt: file.systemPrompt } : {}),
    greeting: {
      ...(settings.welcome ? { welcome: settings.welcome } : {}),
      ...(settings.starters?.length ? { starters: settings.starters } : {}),
    },
    images,
    builtinTools:
      settings.builtinTools ?? (provider === 'demo' && !agent ? builtinTools().map((tool) => tool.name) : []),
    mcpServers: settings.mcpServers ?? {},
    approval: settings.approval ?? {},
    elicitationTimeoutMs,
  };
}

export interface LoadedConfig {
  config: ServerConfig;
  /** The environment with the file's provider settings under its own: for `createAalisServer`. */
  env: Env;
  /** The configuration file, when one was named. */
  file: ConfigFile | undefined;
  /** The variables set in the environment that win over a setting the file makes. */
  overridden: string[];
}

/**
 * The whole configuration as `aalis-server` reads it: the file named by `configPath`
 * (`--config`), else by `AALIS_CONFIG`, if any, and the environment over it. Every mistake
 * is found, in the file, then in the variables, then in the provider's settings, and all
 * are thrown as one ConfigError, a line each: a part of the file with a mistake is left
 * out, and the environment is checked over the rest.
 */
export function loadServerConfig({ configPath, env }: { configPath?: string; env: Env }): LoadedConfig {
  const path = configPath ?? (env.AALIS_CONFIG?.trim() || undefined);
  const problems = new Problems();
  const inspected = path === undefined ? undefined : inspectConfigFile(path, env);
  problems.add(...(inspected?.problems ?? []).map((line) => `${path}: ${line}`));
  const file = inspected?.file;
  const config = problems.catch(() => loadConfig(env, file));
  const merged = withFileProvider(env, file);
  // Which provider is meant is unknown while the file's provider block is wrong; with an
  // agent none is built.
  const agentMeant = Boolean(config?.agent || env.AALIS_AGENT_PROTOCOL?.trim() || file?.settings.agent);
  if (!agentMeant && (!inspected || (file && !inspected.leftOut.has('provider'))))
    problems.add(...providerProblems(merged));
  problems.throwFound();
  return {
    config: config!,
    env: merged,
    file,
    overridden: file ? overriddenByEnvironment(env, file) : [],
  };
}

/**
 * The drain's length: its variable, else the file's, else the default. A whole number of
 * ms from 0, where 0 is no drain (wholeSetting starts at 1, limitSetting calls 0 "no limit").
 */
function drainSetting(env: Env, fromFile: number | undefined): number {
  const { variables, schema } = setting('drainMs');
  const name = variables[0]!.name;
  const max = schema.maximum as number;
  const text = env[name]?.trim();
  if (!text) return fromFile ?? (setting('drainMs').default as number);
  if (!/^\d+$/.test(text) || Number(text) > max)
    throw new ConfigError(
      `${name} must be a whole number of ms from 0 (stop turns at once) to ${max}; it is "${text}"`,
    );
  return Number(text);
}
