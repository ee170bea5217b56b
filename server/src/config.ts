/**
 * The server's configuration, from environment variables. Every mistake is one line
 * naming the variable; `aalis-server --help` prints this table.
 */
import { resolve } from 'node:path';
import {
  ConfigError,
  DEFAULT_MODELS,
  PROVIDER_NAMES,
  UPSTREAM_TIMEOUT_VARIABLES,
  chooseProviderName,
} from './providers/from-env.js';
import { wholeNumber } from './config-values.js';
import { DEFAULT_MAX_TOOL_ARGUMENT_CHARS } from './sessions/limits.js';
import { listenHostEntry, parseHost } from './transport/host-guard.js';

export { ConfigError };

/** The history's directory when none is named: durable by default, next to where the server runs. */
export const DEFAULT_DATA_DIR = 'aalis-data';
/** The value of AALIS_DATA_DIR that keeps history in memory (SQLite's own name for it). */
export const IN_MEMORY = ':memory:';

function dataDirFrom(value: string | undefined): string | undefined {
  const named = value?.trim();
  if (named === IN_MEMORY) return undefined;
  return resolve(named || DEFAULT_DATA_DIR);
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
  /** Where the SQLite history lives; undefined keeps it in memory (`AALIS_DATA_DIR=:memory:`). */
  dataDir: string | undefined;
  logLevel: string;
  /** Arguments one tool call may have before it is cut off and never run. */
  maxToolArgumentChars: number;
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
  ['OPENAI_BASE_URL', 'https://api.openai.com/v1', 'any Chat Completions server'],
  ['DEEPSEEK_API_KEY', '', 'DeepSeek key (selects deepseek)'],
  ['DEEPSEEK_BASE_URL', 'https://api.deepseek.com', 'DeepSeek API address'],
  ['OLLAMA_HOST', '', 'Ollama address, e.g. http://127.0.0.1:11434 (selects ollama)'],
  ['AALIS_TOKEN', '', 'when set, clients must send it in hello'],
  ['AALIS_ALLOWED_ORIGINS', '', "comma-separated origins allowed besides the server's own; * for any"],
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
  ['LOG_LEVEL', 'info', 'fatal | error | warn | info | debug | trace | silent'],
];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: Env): ServerConfig {
  chooseProviderName(env); // Fails early, with the provider's own message.
  const portText = env.PORT?.trim() || '8787';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535)
    throw new ConfigError(`PORT must be a number from 0 to 65535; it is "${portText}"`);
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; it is "${logLevel}"`);
  const host = env.HOST?.trim() || '127.0.0.1';
  const listenHost = listenHostEntry(host);
  const publicHosts = parsePublicHosts(env.AALIS_PUBLIC_HOSTS ?? '');
  return {
    port,
    host,
    token: env.AALIS_TOKEN || undefined,
    allowedOrigins: parseOrigins(env.AALIS_ALLOWED_ORIGINS ?? ''),
    publicHosts: listenHost && !publicHosts.includes(listenHost) ? [...publicHosts, listenHost] : publicHosts,
    metricsToken: env.AALIS_METRICS_TOKEN || undefined,
    dataDir: dataDirFrom(env.AALIS_DATA_DIR),
    logLevel,
    maxToolArgumentChars: wholeNumber(env, 'AALIS_MAX_TOOL_ARGUMENT_CHARS', DEFAULT_MAX_TOOL_ARGUMENT_CHARS, {
      max: 100_000_000,
      unit: 'characters',
    }),
  };
}

function parseOrigins(text: string): string[] {
  return listEntries(text).map((entry) => {
    if (entry === '*') return entry;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(
        `AALIS_ALLOWED_ORIGINS: "${entry}" is not an origin like https://shop.example.com`,
      );
    }
    if (url.origin === 'null' || url.pathname !== '/' || url.search || entry.endsWith('/')) {
      throw new ConfigError(
        `AALIS_ALLOWED_ORIGINS: "${entry}" is not an origin like https://shop.example.com (no path)`,
      );
    }
    return url.origin;
  });
}

function parsePublicHosts(text: string): string[] {
  return listEntries(text).map((entry) => {
    if (entry === '*') return entry;
    const host = parseHost(entry);
    if (!host)
      throw new ConfigError(
        `AALIS_PUBLIC_HOSTS: "${entry}" is not a host name like chat.example.com or chat.example.com:8443 (no scheme, no path)`,
      );
    return host.port === undefined ? host.hostname : `${host.hostname}:${host.port}`;
  });
}

/** The entries of a comma-separated variable, trimmed, empty ones dropped. */
function listEntries(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}
