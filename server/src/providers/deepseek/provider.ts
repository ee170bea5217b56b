/**
 * DeepSeek speaks Chat Completions, so it is the OpenAI provider with DeepSeek's base
 * URL. Two differences matter: `delta.reasoning_content` (deepseek-reasoner's thinking)
 * becomes `reasoningDelta`, which the OpenAI provider already does for any server; and
 * an assistant message that made tool calls must carry its `reasoning_content` in the
 * next request, or DeepSeek answers 400.
 */
import { OpenAIProvider, type OpenAIProviderOptions } from '../openai/provider.js';

export const DEEPSEEK_BASE_URL = 'https://api.deepseek.com';

export function createDeepSeekProvider(
  options: Omit<OpenAIProviderOptions, 'name' | 'sendReasoningBack'>,
): OpenAIProvider {
  return new OpenAIProvider({
    baseURL: DEEPSEEK_BASE_URL,
    ...options,
    name: 'deepseek',
    sendReasoningBack: true,
  });
}
