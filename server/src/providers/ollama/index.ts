/**
 * Ollama's native `/api/chat` (NDJSON): the provider, and its entry for the registry
 * (README.md says what it does).
 */
import { defineProvider } from '../core/definition.js';
import { OllamaProvider } from './provider.js';

export { OLLAMA_DEFAULT_HOST, OllamaProvider, type OllamaProviderOptions } from './provider.js';

const HOST = 'OLLAMA_HOST';

export const ollama = defineProvider({
  name: 'ollama',
  defaultModel: 'qwen3:8b',
  selectedBy: HOST,
  settings: [
    {
      variable: HOST,
      fallback: '',
      meaning: 'Ollama address, e.g. http://127.0.0.1:11434 (selects ollama)',
      role: 'url',
    },
  ],
  create: ({ url, patience }) => {
    const host = url(HOST);
    return { provider: new OllamaProvider({ ...(host ? { host } : {}), ...patience }) };
  },
});
