/**
 * SIGTERM to the real `aalis-server` in the middle of an answer, without a drain
 * (`AALIS_DRAIN_MS=0`: drain.test.ts has the default), then a start on the same data
 * directory. What must hold: the stored answer says the server stopped it (not the
 * visitor's Stop), and a reloaded page shows so.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { fixture, startFakeUpstream, type FakeUpstream } from '../fake-upstream.js';
import { startCli } from '../cli-harness.js';
import { TestClient } from '../ws-harness.js';

let upstream: FakeUpstream | undefined;
let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  child?.kill('SIGKILL');
  await upstream?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** Starts the command on the fake upstream; resolves with its ws:// URL. */
async function start(): Promise<string> {
  const cli = await startCli({
    PORT: '0',
    AALIS_DATA_DIR: dataDir!,
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: `${upstream!.url}/v1`,
    AALIS_DRAIN_MS: '0',
  });
  child = cli.child;
  return `${cli.base.replace('http', 'ws')}/ws`;
}

test('without a drain, a turn stopped by SIGTERM is stored as stopped by the server, and a restart shows it', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'aalis-sigterm-'));
  upstream = await startFakeUpstream([
    { body: fixture('openai-long-tool-call.sse'), pieces: 600, delayMs: 5 },
  ]);
  let client = await TestClient.open(await start());
  const { sessionId, anonymousKey } = await client.hello();
  client.send({ type: 'send', text: 'write the long file' });
  await client.next((f) => f.type === 'stream' && !!f.toolCallProgress);
  const exited = new Promise((resolve) => child!.on('close', resolve));
  child!.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(client.of('error')).toEqual([expect.objectContaining({ code: 'shutting_down', sessionId })]);
  expect(client.of('message')[0]?.message).toMatchObject({
    status: 'error',
    error: { code: 'shutting_down' },
  });

  client = await TestClient.open(await start());
  // The same browser, with the key the server gave it.
  const ready = await client.hello(sessionId, undefined, anonymousKey);
  expect(ready.messages.map((m) => [m.role, m.status ?? null, m.error?.code ?? null])).toEqual([
    ['user', null, null],
    ['assistant', 'error', 'shutting_down'],
  ]);
  client.socket.close();
});
