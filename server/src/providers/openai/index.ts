/**
 * OpenAI's Chat Completions, and every server that speaks it (`OPENAI_BASE_URL`): the
 * provider, and its entry for the registry (README.md says what it does).
 */
import { defineProvider } from '../core/definition.js';
import { OpenAIProvider } from './provider.js';

export { OpenAIProvider, type OpenAIProviderOptions } from './provider.js';
export { createOpenAIClient, openAIMidStreamError, openAIRequestError } from './client.js';

export const OPENAI_KEY = 'OPENAI_API_KEY';
export const OPENAI_URL = 'OPENAI_BASE_URL';

export const openai = defineProvider({
  name: 'openai',
  defaultModel: 'gpt-4o-mini',
  selectedBy: OPENAI_KEY,
  settings: [
    { variable: OPENAI_KEY, fallback: '', meaning: 'OpenAI key (selects openai)', role: 'key' },
    {
      variable: OPENAI_URL,
      fallback: 'https://api.openai.com/v1',
      meaning: 'any Chat Completions server (openai) or Responses API server (openai-responses)',
      role: 'url',
    },
  ],
  create: ({ required, url, patience }) => {
    const baseURL = url(OPENAI_URL);
    return {
      provider: new OpenAIProvider({
        apiKey: required(OPENAI_KEY),
        ...(baseURL ? { baseURL } : {}),
        ...patience,
      }),
    };
  },
});
