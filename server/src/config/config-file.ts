/**
 * The configuration file (`aalis-server --config aalis.config.json`, or `AALIS_CONFIG`):
 * read, parsed, its `${VAR}` references expanded, checked against the published schema
 * and its relative paths resolved from its own directory. Every mistake is one line,
 * `aalis.config.json: mcpServers.files.command: required`, every one is said (not only the
 * first), and `aalis-server` exits 2.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { ApprovalPolicy } from '../agent/approval-policy.js';
import { ConfigError } from '../util/setting-values.js';
import type { AuthSettings } from '../identity/auth-config.js';
import type { ChallengeSettings } from '../identity/challenge-config.js';
import type { BudgetSettings } from '../budgets/budget-config.js';
import type { IpLimitSettings } from '../transport/ip-limits.js';
import type { ImageFileSettings } from '../images/image-config.js';
import type { AgentFileSettings } from './load-agent.js';
import { parseJson } from './file-json.js';
import { atPath, mistakeAt, type Mistake } from './file-path.js';
import { schemaMistakes } from './file-schema.js';
import { Problems } from './problems.js';
import { expandVariables } from './file-variables.js';
import type { ProviderName } from '../providers/from-env.js';
import { isStdioServer, type McpServersConfig } from '../tools/mcp/config.js';
import { RunAsError, resolveRunAs } from '../tools/mcp/run-as.js';

type Env = Record<string, string | undefined>;

export type { ApprovalPolicy };

/** The `provider` block: each key stands for a variable (README, "Configuration file"). */
export interface ProviderSettings {
  name?: ProviderName;
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  maxOutputTokens?: number;
  /** Per provider: anthropic `off | adaptive | budget`, openai-responses an effort (each provider's index.ts). */
  reasoning?: string | number;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  retryAfterMaxMs?: number;
}

/** What the file may hold, as `schema/aalis-config.schema.json` describes it. */
export interface ConfigFileSettings {
  $schema?: string;
  provider?: ProviderSettings;
  /** An agent that answers instead of a model: each key but `headers` stands for an `AALIS_AGENT_*` variable. */
  agent?: AgentFileSettings;
  port?: number;
  host?: string;
  publicHosts?: string[];
  allowedOrigins?: string[];
  token?: string;
  metricsToken?: string;
  /** The owner's switch (`/admin/*`, `aalis-server pause`): `AALIS_ADMIN_TOKEN`. */
  adminToken?: string;
  /** Conversations idle longer are erased (`AALIS_RETENTION_DAYS`). */
  retentionDays?: number;
  /** USD per million tokens by model: the console's cost per day. */
  prices?: Record<string, { input: number; output: number }>;
  /** A bot challenge for anonymous visitors: each key stands for an `AALIS_CHALLENGE*` variable. */
  challenge?: ChallengeSettings;
  /** A person a visitor may ask for: each key stands for an `AALIS_HANDOFF*` variable. */
  handoff?: HandoffFileSettings;
  /** Signed visitor identity: each key stands for an `AALIS_AUTH*` variable. */
  auth?: AuthSettings;
  /** What visitors and the server may spend: each key stands for an `AALIS_*` budget variable. */
  budgets?: BudgetSettings;
  /** Limits per client IP and the trusted proxies: each key stands for an `AALIS_IP_*` variable or `AALIS_TRUST_PROXY`. */
  ipLimits?: IpLimitSettings;
  dataDir?: string;
  redisUrl?: string;
  databaseUrl?: string;
  turnLeaseMs?: number;
  drainMs?: number;
  logLevel?: string;
  /** Whether GET / serves a page to chat on (`AALIS_PAGE`). */
  page?: boolean;
  maxToolArgumentChars?: number;
  systemPrompt?: string | { file: string };
  /** Shown to a visitor while the conversation is empty (the widget's `welcome` attribute overrides it). */
  welcome?: string;
  /** Prompts a visitor sends with one click while the conversation is empty. */
  starters?: string[];
  /** Images visitors may attach: each key stands for `AALIS_VISION` or an `AALIS_IMAGE_*` variable. */
  images?: ImageFileSettings;
  builtinTools?: string[];
  mcpServers?: McpServersConfig;
  approval?: Record<string, ApprovalPolicy>;
  /** How long an MCP server's request for the visitor's input waits (`AALIS_ELICITATION_TIMEOUT_MS`). */
  elicitationTimeoutMs?: number;
}

export interface ConfigFile {
  /** As it was named (on the command line or in AALIS_CONFIG): errors say it so. */
  path: string;
  /** Its absolute path, for the start line. */
  absolutePath: string;
  /** Its directory: relative paths in it (systemPrompt.file, dataDir, a server's cwd) start here, and stdio MCP servers run here by default. */
  dir: string;
  /** Its settings, `${VAR}` expanded and checked; a stdio MCP server's `cwd` made absolute. */
  settings: ConfigFileSettings;
  /** The system prompt's text, read from its file when the file names one. */
  systemPrompt: string | undefined;
  /** What secret-looking variables put into the settings: `--check` never prints them. */
  secrets: string[];
}

/** A system prompt file longer than this is a mistake (a wrong file), not a prompt. */
const MAX_PROMPT_BYTES = 1024 * 1024;

export interface InspectedConfigFile {
  /**
   * The file with every part that has a mistake left out (a top-level key, or one MCP
   * server), so that the environment can still be checked over the rest; undefined when
   * it cannot be read or is not a JSON object.
   */
  file: ConfigFile | undefined;
  /** Every mistake, one line each, without the file's name. */
  problems: string[];
  /** The top-level keys left out for a mistake in them. */
  leftOut: Set<string>;
}

/**
 * Every mistake in the file, not only the first: each check runs on what the earlier ones
 * found right, a part with a mistake left out of the later ones (a misspelt key is said as
 * such, not as the variable its value names).
 */
export function inspectConfigFile(path: string, env: Env): InspectedConfigFile {
  const problems = new Problems();
  const leftOut = new Set<string>();
  const absolutePath = resolve(path);
  const dir = dirname(absolutePath);
  const raw = problems.catch(() => parseJson(readText(absolutePath)));
  if (problems.found) return { file: undefined, problems: problems.lines, leftOut };
  let settings = raw as ConfigFileSettings;
  let whole = true;
  const leaveOut = (mistakes: Mistake[]) => {
    problems.add(...mistakes.map((mistake) => mistake.line));
    for (const { path: at } of mistakes) {
      if (!at.length) whole = false;
      else leftOut.add(String(at[0]));
    }
    settings = without(settings, mistakes);
  };
  leaveOut(schemaMistakes(raw, { unexpanded: true }));
  if (!whole) return { file: undefined, problems: problems.lines, leftOut };
  const expanded = expandVariables(settings, env);
  settings = expanded.value;
  leaveOut(expanded.problems);
  leaveOut([...schemaMistakes(settings), ...valueProblems(settings)]);
  let systemPrompt: string | undefined;
  try {
    systemPrompt = systemPromptOf(settings.systemPrompt, dir);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    leaveOut([{ path: ['systemPrompt', 'file'], line: error.message }]);
  }
  const file: ConfigFile = {
    path,
    absolutePath,
    dir,
    settings: {
      ...settings,
      ...(settings.mcpServers ? { mcpServers: resolveCwd(settings.mcpServers, dir) } : {}),
    },
    systemPrompt,
    secrets: expanded.secrets,
  };
  return { file, problems: problems.lines, leftOut };
}

/**
 * The settings without the parts the mistakes are in: the top-level key, or for an MCP
 * server only that server (servers are independent of one another).
 */
function without(settings: ConfigFileSettings, mistakes: Mistake[]): ConfigFileSettings {
  const kept: Record<string, unknown> = { ...settings };
  for (const { path } of mistakes) {
    const [key, server] = path as [string | undefined, string | undefined];
    if (key === undefined || !(key in kept)) continue;
    const value = kept[key];
    if (key === 'mcpServers' && server !== undefined && value && typeof value === 'object') {
      const { [server]: _dropped, ...others } = value as Record<string, unknown>;
      kept[key] = others;
    } else delete kept[key];
  }
  return kept as ConfigFileSettings;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot be read (${readFailure(error)})`);
  }
}

/** `ENOENT: no such file or directory`, without the path Node repeats after it. */
export function readFailure(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const text = message
    .split('\n')[0]!
    .replace(/^[A-Z]+: /, '')
    .replace(/, \w+( '.*')?$/, '');
  return code ? `${code}: ${text}` : text;
}

/**
 * What the schema cannot say: URLs, provider keys that only some providers take, and a
 * user to run an MCP server as that does not exist or that the server cannot switch to
 * (said at start rather than at every retry).
 */
function valueProblems(settings: ConfigFileSettings): Mistake[] {
  const { provider, mcpServers = {} } = settings;
  const problems: Mistake[] = [];
  if (provider?.apiKey && (provider.name === 'ollama' || provider.name === 'demo'))
    problems.push(mistakeAt(['provider', 'apiKey'], `the ${provider.name} provider takes no key`));
  if (provider?.baseUrl && provider.name === 'demo')
    problems.push(mistakeAt(['provider', 'baseUrl'], 'the demo provider takes no address'));
  else if (
    provider?.baseUrl &&
    !isUrl(provider.baseUrl.includes('://') ? provider.baseUrl : `http://${provider.baseUrl}`)
  )
    problems.push(mistakeAt(['provider', 'baseUrl'], `"${provider.baseUrl}" is not a URL`));
  for (const [name, server] of Object.entries(mcpServers)) {
    if (!isStdioServer(server) && !(isUrl(server.url) && /^https?:\/\//i.test(server.url)))
      problems.push(
        mistakeAt(['mcpServers', name, 'url'], `"${server.url}" is not an http:// or https:// URL`),
      );
    if (isStdioServer(server)) {
      try {
        resolveRunAs(server.user, server.group);
      } catch (error) {
        if (!(error instanceof RunAsError)) throw error;
        problems.push(mistakeAt(['mcpServers', name, error.key], error.message));
      }
    }
  }
  return problems;
}

function isUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A stdio server runs in its `cwd`, relative to the file, or in the file's own directory:
 * a configuration means the same wherever the server is started from (`npx` finds the
 * packages installed next to it, relative arguments name files next to it).
 */
function resolveCwd(servers: McpServersConfig, dir: string): McpServersConfig {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [
      name,
      isStdioServer(server) ? { ...server, cwd: resolve(dir, server.cwd ?? '.') } : server,
    ]),
  );
}

function systemPromptOf(prompt: ConfigFileSettings['systemPrompt'], dir: string): string | undefined {
  if (prompt === undefined || typeof prompt === 'string') return prompt || undefined;
  const file = resolve(dir, prompt.file);
  let text: string;
  try {
    if (statSync(file).size > MAX_PROMPT_BYTES)
      return fail(
        `${prompt.file} is larger than ${MAX_PROMPT_BYTES / 1024 / 1024} MiB: is it the right file?`,
      );
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    return fail(`${prompt.file} cannot be read (${readFailure(error)})`);
  }
  return text.replace(/^\uFEFF/, '').trim() || undefined;
}

const fail = (message: string): never => {
  throw new ConfigError(atPath(['systemPrompt', 'file'], message));
};

/** The file's `handoff` block. */
export interface HandoffFileSettings {
  enabled?: boolean;
  webhook?: string;
  webhookSecret?: string;
  operatorName?: string;
  consoleUrl?: string;
}
