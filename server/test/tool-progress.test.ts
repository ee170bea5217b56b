/**
 * A tool's execution progress on real sockets: the demo model calls `build_index`, which
 * reports after each source; every tab gets `tool_execute` `progress` frames, and a tab
 * that joins mid-run gets the latest in `stream_resume`.
 */
import { afterAll, afterEach, expect, test } from 'vitest';
import { DemoProvider } from '../src/providers/demo/index.js';
import { startServer, type Harness } from './ws-harness.js';

const provider = new DemoProvider({ speed: 0 });
afterAll(() => provider.close());
let server: Harness | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

test('progress reaches every tab as it happens, and a tab that joins mid-run sees the latest', async () => {
  server = await startServer({ provider });
  const a = await server.connect();
  const { sessionId } = await a.hello();
  a.send({ type: 'send', text: 'Index the knowledge base' });
  await a.next((f) => f.type === 'tool_execute' && f.phase === 'progress' && f.progress === 2);

  const late = await server.connect();
  await late.hello(sessionId);
  const resume = await late.next((f) => f.type === 'stream_resume');
  const running =
    resume.type === 'stream_resume' ? resume.parts.find((p) => p.type === 'tool_call') : undefined;
  expect(running).toMatchObject({ name: 'build_index', status: 'running', progress: { total: 6 } });
  expect((running as { progress: { progress: number } }).progress.progress).toBeGreaterThanOrEqual(2);

  const done = await a.turnEnd();
  await late.turnEnd();
  const reports = a.of('tool_execute').filter((f) => f.phase === 'progress');
  expect(reports.map((f) => f.progress)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(reports.every((f) => f.total === 6)).toBe(true);
  expect(reports[1]!.message).toBe('Indexing faq');
  // The stored answer keeps the result, not the progress of a finished run.
  const part = done.message.parts.find((p) => p.type === 'tool_call')!;
  expect(part).toMatchObject({ status: 'done', result: { indexed: 6 } });
  expect(part).not.toHaveProperty('progress');
  expect(late.view.messages.at(-1)!.parts).toEqual(a.view.messages.at(-1)!.parts);
});

test('a report after the tool ended, or one that makes no sense, is never sent', async () => {
  const { ProgressReporter } = await import('../src/agent/progress-reporter.js');
  const sent: unknown[] = [];
  const reporter = new ProgressReporter((update) => sent.push(update));
  reporter.report({ progress: -1 });
  reporter.report({ progress: Number.NaN });
  reporter.report({ progress: 1, total: Number.POSITIVE_INFINITY, message: 'x'.repeat(2_000) });
  reporter.stop();
  reporter.report({ progress: 2 });
  expect(sent).toEqual([{ progress: 1, message: 'x'.repeat(500) }]);
});
