// What the console's search costs on a SQLite history of many conversations: the
// archive's full-text query (FTS5, history/sqlite-archive.ts) against the same search done
// as a scan in JavaScript (every message read and its text tested), the way an owner's own
// script over the file would. Both on the same file, in this process, alternating; the
// figure is the ratio of time per search, median of the rounds.
//   node bench/console-search.mjs [conversations] [rounds]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, root } from './lib.mjs';

const server = await import(`${root}server/dist/index.js`);
const CONVERSATIONS = Number(process.argv[2] ?? 3_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const WORDS = [
  'lamp',
  'order',
  'refund',
  'battery',
  'solar',
  'garden',
  'invoice',
  'delivery',
  'colour',
  'warranty',
];

const dir = mkdtempSync(join(tmpdir(), 'aalis-bench-search-'));
const store = new server.SqliteHistoryStore(dir);
const archive = server.archiveOf(store);
const t0 = Date.UTC(2026, 0, 1);
let n = 0;
const text = (i) =>
  Array.from(
    { length: 30 },
    (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length] + (k % 5 ? '' : ` n${i % 997}`),
  ).join(' ');
for (let c = 0; c < CONVERSATIONS; c++)
  for (let turn = 0; turn < 5; turn++) {
    const at = t0 + n * 1_000;
    const q = { id: `u${n}`, role: 'user', parts: [{ type: 'text', text: text(n) }], createdAt: at };
    const a = {
      id: `a${n}`,
      role: 'assistant',
      parts: [{ type: 'text', text: text(n + 1) }],
      createdAt: at + 500,
    };
    await store.beginTurn(`s${c}`, q, at, `anon:v${c % 500}`);
    await store.endTurn(`s${c}`, a, `u${n}`);
    n++;
  }

/** The same question as a scan: every message of the range read, its words tested. */
async function scan(q) {
  const words = q.toLowerCase().split(/\s+/);
  const found = new Set();
  for await (const { sessionId, message } of archive.messages(0, Date.now())) {
    const own = message.parts
      .map((p) => p.text ?? '')
      .join(' ')
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u);
    if (words.every((w) => own.some((o) => o.startsWith(w)))) found.add(sessionId);
  }
  return found.size;
}

const queries = ['refund n12', 'warranty deliv', 'n500 solar'];
const times = { index: [], scan: [] };
for (let round = 0; round < ROUNDS; round++)
  for (const [kind, run] of [
    ['index', (q) => archive.conversations({ q, limit: 50 })],
    ['scan', scan],
  ]) {
    const start = performance.now();
    for (const q of queries) await run(q);
    times[kind].push((performance.now() - start) / queries.length);
  }
const index = median(times.index);
const scanned = median(times.scan);
console.log(`${CONVERSATIONS} conversations, ${n * 2} messages; ms per search (median of ${ROUNDS} rounds)`);
console.log(`full-text index  ${index.toFixed(2)} ms`);
console.log(`scan in JS       ${scanned.toFixed(2)} ms   (${(scanned / index).toFixed(0)}× the index)`);
await store.close();
rmSync(dir, { recursive: true, force: true });
