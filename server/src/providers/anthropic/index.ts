/**
 * Anthropic's Messages API: the provider, and its entry for the registry with the
 * settings only it reads the way it does (README.md says what it does).
 */
import { ConfigError } from '../../util/setting-values.js';
import { defineProvider, type Env } from '../core/definition.js';
import { maxOutputTokens } from '../core/settings.js';
import { AnthropicProvider, DEFAULT_ANTHROPIC_MAX_TOKENS, type AnthropicThinking } from './provider.js';

export {
  AnthropicProvider,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  type AnthropicProviderOptions,
  type AnthropicThinking,
} from './provider.js';
export { toAnthropicMessages } from './messages.js';

const KEY = 'ANTHROPIC_API_KEY';
const URL_VARIABLE = 'ANTHROPIC_BASE_URL';
/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;

export const anthropic = defineProvider({
  name: 'anthropic',
  defaultModel: 'claude-haiku-4-5',
  selectedBy: KEY,
  settings: [
    {
      variable: KEY,
      fallback: '',
      meaning: 'Anthropic key (selects anthropic: the Messages API)',
      role: 'key',
    },
    {
      variable: URL_VARIABLE,
      fallback: 'https://api.anthropic.com',
      meaning: 'Anthropic API address',
      role: 'url',
    },
    {
      variable: 'AALIS_MAX_OUTPUT_TOKENS',
      fallback: String(DEFAULT_ANTHROPIC_MAX_TOKENS),
      meaning: 'longest answer of one model round, in tokens',
    },
    { variable: 'AALIS_REASONING', fallback: 'off', meaning: 'off | adaptive | thinking budget in tokens' },
  ],
  create: ({ env, required, url, patience }) => {
    const baseURL = url(URL_VARIABLE);
    const maxTokens = maxOutputTokens(env) ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
    const thinking = anthropicThinking(env, maxTokens);
    return {
      provider: new AnthropicProvider({
        apiKey: required(KEY),
        ...(baseURL ? { baseURL } : {}),
        maxTokens,
        ...(thinking ? { thinking } : {}),
        ...patience,
      }),
    };
  },
});

/** `off` (the default), `adaptive`, or a budget of thinking tokens below the output limit. */
function anthropicThinking(env: Env, maxTokens: number): AnthropicThinking | undefined {
  const value = env.AALIS_REASONING?.trim().toLowerCase();
  if (!value || value === 'off') return undefined;
  if (value === 'adaptive') return { type: 'adaptive' };
  const budget = Number(value);
  if (!/^\d+$/.test(value) || budget < MIN_THINKING_BUDGET || budget >= maxTokens) {
    throw new ConfigError(
      `AALIS_REASONING for anthropic must be off, adaptive, or a thinking budget in tokens from ${MIN_THINKING_BUDGET} to below AALIS_MAX_OUTPUT_TOKENS (${maxTokens}); it is "${value}"`,
    );
  }
  return { type: 'budget', budgetTokens: budget };
}
