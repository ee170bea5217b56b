/**
 * Where the server listens and who may reach it, and where it keeps what it keeps: the
 * file's top-level settings that a variable also makes.
 */
import { DEFAULT_MAX_TOOL_ARGUMENT_CHARS } from '../../agent/limits.js';
import { DEFAULT_DRAIN_MS } from '../../sessions/hub-options.js';
import { variable, type Setting } from './setting.js';

/** The history's directory when none is named: durable by default, next to where the server runs. */
export const DEFAULT_DATA_DIR = 'aalis-data';
/** The value of AALIS_DATA_DIR that keeps history in memory (SQLite's own name for it). */
export const IN_MEMORY = ':memory:';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const list = { type: 'array', items: { type: 'string', minLength: 1 } };

export const LISTEN_SETTINGS: Setting[] = [
  {
    key: 'port',
    variables: [variable('PORT', 'port to listen on')],
    schema: { type: 'integer', minimum: 0, maximum: 65_535 },
    description: 'the port to listen on (0: any free one).',
    default: 8787,
  },
  {
    key: 'host',
    variables: [variable('HOST', 'address to listen on (0.0.0.0 for every interface)')],
    schema: { type: 'string', minLength: 1 },
    description: 'the address to listen on (0.0.0.0 for every interface).',
    default: '127.0.0.1',
  },
  {
    key: 'publicHosts',
    variables: [
      variable(
        'AALIS_PUBLIC_HOSTS',
        'comma-separated names the server is reached by (chat.example.com); other Hosts get 403; * for any',
      ),
    ],
    schema: list,
    description:
      'the names the server is reached by (chat.example.com, chat.example.com:8443); other Hosts get 403; "*" for any. Loopback names, and HOST when it is one address, are always served.',
  },
  {
    key: 'allowedOrigins',
    variables: [
      variable(
        'AALIS_ALLOWED_ORIGINS',
        "comma-separated origins allowed besides the server's own; https://*.example.com for its subdomains; * for any",
      ),
    ],
    schema: list,
    description:
      'origins allowed to open the socket besides the server\'s own (https://shop.example.com; https://*.example.com for its subdomains); "*" for any.',
  },
  {
    key: 'token',
    variables: [
      variable(
        'AALIS_TOKEN',
        'when set, clients must send it in hello (not with AALIS_AUTH_SECRET or AALIS_AUTH_JWKS_URL)',
      ),
    ],
    schema: { type: 'string' },
    description: 'when set, clients must send it in hello. Keep it out of the file: "${AALIS_TOKEN}".',
    mask: 'secret',
  },
  {
    key: 'metricsToken',
    variables: [
      variable(
        'AALIS_METRICS_TOKEN',
        'bearer token for GET /healthz/details from other machines (loopback needs none)',
      ),
    ],
    schema: { type: 'string' },
    description: 'bearer token for GET /healthz/details from other machines (loopback needs none).',
    mask: 'secret',
  },
];

export const STORAGE_SETTINGS: Setting[] = [
  {
    key: 'dataDir',
    variables: [
      variable(
        'AALIS_DATA_DIR',
        'directory for the SQLite history (created when missing); :memory: keeps it in memory, lost on restart',
      ),
    ],
    schema: { type: 'string', minLength: 1 },
    description:
      'directory of the SQLite history, relative to the file that names it (created when missing); ":memory:" keeps it in memory, lost on restart.',
    default: `./${DEFAULT_DATA_DIR}`,
  },
  {
    key: 'redisUrl',
    variables: [
      variable(
        'AALIS_REDIS_URL',
        'redis://host:6379: live sessions shared by every instance behind a load balancer (deployment guide)',
      ),
    ],
    schema: { type: 'string', pattern: '^(rediss?://|\\$\\{)' },
    description:
      'redis:// or rediss:// URL of the Redis every instance shares live sessions, leases and budgets through. Without it, one instance keeps them in memory.',
    mask: 'url',
  },
  {
    key: 'databaseUrl',
    variables: [
      variable(
        'AALIS_DATABASE_URL',
        'postgres://user:password@host/db: history in PostgreSQL (migrations applied at start) instead of SQLite',
      ),
    ],
    schema: { type: 'string', pattern: '^(postgres(ql)?://|\\$\\{)' },
    description:
      'postgres:// URL of the PostgreSQL database that keeps the history (its migrations are applied at start) instead of SQLite in dataDir.',
    mask: 'url',
  },
  {
    key: 'turnLeaseMs',
    variables: [
      variable(
        'AALIS_TURN_LEASE_MS',
        "with Redis: how long a dead instance's running turn is waited for before another ends it (interrupted)",
      ),
    ],
    schema: { type: 'integer', minimum: 1, maximum: 600_000 },
    description:
      'with redisUrl, how long the running turn of an instance that stopped renewing its lease is waited for before another instance ends it as interrupted.',
    default: 10_000,
    unit: 'ms',
  },
  {
    key: 'drainMs',
    variables: [
      variable(
        'AALIS_DRAIN_MS',
        'on SIGTERM, how long running turns may finish before they are stopped (0: stop them at once)',
      ),
    ],
    schema: { type: 'integer', minimum: 0, maximum: 3_600_000 },
    description:
      'on SIGTERM or SIGINT, how long running turns may finish while the server refuses new connections and turns and GET /healthz/ready says 503; the rest are then stopped (shutting_down). 0 stops them at once.',
    default: DEFAULT_DRAIN_MS,
    unit: 'ms',
  },
  {
    key: 'page',
    variables: [
      variable('AALIS_PAGE', 'on: GET / serves a page to chat on | off: none (a server for embeds only)', {
        fallback: 'on',
      }),
    ],
    schema: { type: 'boolean' },
    description:
      'true: GET / serves a page holding the chat, wired to this server, with the configured welcome and starters; false: no page (a server only for embeds and the API). The variable says on or off.',
    fallback: 'true',
  },
  {
    key: 'logLevel',
    variables: [variable('LOG_LEVEL', LOG_LEVELS.join(' | '))],
    schema: { enum: LOG_LEVELS },
    description: 'how much is logged (pino JSON lines).',
    default: 'info',
  },
  {
    key: 'maxToolArgumentChars',
    variables: [
      variable(
        'AALIS_MAX_TOOL_ARGUMENT_CHARS',
        'longest arguments of one tool call; a longer call is cut off, never run, and the turn ends too_large',
      ),
    ],
    schema: { type: 'integer', minimum: 1, maximum: 100_000_000 },
    description:
      'longest arguments of one tool call; a longer call is cut off, never run, and the turn ends too_large.',
    default: DEFAULT_MAX_TOOL_ARGUMENT_CHARS,
    unit: 'characters',
  },
];
