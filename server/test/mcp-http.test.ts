/**
 * The MCP reference server over Streamable HTTP, started on a free loopback port, beside
 * a stdio server with a tool of the same name: colliding names take their server's
 * prefix, calls and progress work over HTTP, Stop reaches a stdio server as
 * notifications/cancelled, and a server that goes away takes its tools with it.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { builtinTools } from '../src/tools/builtin/index.js';
import { ToolError, ToolRegistry } from '../src/tools/define-tool.js';
import { McpToolSource } from '../src/tools/mcp/mcp-tool-source.js';
import {
  fixtureServer,
  recordingLogger,
  startEverythingOverHttp,
  toolContext,
  waitFor,
  type HttpEverything,
} from './fixtures/mcp/harness.js';

/** Silence after which a call is cancelled: short here, progress every 200 ms resets it. */
const CALL_TIMEOUT_MS = 800;
const registry = new ToolRegistry(builtinTools());
const logger = recordingLogger();
let remote: HttpEverything;
let source: McpToolSource;
let directory: string;
let cancelFile: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'aalis-mcp-http-'));
  cancelFile = join(directory, 'cancelled');
  remote = await startEverythingOverHttp();
  source = new McpToolSource({
    servers: {
      remote: { url: remote.url },
      local: fixtureServer('cancel-aware-server', { CANCEL_FILE: cancelFile }),
    },
    registry,
    logger,
    retry: { initialMs: 100, maxMs: 400 },
    callTimeoutMs: CALL_TIMEOUT_MS,
  });
  await source.ready;
});

afterAll(async () => {
  await source.close();
  await remote.stop();
  await rm(directory, { recursive: true, force: true });
});

const readIfThere = (file: string) => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

const run = (name: string, args: unknown, context = toolContext()) => {
  const valid = registry.validate(name, args);
  if (!valid.ok) throw new Error(valid.message);
  return registry.get(name)!.execute(args, context);
};

describe('a Streamable HTTP server beside a stdio one', () => {
  test('a name both servers have takes each server’s prefix; the others keep their own', () => {
    expect(registry.names).toEqual(
      expect.arrayContaining(['remote_echo', 'local_echo', 'get-sum', 'wait-for-cancel', 'calculator']),
    );
    expect(registry.names).not.toContain('echo');
    expect(source.originOf('remote_echo')).toEqual({ server: 'remote', tool: 'echo' });
    expect(source.originOf('local_echo')).toEqual({ server: 'local', tool: 'echo' });
  });

  test('calls work over HTTP; each prefixed name reaches its own server', async () => {
    await expect(run('get-sum', { a: 40, b: 2 })).resolves.toBe('The sum of 40 and 2 is 42.');
    await expect(run('remote_echo', { message: 'hi' })).resolves.toBe('Echo: hi');
    await expect(run('local_echo', {})).resolves.toBe('local echo');
  });

  test('progress over HTTP reaches the context and keeps a call longer than the silence limit alive', async () => {
    const updates: unknown[] = [];
    const started = Date.now();
    await expect(
      run(
        'trigger-long-running-operation',
        { duration: 1.2, steps: 6 },
        toolContext({ progress: (update) => updates.push(update) }),
      ),
    ).resolves.toMatch(/completed/);
    expect(Date.now() - started).toBeGreaterThan(CALL_TIMEOUT_MS);
    expect(updates[0]).toEqual({ progress: 1, total: 6 });
  });

  test('a call silent for longer than the limit is cancelled with a clear tool error', async () => {
    await rm(cancelFile, { force: true });
    const call = run('wait-for-cancel', {});
    await expect(call).rejects.toThrow(ToolError);
    await expect(call).rejects.toThrow(
      'the MCP server "local" sent neither a result nor progress for 0.8 s; the call was cancelled',
    );
    await waitFor(() => readIfThere(cancelFile) === 'cancelled', 'the server to see the cancellation');
  });

  test('Stop cancels the MCP request: the server hears notifications/cancelled', async () => {
    const controller = new AbortController();
    const call = run('wait-for-cancel', {}, toolContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('stopped')), 100);
    await expect(call).rejects.toThrow();
    await waitFor(() => readIfThere(cancelFile) === 'cancelled', 'the server to see the cancellation');
  });

  test('a server that goes away fails the call clearly and takes its tools with it', async () => {
    await remote.stop();
    const call = run('get-sum', { a: 1, b: 2 });
    await expect(call).rejects.toThrow(ToolError);
    await expect(call).rejects.toThrow(
      'the MCP server "remote" could not be reached; it is being reconnected',
    );
    // No collision left: the stdio server's echo is offered under its own name again.
    await waitFor(() => registry.names.includes('echo') && !registry.names.includes('get-sum'), 'the names');
    expect(source.originOf('echo')).toEqual({ server: 'local', tool: 'echo' });
    await waitFor(
      () => logger.entries.some((entry) => entry.level === 'warn' && entry.object.mcpServer === 'remote'),
      'the warning',
    );
  });
});
