/**
 * MCP servers that misbehave, and the rest of the server carrying on: one that exits
 * mid-call, one slow to start, one that cannot start at all, one that does not answer
 * in time, one that changes its list of tools; and close() leaving no process behind.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ToolError, ToolRegistry } from '../src/tools/define-tool.js';
import { McpToolSource, type McpToolSourceOptions } from '../src/tools/mcp/mcp-tool-source.js';
import { fixtureServer, isAlive, recordingLogger, toolContext, waitFor } from './fixtures/mcp/harness.js';

const FAST_RETRY = { initialMs: 100, maxMs: 400 };
let directory: string;
const sources: McpToolSource[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'aalis-mcp-'));
});
afterEach(async () => {
  await Promise.all(sources.splice(0).map((source) => source.close()));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function start(servers: McpToolSourceOptions['servers'], options: Partial<McpToolSourceOptions> = {}) {
  const registry = new ToolRegistry();
  const logger = recordingLogger();
  const source = new McpToolSource({ servers, registry, logger, retry: FAST_RETRY, ...options });
  sources.push(source);
  const run = (name: string, args: unknown = {}) => registry.get(name)!.execute(args, toolContext());
  return { registry, logger, source, run };
}

describe('MCP servers that misbehave', () => {
  test('a stdio server that exits mid-call: the call fails clearly, the server is restarted, later calls work', async () => {
    const { registry, logger, source, run } = start({
      crashy: fixtureServer('crash-once-server', { RUN_COUNT_FILE: join(directory, 'runs') }),
    });
    await source.ready;

    const failed = run('crash-once');
    await expect(failed).rejects.toThrow(ToolError);
    await expect(failed).rejects.toThrow(
      'the MCP server "crashy" stopped while running the tool; it is being restarted',
    );
    // Said once its stderr is read to the end: its exit code and its last words.
    const stopped = await waitFor(
      () => logger.entries.find((entry) => entry.level === 'warn' && entry.object.mcpServer === 'crashy'),
      'the stop logged',
    );
    expect(stopped.object).toMatchObject({
      reason: 'it stopped: the process exited with code 1',
      stderr: ['crashing on purpose'],
    });
    // What the server wrote to stderr also went to the log, line by line, at debug.
    expect(logger.entries).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        object: { mcpServer: 'crashy', stderr: 'crashing on purpose' },
      }),
    );

    await waitFor(() => source.status()[0]?.connected && registry.get('crash-once'), 'the restart');
    await expect(run('crash-once')).resolves.toBe('run 2, no crash');
  });

  test('a slow server joins later; the others are usable meanwhile; one that cannot start is retried and logged', async () => {
    const { registry, logger, source, run } = start({
      slow: fixtureServer('slow-start-server', { START_DELAY_MS: '1500' }),
      quick: fixtureServer('list-changed-server'),
      broken: { command: '/nonexistent/mcp-server' },
    });
    await waitFor(() => registry.get('add-tool'), 'the quick server');
    expect(registry.get('slow-hello')).toBeUndefined();
    await expect(run('add-tool')).resolves.toBe('added added-tool-1');

    await source.ready;
    await expect(run('slow-hello')).resolves.toBe('hello, at last');
    const failures = () =>
      logger.entries.filter((entry) => entry.level === 'warn' && entry.object.mcpServer === 'broken');
    await waitFor(() => failures().length >= 3, 'three failed attempts');
    expect(failures()[0]).toMatchObject({
      object: {
        reason: 'the command "/nonexistent/mcp-server" was not found',
        retryInMs: expect.any(Number),
      },
      message: 'MCP server unavailable: its tools are left out until it is back',
    });
    expect(source.status()).toEqual([
      { server: 'slow', connected: true, tools: ['slow-hello'] },
      { server: 'quick', connected: true, tools: ['add-tool', 'added-tool-1'] },
      { server: 'broken', connected: false, tools: [] },
    ]);
  });

  test('a server that does not answer within the connect timeout is given up on, stopped, and retried', async () => {
    const { logger } = start(
      { sleepy: fixtureServer('slow-start-server', { START_DELAY_MS: '5000' }) },
      { connectTimeoutMs: 300 },
    );
    await waitFor(
      () => logger.entries.find((entry) => entry.object.reason === 'no answer within 0.3 s'),
      'the timeout',
    );
  });

  test('notifications/tools/list_changed updates the registry', async () => {
    const { registry, source, run } = start({ changing: fixtureServer('list-changed-server') });
    await source.ready;
    expect(registry.names).toEqual(['add-tool']);
    await run('add-tool');
    await waitFor(() => registry.get('added-tool-1'), 'the new tool');
    await expect(run('added-tool-1')).resolves.toBe('added-tool-1 ran');
    await run('add-tool');
    await waitFor(() => registry.get('added-tool-2'), 'the second new tool');
    expect(registry.names).toEqual(['add-tool', 'added-tool-1', 'added-tool-2']);
  });

  test('the allow-list offers only the tools it names; a name the server lacks is logged', async () => {
    const { registry, logger, source } = start({
      picky: { ...fixtureServer('cancel-aware-server'), tools: ['echo', 'no-such-tool'] },
    });
    await source.ready;
    expect(registry.names).toEqual(['echo']);
    expect(logger.entries).toContainEqual(
      expect.objectContaining({ object: expect.objectContaining({ notOnServer: ['no-such-tool'] }) }),
    );
  });

  test('close() stops the processes, withdraws the tools and ends the retries', async () => {
    const pidFile = join(directory, 'pid');
    const { registry, logger, source } = start({
      running: fixtureServer('list-changed-server', { PID_FILE: pidFile }),
      broken: { command: '/nonexistent/mcp-server' },
    });
    await source.ready;
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(isAlive(pid)).toBe(true);

    await source.close();
    expect(registry.names).toEqual([]);
    await waitFor(() => !isAlive(pid), 'the process to end');
    const logged = logger.entries.length;
    await new Promise((resolve) => setTimeout(resolve, FAST_RETRY.maxMs * 1.5));
    expect(logger.entries.length).toBe(logged);
  });
});
