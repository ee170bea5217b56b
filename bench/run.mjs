// `npm run bench`: runs the benchmarks, keeps every figure in bench/results.json and
// writes bench/RESULTS.md from it (bench/report.mjs) with the machine and the date.
// Needs the server and the widget built (npm run build && npm run build -w @aalis/widget).
// The Aalis server keeps its history as users run it, durable (SQLite in a fresh data
// folder per server); the sweep and the per-session and per-fragment costs add a line with
// history in memory. BENCH_HISTORY=memory runs every other benchmark with memory.
import { cpus, totalmem } from 'node:os';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { latencyBench } from './latency.mjs';
import { root } from './lib.mjs';
import { ensurePeerInstalled } from './peer/install.mjs';
import { scaleBench } from './scale.mjs';
import { resumeBench } from './resume.mjs';
import { idleBench } from './idle.mjs';
import { renderReport } from './report.mjs';
import { relayCostBench } from './relay-cost.mjs';
import { turnCostBench } from './turn-cost.mjs';
import { widgetRenderBench } from './widget-render.mjs';
import { widgetScrollBench } from './widget-scroll.mjs';

if (!existsSync(join(root, 'server/dist/cli.js'))) {
  console.error('npm run bench: build first (npm run build && npm run build -w @aalis/widget).');
  process.exit(2);
}

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const date = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

// BENCH_QUICK=1 runs every benchmark on a tiny load, to check the harness, not to measure.
const quick = Boolean(process.env.BENCH_QUICK);
// BENCH_ONLY=resume,render runs those benchmarks alone and keeps the other figures of the
// last run (bench/results.json); the report dates each benchmark that ran apart.
const only = process.env.BENCH_ONLY?.split(',');
const benchmarks = {
  latency: [
    'bench 1: added latency per fragment (aalis vs baseline relay)…',
    () => latencyBench({ repeats: quick ? 1 : 7, ...(quick ? { fragments: 50 } : {}) }),
  ],
  scale: [
    'bench 2 and 3: sessions on one core, Aalis, the relay and the AI SDK peer…',
    () => scaleBench(quick ? { steps: [10, 20], repeats: 1, seconds: 8, overload: 60, warmUp: 10 } : {}),
  ],
  turnCost: ['bench 2b: what one session costs the server…', () => turnCostBench({ repeats: quick ? 1 : 3 })],
  relayCost: [
    'bench 2c: CPU per fragment against a relay that does the turn’s whole work…',
    () => relayCostBench(quick ? { counts: [20], repeats: 1, seconds: 4, warmUp: 10 } : {}),
  ],
  render: [
    'bench 4: the widget under three busy cards…',
    () => widgetRenderBench(quick ? { seconds: 2 } : {}),
  ],
  resume: ['bench 5: resume…', () => resumeBench(quick ? { repeats: 2 } : {})],
  idle: ['bench 6: idle connections…', () => idleBench(quick ? { connections: 500, windowSeconds: 5 } : {})],
  scroll: [
    'bench 7: scrolling a 1,000-message transcript…',
    () => widgetScrollBench(quick ? { messages: 100, repeats: 1 } : {}),
  ],
};
const unknown = only?.filter((name) => !(name in benchmarks));
if (unknown?.length) {
  console.error(
    `BENCH_ONLY: no benchmark ${unknown.join(', ')} (there are ${Object.keys(benchmarks).join(', ')}).`,
  );
  process.exit(2);
}
// The AI SDK peer is measured by benchmarks 2, 2b and 3; installed before anything is measured.
if (!only || only.some((name) => name === 'scale' || name === 'turnCost')) ensurePeerInstalled();
const last = only ? JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8')) : {};
const figures = {};
for (const [name, [label, run]] of Object.entries(benchmarks)) {
  if (only && !only.includes(name)) {
    figures[name] = last[name];
    continue;
  }
  console.error(label);
  figures[name] = { ...(await run()), ...(only ? { measuredAt: date } : {}) };
}

const bundle = join(root, 'widget/dist/aalis-chat.js');
const raw = existsSync(bundle) ? readFileSync(bundle) : undefined;
const widgetBundle = raw ? { raw: raw.length, gzipped: gzipSync(raw, { level: 9 }).length } : undefined;

const results = { machine, date: only ? last.date : date, ...figures, widgetBundle };
writeFileSync(join(root, 'bench/results.json'), JSON.stringify(results, null, 2) + '\n');
const report = renderReport(results);
writeFileSync(join(root, 'bench/RESULTS.md'), report);
console.log(report);
