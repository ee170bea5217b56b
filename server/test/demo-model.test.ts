import { readFileSync } from 'node:fs';
import type { ChatMessage, ToolCallPart } from '@aalis/protocol';
import { afterAll, describe, expect, test } from 'vitest';
import { Agent, type ToolExecuteEvent } from '../src/agent/agent.js';
import { DEMO_MODEL, DemoProvider } from '../src/providers/demo/index.js';
import { pickScenario, scenarios } from '../src/providers/demo/scenarios.js';
import { builtinTools } from '../src/tools/builtin/index.js';
import { ToolRegistry } from '../src/tools/define-tool.js';
import { Workspace } from '../src/tools/workspace.js';
import { drain, progressOf, request } from './provider-helpers.js';

const fast = new DemoProvider({ speed: 0 });
afterAll(() => fast.close());

async function turn(text: string, provider = fast) {
  const agent = new Agent({
    provider,
    model: DEMO_MODEL,
    tools: new ToolRegistry(builtinTools()),
    // No error is expected here: one would show in the test's output.
    logger: { error: (object, message) => console.error(message, object) },
  });
  const progress: number[] = [];
  const progressAt: number[] = [];
  const tools: ToolExecuteEvent[] = [];
  agent.on('outbound:stream', (chunk) => {
    if (chunk.toolCallProgress) {
      progress.push(chunk.toolCallProgress.charsAccumulated);
      progressAt.push(performance.now());
    }
  });
  agent.on('tool:execute', (event) => tools.push(event));
  const history: ChatMessage[] = [{ id: 'u', role: 'user', parts: [{ type: 'text', text }], createdAt: 0 }];
  const workspace = new Workspace();
  const result = await agent.runTurn({
    sessionId: 's',
    history,
    signal: new AbortController().signal,
    workspace,
  });
  return { ...result, progress, progressAt, tools, workspace };
}

const textOf = (message: ChatMessage) => message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
const calls = (message: ChatMessage) =>
  message.parts.filter((p): p is ToolCallPart => p.type === 'tool_call');

describe('the demo model', () => {
  test('each scenario is picked by its own prompt, and anything else gets the guide', () => {
    for (const scenario of scenarios) expect(pickScenario(scenario.prompt).id).toBe(scenario.id);
    expect(pickScenario('bonjour').id).toBe('guide');
    expect(pickScenario('帮我写一个文件').id).toBe('long-tool-call');
  });

  test('speaks real Chat Completions through the OpenAI provider: progress, done, usage', async () => {
    const { chunks, error } = await drain(
      fast,
      request({ messages: [{ role: 'user', content: 'weather please' }] }),
    );
    expect(error).toBeUndefined();
    expect(new Set(progressOf(chunks).map((p) => p.index))).toEqual(new Set([0, 1, 2]));
    const done = chunks.at(-1)!;
    expect(done.toolCalls?.map((c) => c.name)).toEqual(['get_weather', 'get_weather', 'get_time']);
    expect(done.usage?.totalTokens).toBeGreaterThan(0);
  });

  test('a question with images: it says what reached it, each image read from its data URL', async () => {
    const png = readFileSync(new URL('./fixtures/images/chart.png', import.meta.url));
    const { chunks, error } = await drain(
      fast,
      request({
        messages: [
          {
            role: 'user',
            content: 'What is this?',
            images: [{ mimeType: 'image/png', data: png.toString('base64') }],
          },
        ],
      }),
    );
    expect(error).toBeUndefined();
    const text = chunks.map((c) => c.contentDelta ?? '').join('');
    expect(text).toContain('You asked: “What is this?”');
    expect(text).toContain(`| 1 | image/png | 40 × 30 | ${(png.length / 1024).toFixed(1)} KB |`);
  });

  test('markdown: a table and a code block, no tools', async () => {
    const { message, tools } = await turn('Show me markdown');
    expect(tools).toEqual([]);
    expect(textOf(message)).toContain('| provider | progress | notes |');
    expect(textOf(message)).toContain('```ts');
  });

  test('long tool call: about 4,000 characters of arguments, written fragment by fragment, then saved', async () => {
    const { message, progress, workspace } = await turn('Write a long report about caching to a file');
    expect(progress.length).toBeGreaterThan(200);
    expect(progress.at(-1)).toBeGreaterThan(4_000);
    expect(workspace.read('report.md')).toHaveLength(4_000);
    expect(textOf(message)).toContain('`report.md` holds 4000 characters');
  });

  test('parallel tools: three calls in one round, all run, the answer uses their results', async () => {
    const { message, tools } = await turn("What's the weather in Paris and Tokyo?");
    expect(tools.slice(0, 3).map((t) => t.phase)).toEqual(['start', 'start', 'start']);
    expect(calls(message).map((c) => [c.name, c.status])).toEqual([
      ['get_weather', 'done'],
      ['get_weather', 'done'],
      ['get_time', 'done'],
    ]);
    expect(textOf(message)).toMatch(/\*\*Paris\*\*: -?\d+(\.\d)? °C/);
  });

  test('reasoning first, then a tool call, then the answer from its result', async () => {
    const { message } = await turn('Think: what is (17 * 23) + 2^10?');
    expect(message.parts.map((p) => p.type)).toEqual(['reasoning', 'tool_call', 'reasoning', 'text']);
    expect(textOf(message)).toContain('**1415**');
  });

  test('a failing tool: the error reaches the model, which explains it', async () => {
    const { message } = await turn('Make a tool fail');
    expect(calls(message)[0]).toMatchObject({ status: 'error', result: 'division by zero' });
    expect(textOf(message)).toContain('The calculator refused: _Error: division by zero_');
  });

  test('the stall: a long silence in the middle of the tool call (10 s, here at 100x speed)', async () => {
    const quick = new DemoProvider({ speed: 100 });
    try {
      const { progressAt, message } = await turn('stall please', quick);
      const gaps = progressAt.slice(1).map((t, i) => t - progressAt[i]!);
      expect(Math.max(...gaps)).toBeGreaterThanOrEqual(90);
      expect(message.status).toBe('complete');
    } finally {
      await quick.close();
    }
  });

  test('anything else: a guide to the keywords', async () => {
    const { message } = await turn('hello there');
    for (const scenario of scenarios) expect(textOf(message)).toContain(`**${scenario.keywords[0]}**`);
  });
});
