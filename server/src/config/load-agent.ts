/**
 * The upstream agent from `AALIS_AGENT_*` over the file's `agent` block: a protocol this
 * server speaks and an http(s) URL, both needed, each mistake one line naming where it is.
 * With an agent, what only the built-in agent uses (tools, approvals, the system prompt)
 * is a mistake rather than silently left unused, and so is naming a provider too.
 */
import { UPSTREAM_PROTOCOL_NAMES, type UpstreamProtocolName } from '../upstream/registry.js';
import type { Problems } from './problems.js';
import { blockVariables } from './settings/index.js';

type Env = Record<string, string | undefined>;

/** The file's `agent` block. */
export interface AgentFileSettings {
  protocol?: string;
  url?: string;
  headers?: Record<string, string>;
}

/** The agent that answers the turns. */
export interface AgentConfig {
  protocol: UpstreamProtocolName;
  url: string;
  /** Sent with every run (the file's `agent.headers`). */
  headers: Record<string, string>;
}

/** What only the built-in agent reads: set with an agent, each is a mistake. */
const MODEL_ONLY_KEYS = ['systemPrompt', 'builtinTools', 'mcpServers', 'approval'] as const;

export function loadAgent(
  env: Env,
  file: AgentFileSettings | undefined,
  problems: Problems,
): AgentConfig | undefined {
  const values: Partial<Record<'protocol' | 'url', { value: string; label: string }>> = {};
  for (const [key, variable] of blockVariables<'protocol' | 'url'>('agent')) {
    const fromEnv = env[variable]?.trim();
    const fromFile = file?.[key]?.trim();
    if (fromEnv) values[key] = { value: fromEnv, label: variable };
    else if (fromFile) values[key] = { value: fromFile, label: `agent.${key}` };
  }
  const { protocol, url } = values;
  if (!protocol && !url) {
    if (file?.headers) problems.add('agent.headers needs AALIS_AGENT_PROTOCOL and AALIS_AGENT_URL');
    return undefined;
  }
  const names = UPSTREAM_PROTOCOL_NAMES.join(' or ');
  const before = problems.lines.length;
  if (!protocol) problems.add(`${url!.label} needs AALIS_AGENT_PROTOCOL (${names})`);
  else if (!UPSTREAM_PROTOCOL_NAMES.includes(protocol.value as UpstreamProtocolName))
    problems.add(
      `${protocol.label} must be one of ${UPSTREAM_PROTOCOL_NAMES.join(', ')}; it is "${protocol.value}"`,
    );
  if (!url) problems.add(`${protocol!.label}=${protocol!.value} needs AALIS_AGENT_URL, the agent's endpoint`);
  else if (!isHttpUrl(url.value))
    problems.add(`${url.label} must be an http:// or https:// URL; it is "${url.value}"`);
  if (!protocol || !url || problems.lines.length > before) return undefined;
  return { protocol: protocol.value as UpstreamProtocolName, url: url.value, headers: file?.headers ?? {} };
}

/**
 * With an agent: a provider named as well (`AALIS_PROVIDER`, the file's `provider.name`),
 * or a setting only a model's turns read, each a line.
 */
export function agentConflicts(
  env: Env,
  settings: { provider?: { name?: string } } & Partial<Record<(typeof MODEL_ONLY_KEYS)[number], unknown>>,
  problems: Problems,
): void {
  const provider = env.AALIS_PROVIDER?.trim()
    ? 'AALIS_PROVIDER'
    : settings.provider?.name
      ? 'provider.name'
      : undefined;
  if (provider)
    problems.add(`${provider} and an agent (AALIS_AGENT_PROTOCOL) both answer turns: keep one of them`);
  for (const key of MODEL_ONLY_KEYS)
    if (settings[key] !== undefined)
      problems.add(
        `${key}: the agent runs its own tools and prompt, so this is not used: remove it, or the agent`,
      );
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
