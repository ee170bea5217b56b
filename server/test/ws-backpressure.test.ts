/**
 * A reader that stops reading while the model streams megabytes: its queued progress
 * collapses to the newest value, and every character of text still arrives, in order.
 */
import type { Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { completionChunk, sse, usageChunk } from './fake-upstream.js';
import { startServer, type Harness } from './ws-harness.js';

let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('a slow reader: progress collapses, content arrives whole and in order', async () => {
  const pieces = Array.from(
    { length: 12_000 },
    (_, i) => `${String(i).padStart(5, '0')}:${'x'.repeat(995)}|`,
  );
  const spaces = 2_000;
  const round = sse([
    completionChunk({ role: 'assistant', content: '' }),
    ...pieces.map((content) => completionChunk({ content })),
    completionChunk({
      tool_calls: [
        { index: 0, id: 'call_s', type: 'function', function: { name: 'get_time', arguments: '{' } },
      ],
    }),
    // The arguments grow one blank at a time: 2,000 progress-only frames in a row.
    ...Array.from({ length: spaces }, () =>
      completionChunk({ tool_calls: [{ index: 0, function: { arguments: ' ' } }] }),
    ),
    completionChunk({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }),
    completionChunk({}, 'tool_calls'),
    usageChunk(10, 10),
  ]);
  const answer = sse([completionChunk({ content: 'done' }), completionChunk({}, 'stop')]);
  server = await startServer({
    replies: [{ body: round }, { body: answer }],
    // Twelve megabytes of text: above the default per-turn cap, which has its own test.
    sessions: { maxTurnChars: 20_000_000 },
    connection: {
      outbox: {
        softLimitBytes: 64 * 1024,
        hardLimitBytes: 64 * 1024 * 1024,
        maxBehindMs: 60_000,
        drainIntervalMs: 10,
      },
    },
  });
  const reader = await server.connect();
  await reader.hello();
  // Stop reading: the kernel buffers fill, then the server's socket buffer grows. A reader
  // that does not read keeps a small receive window, and the send buffer tops out at
  // net.ipv4.tcp_wmem's maximum (4 MiB here), so 12 MB of text is sure to back up.
  const tcp = (reader.socket as unknown as { _socket: Socket })._socket;
  tcp.pause();
  reader.send({ type: 'send', text: 'stream a lot' });
  // Let the whole first round arrive at the server and queue up: the second round's
  // request comes once the first has been read to its end.
  await server.upstream!.request(1);
  tcp.resume();
  await reader.turnEnd();

  const streams = reader.of('stream');
  const text = streams.map((f) => f.contentDelta ?? '').join('');
  expect(text).toBe(pieces.join('') + 'done');
  const progress = streams.flatMap((f) => (f.toolCallProgress ? [f.toolCallProgress.charsAccumulated] : []));
  // Fewer progress frames than fragments, the values only grow, and the last one is exact.
  expect(progress.length).toBeLessThan(spaces / 2);
  expect(progress.every((n, i) => i === 0 || n > progress[i - 1]!)).toBe(true);
  expect(progress.at(-1)).toBe(spaces + 2);
  expect(reader.of('tool_execute').map((t) => t.phase)).toEqual(['start', 'end']);
}, 30_000);
