/**
 * Tools run at most once (agent/run-once.ts): a call the log already has is not run
 * again, a call that cannot be recorded is not run at all, and a failure to record the
 * end of a call that ran changes nothing for the turn. The log here is the SQLite
 * history's, as a server keeps it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ALREADY_RUN, NOT_RECORDED, runOnce, type ToolExecutionLog } from '../src/agent/run-once.js';
import { SqliteHistoryStore } from '../src/history/sqlite-store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const call = { id: 'call_1', name: 'delete_file' };

async function storeLog() {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-once-'));
  dirs.push(dir);
  const store = new SqliteHistoryStore(dir);
  await store.beginTurn('s1', { id: 'turn_1', role: 'user', parts: [], createdAt: 1 }, 1);
  const log: ToolExecutionLog = {
    starting: (callId, name) =>
      store.toolStarting({ sessionId: 's1', turnId: 'turn_1', callId, name, at: 2 }),
    ended: (callId, outcome) => store.toolEnded('s1', 'turn_1', callId, outcome, 3),
  };
  return { store, log };
}

const reported: string[] = [];
const report = (_error: unknown, what: string) => {
  reported.push(what);
  return 'err1';
};

test('a call runs once; the same call again is refused, and the log says it ended', async () => {
  const { store, log } = await storeLog();
  let runs = 0;
  const execute = async () => ({ result: ++runs, isError: false });
  expect(await runOnce(log, call, execute, report)).toEqual({ result: 1, isError: false });
  expect(await runOnce(log, call, execute, report)).toEqual({ result: ALREADY_RUN, isError: true });
  expect(runs).toBe(1);
  expect(await store.unfinishedTools('s1', 'turn_1')).toEqual([]);
  await store.close();
});

test('a call that cannot be recorded does not run; one whose end cannot be recorded did run', async () => {
  let runs = 0;
  const execute = async () => ({ result: ++runs, isError: false });
  const broken: ToolExecutionLog = {
    starting: () => Promise.reject(new Error('disk full')),
    ended: () => Promise.resolve(),
  };
  expect(await runOnce(broken, call, execute, report)).toEqual({ result: NOT_RECORDED, isError: true });
  expect(runs).toBe(0);
  const endless: ToolExecutionLog = {
    starting: () => Promise.resolve(true),
    ended: () => Promise.reject(new Error('disk full')),
  };
  expect(await runOnce(endless, call, execute, report)).toEqual({ result: 1, isError: false });
  expect(reported).toEqual([
    'recording tool call call_1 before it ran failed: it was not run',
    'recording how tool call call_1 ended failed',
  ]);
});

test('a call that started and never ended is listed as unfinished: it may have completed', async () => {
  const { store, log } = await storeLog();
  await log.starting('call_2', 'delete_file');
  expect(await store.unfinishedTools('s1', 'turn_1')).toEqual(['call_2']);
  await store.close();
});
