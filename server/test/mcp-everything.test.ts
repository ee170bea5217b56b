/**
 * Tools from the MCP reference server (`@modelcontextprotocol/server-everything`, which
 * this project did not write) over stdio, through the ToolRegistry the agent reads:
 * names, calls, progress, Stop, images, structured content, tool errors, and the
 * environment the server is started with.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { builtinTools } from '../src/tools/builtin/index.js';
import { ToolError, ToolRegistry } from '../src/tools/define-tool.js';
import { McpToolSource } from '../src/tools/mcp/mcp-tool-source.js';
import type { McpToolOutput } from '../src/tools/mcp/tool-result.js';
import { everythingOverStdio, recordingLogger, toolContext } from './fixtures/mcp/harness.js';

const SECRET = 'sk-secret-test';
const registry = new ToolRegistry(builtinTools());
const logger = recordingLogger();
let source: McpToolSource;
let savedKey: string | undefined;

beforeAll(async () => {
  // Set before the server starts: it must not see it.
  savedKey = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = SECRET;
  source = new McpToolSource({
    servers: { everything: everythingOverStdio({ GREETING: 'configured-value' }) },
    registry,
    logger,
  });
  await source.ready;
});

afterAll(async () => {
  await source.close();
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY;
  else process.env.OPENAI_API_KEY = savedKey;
});

const run = (name: string, args: unknown, context = toolContext()) => {
  const valid = registry.validate(name, args);
  if (!valid.ok) throw new Error(valid.message);
  return registry.get(name)!.execute(args, context);
};

describe('the reference server over stdio', () => {
  test('its tools are offered under their own names, beside the built-in ones, with their schemas', () => {
    expect(registry.names).toEqual(
      expect.arrayContaining(['get-sum', 'echo', 'get-env', 'get-tiny-image', 'calculator', 'get_time']),
    );
    // Task-only tools cannot be started by tools/call: never offered.
    expect(registry.names).not.toContain('simulate-research-query');
    const spec = registry.specs().find((tool) => tool.name === 'get-sum')!;
    expect(spec.description).toBe('Returns the sum of two numbers');
    expect(spec.parameters).toMatchObject({ type: 'object', required: ['a', 'b'] });
    expect(spec.parameters).not.toHaveProperty('$schema');
    expect(source.originOf('get-sum')).toEqual({ server: 'everything', tool: 'get-sum' });
    expect(source.status()).toEqual([
      expect.objectContaining({
        server: 'everything',
        connected: true,
        tools: expect.arrayContaining(['echo']),
      }),
    ]);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ level: 'info', message: 'MCP server connected' }),
    );
  });

  test('get-sum runs through the registry, its schema checked first', async () => {
    expect(registry.validate('get-sum', { a: 1 })).toMatchObject({ ok: false });
    await expect(run('get-sum', { a: 2, b: 3 })).resolves.toBe('The sum of 2 and 3 is 5.');
  });

  test('progress reaches the tool context, with its total', async () => {
    const updates: unknown[] = [];
    const result = await run(
      'trigger-long-running-operation',
      { duration: 1, steps: 4 },
      toolContext({ progress: (update) => updates.push(update) }),
    );
    expect(result).toMatch(/Long running operation completed/);
    // The last step's report may race the result; the first three always come first.
    expect(updates.slice(0, 3)).toEqual([
      { progress: 1, total: 4 },
      { progress: 2, total: 4 },
      { progress: 3, total: 4 },
    ]);
  });

  test('an abort ends the call at once; the server stays usable', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const call = run(
      'trigger-long-running-operation',
      { duration: 2, steps: 4 },
      toolContext({ signal: controller.signal }),
    );
    setTimeout(() => controller.abort(new Error('stopped by the user')), 200);
    await expect(call).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(run('echo', { message: 'still here' })).resolves.toBe('Echo: still here');
  });

  test('an image comes back as image content, with the text around it', async () => {
    const result = (await run('get-tiny-image', {})) as McpToolOutput;
    expect(result.content).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
    expect(result.images).toEqual([
      { type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) },
    ]);
  });

  test('structured content is kept; its JSON copy in a text block is not repeated', async () => {
    await expect(run('get-structured-content', { location: 'Chicago' })).resolves.toEqual({
      structured: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
    });
  });

  test('an isError result is a ToolError with the server’s words', async () => {
    // Past the registry's check, as a schema the two sides read differently would be.
    const call = registry.get('get-sum')!.execute({ a: 'two', b: 3 }, toolContext());
    await expect(call).rejects.toThrow(ToolError);
    await expect(call).rejects.toThrow(/Input validation error.*expected number/);
  });

  test('the server sees its configured environment and the safe set, never ours', async () => {
    const environment = JSON.parse((await run('get-env', {})) as string) as Record<string, string>;
    expect(JSON.stringify(environment)).not.toContain(SECRET);
    expect(environment.OPENAI_API_KEY).toBeUndefined();
    expect(environment.GREETING).toBe('configured-value');
    expect(environment.PATH).toBe(process.env.PATH);
    const safeSet = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
    // Node itself may add a few of its own (none of ours): nothing else of this process's.
    const inherited = Object.keys(environment).filter(
      (name) => name !== 'GREETING' && !safeSet.includes(name) && process.env[name] === environment[name],
    );
    expect(inherited).toEqual([]);
  });
});
