/**
 * DeepSeek: the OpenAI provider with DeepSeek's address and its one difference (README.md),
 * and its entry for the registry.
 */
import { defineProvider } from '../core/definition.js';
import { DEEPSEEK_BASE_URL, createDeepSeekProvider } from './provider.js';

export { createDeepSeekProvider } from './provider.js';

const KEY = 'DEEPSEEK_API_KEY';
const URL_VARIABLE = 'DEEPSEEK_BASE_URL';

export const deepseek = defineProvider({
  name: 'deepseek',
  defaultModel: 'deepseek-chat',
  selectedBy: KEY,
  settings: [
    { variable: KEY, fallback: '', meaning: 'DeepSeek key (selects deepseek)', role: 'key' },
    { variable: URL_VARIABLE, fallback: DEEPSEEK_BASE_URL, meaning: 'DeepSeek API address', role: 'url' },
  ],
  create: ({ required, url, patience }) => {
    const baseURL = url(URL_VARIABLE);
    return {
      provider: createDeepSeekProvider({
        apiKey: required(KEY),
        ...(baseURL ? { baseURL } : {}),
        ...patience,
      }),
    };
  },
});
