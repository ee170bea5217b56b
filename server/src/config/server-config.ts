/**
 * The server's configuration, from environment variables and, when one is named, the
 * configuration file (a variable that is set wins over the file for what it names).
 * Every mistake is one line naming the variable or the file's path; `aalis-server --help`
 * prints the variables' table.
 */
import type { Greeting } from '../sessions/session-hub.js';
import { resolve } from 'node:path';
import { readConfigFile, type ApprovalPolicy, type ConfigFile } from './config-file.js';
import { isSet, overriddenByEnvironment, withFileProvider } from './file-environment.js';
import {
  ConfigError,
  DEFAULT_MODELS,
  PROVIDER_NAMES,
  UPSTREAM_TIMEOUT_VARIABLES,
  chooseProviderName,
} from '../providers/from-env.js';
import { limitsFrom, wholeNumber } from '../util/setting-values.js';
import { MIN_SECRET_BYTES, loadAuthConfig, type AuthConfig } from '../identity/auth-config.js';
import { BUDGET_VARIABLES, loadBudgetConfig, type BudgetLimits } from '../budgets/budget-config.js';
import { DEFAULT_MAX_TOOL_ARGUMENT_CHARS } from '../agent/limits.js';
import {
  IMAGE_VARIABLES,
  VISION_VARIABLE,
  loadImageConfig,
  type ImageConfig,
} from '../images/image-config.js';
import { DEFAULT_IMAGE_SETTINGS } from '../images/image-settings.js';
import { builtinTools } from '../tools/builtin/index.js';
import type { McpServersConfig } from '../tools/mcp/config.js';
import { listenHostEntry, parseHost } from '../transport/host-guard.js';
import { parseOriginEntry } from '../transport/origin-pattern.js';
import { parseTrustProxyEntry } from '../transport/client-ip.js';
import {
  DEFAULT_IP_LIMITS,
  IP_LIMIT_VARIABLES,
  TRUST_PROXY_VARIABLE,
  type IpLimitSettings,
  type IpLimitValues,
} from '../transport/ip-limits.js';

export { ConfigError };
export type { ApprovalPolicy, ConfigFile };

/** The history's directory when none is named: durable by default, next to where the server runs. */
export const DEFAULT_DATA_DIR = 'aalis-data';
/** The value of AALIS_DATA_DIR that keeps history in memory (SQLite's own name for it). */
export const IN_MEMORY = ':memory:';

/** The history's directory: relative to `base` (where the server runs, or the file's directory). */
function dataDirFrom(value: string | undefined, base = '.'): string | undefined {
  const named = value?.trim();
  if (named === IN_MEMORY) return undefined;
  return resolve(base, named || DEFAULT_DATA_DIR);
}

export interface ServerConfig {
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
  /** Signed visitor identity (`AALIS_AUTH*`, the file's `auth`); undefined without a secret or JWKS. */
  auth: AuthConfig | undefined;
  /** What visitors and the server may spend (`AALIS_VISITOR_*`, `AALIS_ANON_*`, ..., the file's `budgets`); 0 is no limit. */
  budgets: BudgetLimits;
  /**
   * Limits per client IP (`AALIS_IP_*`, the file's `ipLimits`; 0 is no limit) and the
   * proxies whose `X-Forwarded-For` names the client (`AALIS_TRUST_PROXY`).
   */
  ipLimits: IpLimitValues & { trustProxy: string[] };
  /** Where the SQLite history lives; undefined keeps it in memory (`AALIS_DATA_DIR=:memory:`). */
  dataDir: string | undefined;
  /** Shared live state for several instances (`AALIS_REDIS_URL`, the file's `redisUrl`): redis:// or rediss://. */
  redisUrl?: string;
  /** History in PostgreSQL instead of SQLite (`AALIS_DATABASE_URL`, the file's `databaseUrl`): postgres://. */
  databaseUrl?: string;
  /** With Redis: how long a turn's owner that stopped renewing is waited for before another instance ends its turn. */
  turnLeaseMs: number;
  logLevel: string;
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
}

type Env = Record<string, string | undefined>;

/** Name, default and meaning of every variable, for --help and the README. */
export const ENVIRONMENT: Array<[name: string, fallback: string, meaning: string]> = [
  ['PORT', '8787', 'port to listen on'],
  ['HOST', '127.0.0.1', 'address to listen on (0.0.0.0 for every interface)'],
  ['AALIS_PROVIDER', 'demo, or the first with a key set', PROVIDER_NAMES.join(' | ')],
  [
    'AALIS_MODEL',
    Object.entries(DEFAULT_MODELS)
      .map(([p, m]) => `${p}: ${m}`)
      .join(', '),
    'model name',
  ],
  ['OPENAI_API_KEY', '', 'OpenAI key (selects openai)'],
  [
    'OPENAI_BASE_URL',
    'https://api.openai.com/v1',
    'any Chat Completions server (openai) or Responses API server (openai-responses)',
  ],
  ['ANTHROPIC_API_KEY', '', 'Anthropic key (selects anthropic: the Messages API)'],
  ['ANTHROPIC_BASE_URL', 'https://api.anthropic.com', 'Anthropic API address'],
  [
    'AALIS_MAX_OUTPUT_TOKENS',
    'anthropic: 8192; openai-responses: the model limit',
    'longest answer of one model round, in tokens',
  ],
  [
    'AALIS_REASONING',
    'anthropic: off; openai-responses: reasoning models only',
    'anthropic: off | adaptive | thinking budget in tokens; openai-responses: off | default | none | minimal | low | medium | high | xhigh',
  ],
  ['DEEPSEEK_API_KEY', '', 'DeepSeek key (selects deepseek)'],
  ['DEEPSEEK_BASE_URL', 'https://api.deepseek.com', 'DeepSeek API address'],
  ['OLLAMA_HOST', '', 'Ollama address, e.g. http://127.0.0.1:11434 (selects ollama)'],
  [
    'AALIS_TOKEN',
    '',
    'when set, clients must send it in hello (not with AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL)',
  ],
  [
    'AALIS_AUTH',
    'optional once a secret or JWKS is set',
    'required: hello needs a valid visitor token (else 4401) | optional: visitors without one are anonymous',
  ],
  [
    'AALIS_AUTH_SECRET',
    '',
    `HS256 secret the site's backend signs visitor tokens with (at least ${MIN_SECRET_BYTES} bytes)`,
  ],
  ['AALIS_AUTH_JWKS_URL', '', 'JWKS of the keys visitor tokens are signed with (RS256, ES256, EdDSA); https'],
  ['AALIS_AUTH_AUDIENCE', '', "when set, a visitor token's aud must name it"],
  ['AALIS_AUTH_ISSUER', '', "when set, a visitor token's iss must be it"],
  [
    'AALIS_ALLOWED_ORIGINS',
    '',
    "comma-separated origins allowed besides the server's own; https://*.example.com for its subdomains; * for any",
  ],
  [
    'AALIS_PUBLIC_HOSTS',
    '',
    'comma-separated names the server is reached by (chat.example.com); other Hosts get 403; * for any',
  ],
  [
    'AALIS_METRICS_TOKEN',
    '',
    'bearer token for GET /healthz/details from other machines (loopback needs none)',
  ],
  [
    'AALIS_DATA_DIR',
    `./${DEFAULT_DATA_DIR}`,
    'directory for the SQLite history (created when missing); :memory: keeps it in memory, lost on restart',
  ],
  [
    'AALIS_REDIS_URL',
    '',
    'redis://host:6379: live sessions shared by every instance behind a load balancer (deployment guide)',
  ],
  [
    'AALIS_DATABASE_URL',
    '',
    'postgres://user:password@host/db: history in PostgreSQL (migrations applied at start) instead of SQLite',
  ],
  [
    'AALIS_TURN_LEASE_MS',
    '10000',
    "with Redis: how long a dead instance's running turn is waited for before another ends it (interrupted)",
  ],
  ...UPSTREAM_TIMEOUT_VARIABLES.map(([name, fallback, meaning]): [string, string, string] => [
    name,
    String(fallback),
    meaning,
  ]),
  [
    'AALIS_MAX_TOOL_ARGUMENT_CHARS',
    String(DEFAULT_MAX_TOOL_ARGUMENT_CHARS),
    'longest arguments of one tool call; a longer call is cut off, never run, and the turn ends too_large',
  ],
  ...BUDGET_VARIABLES.map(([, name, fallback, meaning]): [string, string, string] => [
    name,
    String(fallback),
    meaning,
  ]),
  ...IP_LIMIT_VARIABLES.map(([key, name, meaning]): [string, string, string] => [
    name,
    String(DEFAULT_IP_LIMITS[key]),
    meaning,
  ]),
  [
    TRUST_PROXY_VARIABLE,
    '',
    'comma-separated proxy IPs (loopback for 127.0.0.0/8 and ::1) whose X-Forwarded-For names the client IP',
  ],
  [
    VISION_VARIABLE,
    'on for openai, openai-responses, anthropic, demo; off for deepseek, ollama',
    'on: the model reads images, and visitors may attach them | off: no attachments',
  ],
  ...IMAGE_VARIABLES.map(([key, name, , meaning]): [string, string, string] => [
    name,
    String(DEFAULT_IMAGE_SETTINGS[key]),
    meaning,
  ]),
  ['LOG_LEVEL', 'info', 'fatal | error | warn | info | debug | trace | silent'],
];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The configuration from `env` and, when given, the configuration file: a variable that is
 * set wins over the file for what it names. The provider is chosen from
 * `withFileProvider(env, file)` (as `loadServerConfig` returns it): pass that environment
 * to `createAalisServer`.
 */
export function loadConfig(env: Env, file?: ConfigFile): ServerConfig {
  const settings = file?.settings ?? {};
  // Fails early, with the provider's own message.
  const provider = chooseProviderName(withFileProvider(env, file));
  /** The list the variable names, else the file's, each entry with where it came from. */
  const listFrom = (variable: string, fileList: string[] | undefined, key: string): Entry[] =>
    isSet(env, variable) || !fileList
      ? listEntries(env[variable] ?? '').map((entry) => ({ entry, label: variable }))
      : fileList.map((entry, index) => ({ entry: entry.trim(), label: `${file!.path}: ${key}[${index}]` }));

  let port = settings.port ?? 8787;
  if (isSet(env, 'PORT')) {
    const portText = env.PORT!.trim();
    port = Number(portText);
    if (!/^\d+$/.test(portText) || port > 65_535)
      throw new ConfigError(`PORT must be a number from 0 to 65535; it is "${portText}"`);
  }
  const logLevel = env.LOG_LEVEL?.trim() || settings.logLevel || 'info';
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; it is "${logLevel}"`);
  const host = env.HOST?.trim() || settings.host?.trim() || '127.0.0.1';
  const listenHost = listenHostEntry(host);
  const publicHosts = parsePublicHosts(listFrom('AALIS_PUBLIC_HOSTS', settings.publicHosts, 'publicHosts'));
  const maxToolArgumentChars = wholeNumber(
    env,
    'AALIS_MAX_TOOL_ARGUMENT_CHARS',
    settings.maxToolArgumentChars ?? DEFAULT_MAX_TOOL_ARGUMENT_CHARS,
    { max: 100_000_000, unit: 'characters' },
  );
  const allTools = builtinTools().map((tool) => tool.name);
  const token = env.AALIS_TOKEN || settings.token || undefined;
  const auth = loadAuthConfig(env, settings.auth, file ? `${file.path}: auth` : 'auth');
  if (auth && token)
    throw new ConfigError(
      'AALIS_TOKEN cannot be used with visitor tokens (AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL): hello carries one token; unset it',
    );
  return {
    port,
    host,
    token,
    allowedOrigins: parseOrigins(
      listFrom('AALIS_ALLOWED_ORIGINS', settings.allowedOrigins, 'allowedOrigins'),
    ),
    publicHosts: listenHost && !publicHosts.includes(listenHost) ? [...publicHosts, listenHost] : publicHosts,
    metricsToken: env.AALIS_METRICS_TOKEN || settings.metricsToken || undefined,
    auth,
    budgets: loadBudgetConfig(env, settings.budgets),
    ipLimits: {
      ...loadIpLimits(env, settings.ipLimits),
      trustProxy: parseTrustProxy(
        listFrom(TRUST_PROXY_VARIABLE, settings.ipLimits?.trustProxy, 'ipLimits.trustProxy'),
      ),
    },
    dataDir:
      isSet(env, 'AALIS_DATA_DIR') || settings.dataDir === undefined
        ? dataDirFrom(env.AALIS_DATA_DIR)
        : dataDirFrom(settings.dataDir, file!.dir),
    turnLeaseMs: wholeNumber(env, 'AALIS_TURN_LEASE_MS', settings.turnLeaseMs ?? 10_000, {
      max: 600_000,
      unit: 'ms',
    }),
    ...serviceUrl(env, 'AALIS_REDIS_URL', settings.redisUrl, 'redisUrl', ['redis:', 'rediss:']),
    ...serviceUrl(env, 'AALIS_DATABASE_URL', settings.databaseUrl, 'databaseUrl', [
      'postgres:',
      'postgresql:',
    ]),
    logLevel,
    maxToolArgumentChars,
    ...(file?.systemPrompt ? { systemPrompt: file.systemPrompt } : {}),
    greeting: {
      ...(settings.welcome ? { welcome: settings.welcome } : {}),
      ...(settings.starters?.length ? { starters: settings.starters } : {}),
    },
    images: loadImageConfig(env, settings.images),
    builtinTools: settings.builtinTools ?? (provider === 'demo' ? allTools : []),
    mcpServers: settings.mcpServers ?? {},
    approval: settings.approval ?? {},
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
 * (`--config`), else by `AALIS_CONFIG`, if any, and the environment over it.
 */
export function loadServerConfig({ configPath, env }: { configPath?: string; env: Env }): LoadedConfig {
  const path = configPath ?? (env.AALIS_CONFIG?.trim() || undefined);
  const file = path === undefined ? undefined : readConfigFile(path, env);
  return {
    config: loadConfig(env, file),
    env: withFileProvider(env, file),
    file,
    overridden: file ? overriddenByEnvironment(env, file) : [],
  };
}

/** One entry of a list setting, with what a mistake in it is said to be in. */
interface Entry {
  entry: string;
  /** `AALIS_ALLOWED_ORIGINS`, or `aalis.config.json: allowedOrigins[1]`. */
  label: string;
}

/** A service's URL from its variable (or the file's setting), checked for its scheme. */
function serviceUrl<K extends 'redisUrl' | 'databaseUrl'>(
  env: Env,
  variable: string,
  setting: string | undefined,
  key: K,
  schemes: string[],
): Partial<Record<K, string>> {
  const value = env[variable]?.trim() || setting?.trim();
  if (!value) return {};
  let scheme: string | undefined;
  try {
    scheme = new URL(value).protocol;
  } catch {
    scheme = undefined;
  }
  if (!scheme || !schemes.includes(scheme))
    throw new ConfigError(
      `${variable}: expected a URL starting ${schemes.map((s) => `${s}//`).join(' or ')}`,
    );
  return { [key]: value } as Partial<Record<K, string>>;
}

function parseOrigins(entries: Entry[]): string[] {
  return entries.map(({ entry, label }) => {
    if (entry === '*') return entry;
    const origin = parseOriginEntry(entry);
    if (origin === undefined)
      throw new ConfigError(
        `${label}: "${entry}" is not an origin like https://shop.example.com (no path), or https://*.example.com for its subdomains`,
      );
    return origin;
  });
}

function parsePublicHosts(entries: Entry[]): string[] {
  return entries.map(({ entry, label }) => {
    if (entry === '*') return entry;
    const host = parseHost(entry);
    if (!host)
      throw new ConfigError(
        `${label}: "${entry}" is not a host name like chat.example.com or chat.example.com:8443 (no scheme, no path)`,
      );
    return host.port === undefined ? host.hostname : `${host.hostname}:${host.port}`;
  });
}

/** The per-IP limits from the environment over the file's `ipLimits` block; each a whole number, 0 for no limit. */
function loadIpLimits(env: Env, file: IpLimitSettings = {}): IpLimitValues {
  return limitsFrom(IP_LIMIT_VARIABLES, DEFAULT_IP_LIMITS, env, file);
}

function parseTrustProxy(entries: Entry[]): string[] {
  return entries.map(({ entry, label }) => {
    const parsed = parseTrustProxyEntry(entry);
    if (parsed === undefined)
      throw new ConfigError(
        `${label}: "${entry}" is not an IP address like 10.0.0.5 or ::1, or loopback (127.0.0.0/8 and ::1)`,
      );
    return parsed;
  });
}

/** The entries of a comma-separated variable, trimmed, empty ones dropped. */
function listEntries(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}
