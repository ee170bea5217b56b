/**
 * The model tokens a turn used: the provider's usage, summed by the agent over the turn's
 * rounds; when the provider reports none (some OpenAI-compatible servers, a stream cut
 * off before its usage chunk), an estimate of one token per 4 characters of the text,
 * reasoning and tool arguments it streamed. The estimate leaves out the prompt (history
 * and tool results the model read), so it undercounts: prefer providers that report usage.
 */
import type { Usage } from '@aalis/protocol';

export const CHARS_PER_TOKEN = 4;

export function turnTokens(
  usage: Usage | undefined,
  streamedChars: number,
): { tokens: number; estimated: boolean } {
  if (usage) return { tokens: usage.totalTokens, estimated: false };
  return { tokens: Math.ceil(streamedChars / CHARS_PER_TOKEN), estimated: true };
}
