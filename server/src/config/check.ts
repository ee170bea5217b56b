/**
 * `aalis-server --check`: the configuration as the server would run it (the file with the
 * environment over it), every setting in the order and with the masks of the settings'
 * descriptions (settings-report.ts), and the tools each MCP server offers. Exit 0 when
 * every MCP server answered, 1 when one did not (each with its one-line reason: a
 * process's exit code and the last lines of its stderr); every mistake in the
 * configuration is found before this runs, and exits 2.
 */
import { IN_MEMORY, type LoadedConfig } from './server-config.js';
import { settingsReport } from './settings-report.js';
import { PROVIDER_KEY_VARIABLES, PROVIDER_URL_VARIABLES } from './file-environment.js';
import { looksSecret, maskArgs, maskByName, maskUrl, redact } from '../util/secrets.js';
import { MAX_TIMER_MS, wholeNumber } from '../util/setting-values.js';
import {
  DEFAULT_MODELS,
  UPSTREAM_TIMEOUT_VARIABLES,
  chooseProviderName,
  providerFromEnv,
} from '../providers/from-env.js';
import {
  describeMcpServers,
  isStdioServer,
  type McpServerDescription,
  type McpServersConfig,
} from '../tools/mcp/index.js';

/** How long each MCP server has to start, answer and list its tools. */
export const CHECK_TIMEOUT_MS = 10_000;

/** A system prompt longer than this is shown by its start and its length. */
const PROMPT_PREVIEW_CHARS = 200;

export interface CheckOutput {
  out(line: string): void;
  err(line: string): void;
}

/**
 * Prints the resolved configuration and the MCP servers' tools; the exit code. Throws
 * the provider's ConfigError when it cannot be built (a key it needs is missing).
 */
export async function checkConfiguration(
  { config, env, file, overridden }: LoadedConfig,
  output: CheckOutput = { out: console.log, err: console.error },
  { timeoutMs = CHECK_TIMEOUT_MS }: { timeoutMs?: number } = {},
): Promise<number> {
  const [firstByteTimeoutMs, idleTimeoutMs, retryAfterMaxMs] = UPSTREAM_TIMEOUT_VARIABLES.map(
    ([variable, fallback]) => wholeNumber(env, variable, fallback, { max: MAX_TIMER_MS }),
  );
  const patience = { firstByteTimeoutMs, idleTimeoutMs, retryAfterMaxMs };
  // With an agent no provider is made: what is shown is the agent and how long it is waited for.
  const answers = config.agent ? { provider: patience } : await providerReport(env, patience);
  const resolved = settingsReport(
    {
      ...answers,
      ...config,
      dataDir: config.dataDir ?? IN_MEMORY,
      ...config.greeting,
    },
    {
      systemPrompt: (text: string) =>
        text.length > PROMPT_PREVIEW_CHARS
          ? `${text.slice(0, PROMPT_PREVIEW_CHARS)}… (${text.length} characters)`
          : text,
      mcpServers: maskServers,
      'agent.headers': maskByName,
    },
  );
  // The last net: what a secret-looking variable put anywhere, and every secret above.
  const secrets = [
    ...(file?.secrets ?? []),
    ...[apiKeyOf(answers.provider), config.token, config.metricsToken, config.auth?.secret].filter(
      (s): s is string => Boolean(s),
    ),
    ...serverSecrets(config.mcpServers),
    ...(config.agent ? agentSecrets(config.agent) : []),
  ];
  const out = (line: string) => output.out(redact(line, secrets));
  const err = (line: string) => output.err(redact(line, secrets));

  out(file ? `aalis-server: ${file.path} is valid` : 'aalis-server: the configuration is valid (no file)');
  out(JSON.stringify(resolved, null, 2));
  if (overridden.length) out(`set by the environment, over the file: ${overridden.join(', ')}`);

  const servers = Object.keys(config.mcpServers);
  if (!servers.length) {
    out('MCP servers: none');
    return 0;
  }
  out(`MCP servers (each given ${timeoutMs / 1000} s to start and list its tools):`);
  const described = await describeMcpServers(config.mcpServers, {
    timeoutMs,
    reservedNames: config.builtinTools,
  }).catch((error: unknown): McpServerDescription[] =>
    servers.map((server) => ({ server, error: (error as Error).message })),
  );
  let failed = 0;
  for (const { server, tools, error, stderr = [] } of described) {
    if (!tools) {
      failed++;
      // Its own last words (bounded), often the real reason: npm's is above its last line.
      const reason = oneLine(error ?? 'no answer');
      const lines = stderr.map(oneLine).filter(Boolean);
      out(`  ${server}: failed: ${reason}${lines.length ? '; the last lines of its stderr:' : ''}`);
      for (const line of lines) out(`    ${line}`);
      err(
        `aalis-server: MCP server ${server} failed: ${reason}${lines.length ? `; its stderr: ${lines.join(' | ')}` : ''}`,
      );
      continue;
    }
    out(`  ${server}: ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'}`);
    for (const tool of tools) {
      const description = tool.description ? `: ${oneLine(tool.description)}` : '';
      out(`    ${tool.name}${description}`);
    }
  }
  return failed ? 1 : 0;
}

/** The provider as it would run: everything it needs is checked by making it, as at start. */
async function providerReport(env: LoadedConfig['env'], patience: Record<string, number | undefined>) {
  await providerFromEnv(env).close();
  const name = chooseProviderName(env);
  const keyVariable = PROVIDER_KEY_VARIABLES[name];
  const urlVariable = PROVIDER_URL_VARIABLES[name];
  const apiKey = keyVariable ? env[keyVariable]?.trim() : undefined;
  const baseUrl = urlVariable ? env[urlVariable]?.trim() : undefined;
  return {
    provider: {
      name,
      model: env.AALIS_MODEL?.trim() || DEFAULT_MODELS[name],
      apiKey: apiKey || undefined,
      baseUrl: baseUrl || undefined,
      maxOutputTokens: asGiven(env.AALIS_MAX_OUTPUT_TOKENS),
      reasoning: asGiven(env.AALIS_REASONING),
      ...patience,
    },
  };
}

const apiKeyOf = (provider: object): string | undefined =>
  'apiKey' in provider ? (provider.apiKey as string | undefined) : undefined;

/** The agent's header values masked by their names, and its URL's secrets. */
function agentSecrets(agent: NonNullable<LoadedConfig['config']['agent']>): string[] {
  return [
    ...Object.entries(agent.headers)
      .filter(([name, value]) => value && looksSecret(name))
      .map(([, value]) => value),
    ...urlSecrets(agent.url),
  ];
}

/** A variable's value as the file would write it: a number as a number; unset as undefined. */
function asGiven(text: string | undefined): string | number | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The servers with secret-looking env values, headers, flags and URL parts masked. */
function maskServers(servers: McpServersConfig): McpServersConfig {
  return Object.fromEntries(
    Object.entries(servers).map(([name, server]) => [
      name,
      isStdioServer(server)
        ? {
            ...server,
            ...(server.args ? { args: maskArgs(server.args) } : {}),
            ...(server.env ? { env: maskByName(server.env) } : {}),
          }
        : {
            ...server,
            url: maskUrl(server.url),
            ...(server.headers ? { headers: maskByName(server.headers) } : {}),
          },
    ]),
  );
}

/** The values masked by their names: secrets wherever else they appear too. */
function serverSecrets(servers: McpServersConfig): string[] {
  return Object.values(servers).flatMap((server) => {
    const map = isStdioServer(server) ? server.env : server.headers;
    const args = isStdioServer(server) ? (server.args ?? []) : [];
    const masked = maskArgs(args);
    return [
      ...Object.entries(map ?? {})
        .filter(([name, value]) => value && looksSecret(name))
        .map(([, value]) => value),
      ...args.filter((arg, index) => masked[index] !== arg).map((arg) => arg.replace(/^--?[^=\s]+=/, '')),
      ...(isStdioServer(server) ? [] : urlSecrets(server.url)),
    ];
  });
}

/** A URL's password and secret-looking query values, as written and decoded. */
function urlSecrets(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  const values = [
    url.password,
    ...[...url.searchParams].filter(([name]) => looksSecret(name)).map(([, value]) => value),
  ].filter(Boolean);
  return values.flatMap((value) => [value, safeDecode(value), encodeURIComponent(value)]);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
