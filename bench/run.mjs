// `npm run bench`: runs the benchmarks, keeps every figure in bench/results.json and
// writes bench/RESULTS.md from it (bench/report.mjs) with the machine and the date.
// Needs the server and the widget built (npm run build && npm run build -w @aalis/widget).
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
import { turnCostBench } from './turn-cost.mjs';
import { widgetRenderBench } from './widget-render.mjs';
import { widgetScrollBench } from './widget-scroll.mjs';

if (!existsSync(join(root, 'server/dist/cli.js'))) {
  console.error('npm run bench: build first (npm run build && npm run build -w @aalis/widget).');
  process.exit(2);
}

// Before anything is measured, not in the middle of a run.
ensurePeerInstalled();

const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const date = new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

console.error('bench 1: added latency per fragment (aalis vs baseline relay)…');
// BENCH_QUICK=1 runs every benchmark on a tiny load, to check the harness, not to measure.
const quick = Boolean(process.env.BENCH_QUICK);
const latency = await latencyBench({ repeats: quick ? 1 : 7, ...(quick ? { fragments: 50 } : {}) });
console.error('bench 2 and 3: sessions on one core, Aalis, the relay and the AI SDK peer…');
const scale = await scaleBench(
  quick ? { steps: [10, 20], repeats: 1, seconds: 8, overload: 60, warmUp: 10 } : {},
);
console.error('bench 2b: what one session costs the server…');
const turnCost = await turnCostBench({ repeats: quick ? 1 : 3 });

console.error('bench 4: the widget under three busy cards…');
const render = await widgetRenderBench(quick ? { seconds: 2 } : {});

console.error('bench 5: resume…');
const resume = await resumeBench(quick ? { repeats: 2 } : {});

console.error('bench 6: idle connections…');
const idle = await idleBench(quick ? { connections: 500, windowSeconds: 5 } : {});

console.error('bench 7: scrolling a 1,000-message transcript…');
const scroll = await widgetScrollBench(quick ? { messages: 100, repeats: 1 } : {});

const bundle = join(root, 'widget/dist/aalis-chat.js');
const raw = existsSync(bundle) ? readFileSync(bundle) : undefined;
const widgetBundle = raw ? { raw: raw.length, gzipped: gzipSync(raw, { level: 9 }).length } : undefined;

const results = { machine, date, latency, scale, turnCost, render, resume, idle, scroll, widgetBundle };
writeFileSync(join(root, 'bench/results.json'), JSON.stringify(results, null, 2) + '\n');
const report = renderReport(results);
writeFileSync(join(root, 'bench/RESULTS.md'), report);
console.log(report);
