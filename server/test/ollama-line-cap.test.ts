/**
 * Ollama's NDJSON lines are bounded: a line longer than the cap (a whole tool call that
 * never ends, a runaway answer) ends the round as `too_large`, like the session's own
 * caps on the OpenAI path, not as a failure of the model service. A fake Ollama on
 * loopback writes the real wire format.
 */
import type { ChatMessage } from '@aalis/protocol';
import { afterEach, expect, test } from 'vitest';
import { Agent } from '../src/agent/agent.js';
import { OllamaProvider } from '../src/providers/ollama/index.js';
import { builtinTools } from '../src/tools/builtin/index.js';
import { ToolRegistry } from '../src/tools/define-tool.js';
import { Workspace } from '../src/tools/workspace.js';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.js';
import { FAST_RETRY, drain, textOf } from './provider-helpers.js';

let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
const content = (text: string) =>
  line({ model: 'm', message: { role: 'assistant', content: text }, done: false });
const doneLine = line({ model: 'm', message: { role: 'assistant', content: '' }, done: true, eval_count: 1 });

test('a line over the cap is too_large; the lines before it were delivered', async () => {
  upstream = await startFakeUpstream([
    { body: content('Hi') + content('x'.repeat(5_000)) + doneLine, pieces: 7 },
  ]);
  const provider = new OllamaProvider({ host: upstream.url, retry: FAST_RETRY, maxLineChars: 1_000 });
  const { chunks, error } = await drain(provider);
  expect(textOf(chunks, 'contentDelta')).toBe('Hi');
  expect(chunks.some((c) => c.done)).toBe(false);
  expect(error).toMatchObject({
    kind: 'too_large',
    message: 'ollama sent a line longer than 1000 characters',
  });
  // Not retried: the answer had started.
  expect(upstream.requests).toHaveLength(1);
});

// It writes and parses 9 MiB: about 2 s alone, more beside the other test files, so its own timeout.
test(
  'a tool call over the default 8 MiB line ends the turn too_large, and never runs',
  { timeout: 20_000 },
  async () => {
    const hugeCall = line({
      model: 'm',
      message: {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            function: {
              name: 'write_file',
              arguments: { path: 'big.txt', content: 'z'.repeat(9 * 1024 * 1024) },
            },
          },
        ],
      },
      done: false,
    });
    upstream = await startFakeUpstream([{ body: content('Saving.') + hugeCall + doneLine, pieces: 40 }]);
    const agent = new Agent({
      provider: new OllamaProvider({ host: upstream.url, retry: FAST_RETRY }),
      model: 'm',
      tools: new ToolRegistry(builtinTools()),
      logger: { error: () => {} },
    });
    const ran: unknown[] = [];
    agent.on('tool:execute', (event) => ran.push(event));
    const history: ChatMessage[] = [
      { id: 'u', role: 'user', parts: [{ type: 'text', text: 'save' }], createdAt: 0 },
    ];
    const { message, error } = await agent.runTurn({
      sessionId: 's',
      history,
      signal: new AbortController().signal,
      workspace: new Workspace(),
    });
    expect(error).toMatchObject({ code: 'too_large', errorId: expect.any(String) });
    expect(message).toMatchObject({ status: 'error', error: { code: 'too_large' } });
    expect(message.parts).toEqual([{ type: 'text', text: 'Saving.' }]);
    expect(ran).toEqual([]);
  },
);
