/**
 * The `provider` block: which model, its key and address, and how long to wait for it.
 * The provider reads these as variables (`providerFromEnv`); the file's block reaches it
 * as the variables each key stands for (file-environment.ts).
 */
import { MAX_TIMER_MS } from '../../util/setting-values.js';
import { DEFAULT_MODELS, PROVIDER_NAMES, UPSTREAM_TIMEOUT_VARIABLES } from '../../providers/from-env.js';
import { PROVIDERS, type ProviderName } from '../../providers/registry.js';
import { variable, type Block, type Setting, type Variable } from './setting.js';

/**
 * The variables a provider's key or address is read from, as the provider folders declare
 * them (providers/registry.ts): one entry per variable, with every provider that reads it,
 * in the registry's order. A new provider's variables reach --help, the schema and the
 * README from its own folder.
 */
function roleVariables(role: 'key' | 'url'): Variable[] {
  const byName = new Map<string, { help: string; fallback: string; providers: ProviderName[] }>();
  for (const provider of PROVIDERS) {
    for (const setting of provider.settings) {
      if (setting.role !== role) continue;
      const seen = byName.get(setting.variable);
      if (seen) seen.providers.push(provider.name);
      else
        byName.set(setting.variable, {
          help: setting.meaning,
          fallback: setting.fallback,
          providers: [provider.name],
        });
    }
  }
  return [...byName].map(([name, { help, fallback, providers }]) =>
    variable(name, help, { ...(fallback ? { fallback } : {}), providers }),
  );
}

export const PROVIDER_BLOCK: Block = {
  key: 'provider',
  description: 'The model: which provider, which model, its key and address, and how long to wait for it.',
  schema: { dependencies: { apiKey: ['name'], baseUrl: ['name'] } },
};

/** The file's key of each upstream timeout, by its variable. */
const TIMEOUT_KEYS: Record<string, string> = {
  AALIS_FIRST_BYTE_TIMEOUT_MS: 'firstByteTimeoutMs',
  AALIS_IDLE_TIMEOUT_MS: 'idleTimeoutMs',
  AALIS_RETRY_AFTER_MAX_MS: 'retryAfterMaxMs',
};

export const PROVIDER_SETTINGS: Setting[] = [
  {
    key: 'provider.name',
    variables: [variable('AALIS_PROVIDER', PROVIDER_NAMES.join(' | '))],
    schema: { enum: [...PROVIDER_NAMES] },
    description:
      'which provider: openai is Chat Completions, openai-responses the Responses API, anthropic the Messages API.',
    fallback:
      'the first of OPENAI_API_KEY, ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, OLLAMA_HOST that is set, else demo',
  },
  {
    key: 'provider.model',
    variables: [variable('AALIS_MODEL', 'model name')],
    schema: { type: 'string', minLength: 1 },
    description: 'the model.',
    fallback: Object.entries(DEFAULT_MODELS)
      .map(([provider, model]) => `${provider}: ${model}`)
      .join(', '),
  },
  {
    key: 'provider.apiKey',
    variables: roleVariables('key'),
    schema: { type: 'string' },
    description:
      'the key, by provider.name (ollama and demo take none). Keep it out of the file: "${OPENAI_API_KEY}".',
    mask: 'secret',
  },
  {
    key: 'provider.baseUrl',
    variables: roleVariables('url'),
    schema: { type: 'string', minLength: 1 },
    description:
      "the provider's address, by provider.name: any Chat Completions server for openai, any Responses API server for openai-responses.",
    mask: 'url',
  },
  {
    key: 'provider.maxOutputTokens',
    variables: [variable('AALIS_MAX_OUTPUT_TOKENS', 'longest answer of one model round, in tokens')],
    schema: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    description: 'the longest answer of one model round, in tokens (anthropic, openai-responses).',
    fallback: 'anthropic: 8192; openai-responses: the model limit',
  },
  {
    key: 'provider.reasoning',
    variables: [
      variable(
        'AALIS_REASONING',
        'anthropic: off | adaptive | thinking budget in tokens; openai-responses: off | default | none | minimal | low | medium | high | xhigh',
      ),
    ],
    schema: {
      anyOf: [
        { type: 'string', minLength: 1 },
        { type: 'integer', minimum: 1 },
      ],
    },
    description:
      'anthropic takes off, adaptive, or a thinking budget in tokens (at least 1024, below maxOutputTokens); openai-responses takes off, default, none, minimal, low, medium, high or xhigh.',
    fallback: 'anthropic: off; openai-responses: reasoning models only',
  },
  ...UPSTREAM_TIMEOUT_VARIABLES.map(([name, fallbackMs, meaning]): Setting => ({
    key: `provider.${TIMEOUT_KEYS[name]}`,
    variables: [variable(name, meaning)],
    schema: { type: 'integer', minimum: 1, maximum: MAX_TIMER_MS },
    description: `${meaning}.`,
    default: fallbackMs,
    unit: 'milliseconds',
  })),
];
