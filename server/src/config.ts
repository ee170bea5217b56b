/**
 * The server's configuration, from environment variables. Every mistake is one line
 * naming the variable; `aalis-server --help` prints this table.
 */
import { ConfigError, DEFAULT_MODELS, PROVIDER_NAMES, chooseProviderName } from './providers/from-env.js';

export { ConfigError };

export interface ServerConfig {
  port: number;
  host: string;
  token: string | undefined;
  allowedOrigins: string[];
  /** Empty: history in memory only. */
  dataDir: string | undefined;
  logLevel: string;
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
  ['AALIS_DATA_DIR', '', 'directory for the SQLite history; empty keeps history in memory'],
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
  return {
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    token: env.AALIS_TOKEN || undefined,
    allowedOrigins: parseOrigins(env.AALIS_ALLOWED_ORIGINS ?? ''),
    dataDir: env.AALIS_DATA_DIR?.trim() || undefined,
    logLevel,
  };
}

function parseOrigins(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
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
