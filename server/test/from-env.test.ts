import { describe, expect, test } from 'vitest';
import { ConfigError, chooseProviderName, providerFromEnv } from '../src/providers/from-env.js';
import { startFakeUpstream } from './fake-upstream.js';
import { drain } from './provider-helpers.js';

describe('choosing the provider from the environment', () => {
  test.each([
    [{}, 'demo'],
    [{ OPENAI_API_KEY: 'sk' }, 'openai'],
    [{ DEEPSEEK_API_KEY: 'sk' }, 'deepseek'],
    [{ OLLAMA_HOST: 'localhost:11434' }, 'ollama'],
    [{ OPENAI_API_KEY: 'sk', AALIS_PROVIDER: 'demo' }, 'demo'],
  ])('%o -> %s', (env, name) => {
    expect(chooseProviderName(env)).toBe(name);
  });

  test('models default per provider, and AALIS_MODEL overrides', () => {
    expect(providerFromEnv({ DEEPSEEK_API_KEY: 'k' }).model).toBe('deepseek-chat');
    expect(providerFromEnv({ OPENAI_API_KEY: 'k', AALIS_MODEL: 'gpt-4.1' }).model).toBe('gpt-4.1');
  });

  test.each([
    [
      { AALIS_PROVIDER: 'gemini' },
      'AALIS_PROVIDER must be one of demo, openai, openai-responses, anthropic, deepseek, ollama; it is "gemini"',
    ],
    [{ AALIS_PROVIDER: 'openai' }, 'OPENAI_API_KEY is required when AALIS_PROVIDER is openai'],
    [{ OLLAMA_HOST: 'http://exa mple:1' }, 'OLLAMA_HOST must be a URL; it is "http://exa mple:1"'],
    [
      { AALIS_IDLE_TIMEOUT_MS: '2m' },
      'AALIS_IDLE_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647; it is "2m"',
    ],
    // Past Node's timer limit a delay fires after 1 ms: "wait longer" would mean "fail at once".
    [
      { AALIS_FIRST_BYTE_TIMEOUT_MS: '3000000000' },
      'AALIS_FIRST_BYTE_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647; it is "3000000000"',
    ],
  ])('%o is refused in one clear line', (env, message) => {
    expect(() => providerFromEnv(env)).toThrow(new ConfigError(message));
  });
});

describe('how long the server waits for the provider', () => {
  test('AALIS_FIRST_BYTE_TIMEOUT_MS reaches the provider: a silent upstream times out after three short attempts', async () => {
    const upstream = await startFakeUpstream([{ hang: true }, { hang: true }, { hang: true }]);
    try {
      const { provider } = providerFromEnv({
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: `${upstream.url}/v1`,
        // Long enough for each attempt's request to reach the fake upstream on a loaded
        // two-core machine (150 ms was not), short enough to keep the test quick.
        AALIS_FIRST_BYTE_TIMEOUT_MS: '400',
      });
      const started = Date.now();
      const { error } = await drain(provider);
      expect(error).toMatchObject({
        kind: 'timeout',
        message: expect.stringMatching(/^openai did not start answering in 0\.\d+ s$/),
      });
      expect(upstream.requests).toHaveLength(3);
      expect(Date.now() - started).toBeLessThan(6_000);
    } finally {
      await upstream.close();
    }
  });
});
