/**
 * OpenAI's Responses API, and every server that speaks it: the provider, and its entry for
 * the registry with the settings only it reads the way it does (README.md says what it does).
 * It shares the OpenAI client and its key and address; it is only ever chosen by name.
 */
import { ConfigError } from '../../util/setting-values.js';
import { defineProvider, type Env } from '../core/definition.js';
import { maxOutputTokens } from '../core/settings.js';
import { OPENAI_KEY, OPENAI_URL } from '../openai/index.js';
import {
  OpenAIResponsesProvider,
  REASONING_EFFORTS,
  type OpenAIResponsesProviderOptions,
} from './provider.js';

export {
  OPENAI_RESPONSES,
  OpenAIResponsesProvider,
  REASONING_EFFORTS,
  toResponsesInput,
  type OpenAIResponsesProviderOptions,
  type ReasoningEffort,
} from './provider.js';

export const openaiResponses = defineProvider({
  name: 'openai-responses',
  defaultModel: 'gpt-5-mini',
  settings: [
    { variable: OPENAI_KEY, fallback: '', meaning: 'OpenAI key', role: 'key' },
    {
      variable: OPENAI_URL,
      fallback: 'https://api.openai.com/v1',
      meaning: 'any Responses API server',
      role: 'url',
    },
    {
      variable: 'AALIS_MAX_OUTPUT_TOKENS',
      fallback: 'the model limit',
      meaning: 'longest answer of one model round, in tokens',
    },
    {
      variable: 'AALIS_REASONING',
      fallback: 'reasoning models only',
      meaning: `off | default | ${REASONING_EFFORTS.join(' | ')}`,
    },
  ],
  create: ({ env, required, url, patience }) => {
    const baseURL = url(OPENAI_URL);
    const maxTokens = maxOutputTokens(env);
    const reasoning = responsesReasoning(env);
    return {
      provider: new OpenAIResponsesProvider({
        apiKey: required(OPENAI_KEY),
        ...(baseURL ? { baseURL } : {}),
        ...(maxTokens ? { maxOutputTokens: maxTokens } : {}),
        ...(reasoning ? { reasoning } : {}),
        ...patience,
      }),
    };
  },
});

/** `off`, `default`, an effort, or unset (reasoning asked of reasoning models only). */
function responsesReasoning(env: Env): OpenAIResponsesProviderOptions['reasoning'] {
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
