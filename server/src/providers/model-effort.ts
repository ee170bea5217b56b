/**
 * How long a model may answer and how much it reasons, from the environment
 * (`AALIS_MAX_OUTPUT_TOKENS`, `AALIS_REASONING`). Each API says it differently, so the one
 * variable is read per provider, and a value that provider cannot take is refused at start
 * with the values it can.
 */
import { ConfigError, wholeNumber } from '../util/setting-values.js';
import type { AnthropicThinking } from './anthropic.js';
import { REASONING_EFFORTS, type OpenAIResponsesProviderOptions } from './openai-responses.js';

type Env = Record<string, string | undefined>;

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1024;
const MAX_OUTPUT_TOKENS = 1_000_000;

export const maxOutputTokens = (env: Env): number | undefined => {
  const tokens = wholeNumber(env, 'AALIS_MAX_OUTPUT_TOKENS', 0, { max: MAX_OUTPUT_TOKENS, unit: 'tokens' });
  return tokens || undefined;
};

/** `off` (the default), `adaptive`, or a budget of thinking tokens below the output limit. */
export function anthropicThinking(env: Env, maxTokens: number): AnthropicThinking | undefined {
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

/** `off`, `default`, an effort, or unset (reasoning asked of reasoning models only). */
export function responsesReasoning(env: Env): OpenAIResponsesProviderOptions['reasoning'] {
  const value = env.AALIS_REASONING?.trim().toLowerCase();
  if (!value) return undefined;
  const allowed = ['off', 'default', ...REASONING_EFFORTS] as const;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(
      `AALIS_REASONING for openai-responses must be one of ${allowed.join(', ')}; it is "${value}"`,
    );
  }
  return value as (typeof allowed)[number];
}
