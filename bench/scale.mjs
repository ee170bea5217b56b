// Benchmark 2: how many sessions one server core holds. The server runs alone on core 0;
// the fake upstream and the clients (one process, one socket per session) share core 1
// (taskset). Every session streams one tool call at RATE fragments a second for SECONDS.
// Steps the session count up and reports, per step: fragments delivered per second,
// p50/p99/max latency, fragments lost, final counts exact, server CPU per fragment and
// memory per session.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forkService, latenciesOf, percentile, readWrites, root, runScript, startAalis } from './lib.mjs';

const TICKS_PER_SECOND = 100;

function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function rssKb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line.split(/\s+/)[1]);
}

export async function scaleStep(
  sessions,
  {
    rate = 25,
    seconds = 20,
    target = 'aalis',
    staggerMs = 1000,
    fragments = Math.round(rate * seconds),
  } = {},
) {
  const upstream = await forkService(
    join(root, 'bench/upstream.mjs'),
    { FRAGMENTS: String(fragments), RATE: String(rate) },
    { cpu: 1 },
  );
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  // The same load through the baseline relay, on the same core, measures the harness.
  const { child: server, port } =
    target === 'aalis'
      ? await startAalis(upstreamUrl, { cpu: 0 })
      : await (async () => {
          const relay = await forkService(
            join(root, 'bench/baseline-relay.mjs'),
            { UPSTREAM: upstreamUrl },
            { cpu: 0 },
          );
          return { child: relay.child, port: relay.port };
        })();
  try {
    const rssBefore = rssKb(server.pid);
    const ticksBefore = cpuTicks(server.pid);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKb(server.pid))), 500);
    const started = performance.now();
    const out = JSON.parse(
      await runScript(
        join(root, 'bench/latency-client.mjs'),
        {
          URL: target === 'aalis' ? `ws://127.0.0.1:${port}/ws` : `ws://127.0.0.1:${port}`,
          TARGET: target,
          SESSIONS: String(sessions),
          FRAGMENTS: String(fragments),
          STAGGER_MS: String(staggerMs),
        },
        { cpu: 1 },
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const ticks = cpuTicks(server.pid) - ticksBefore;
    const writes = await readWrites(`http://127.0.0.1:${upstream.port}`);
    const latencies = latenciesOf(out.arrivals, writes);
    if (process.env.SCALE_DEBUG) {
      for (const [from, to] of [
        [1, 25],
        [26, 50],
        [51, 100],
        [101, 200],
        [201, 1e9],
      ]) {
        const part = latenciesOf(
          out.arrivals.filter(([, k]) => k >= from && k <= to),
          writes,
        );
        console.error(
          `fragments ${from}-${to}: p50 ${percentile(part, 50)?.toFixed(2)} p99 ${percentile(part, 99)?.toFixed(2)} max ${part.at(-1)?.toFixed(1)}`,
        );
      }
    }
    const expected = sessions * fragments;
    return {
      target,
      sessions,
      fragmentsPerSecond: Math.round(out.arrivals.length / elapsed),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
      delivered: out.arrivals.length,
      expected,
      // Progress may collapse under backpressure; what a session ends on must be exact.
      finalExact: out.finalChars.filter((c) => c === fragments + 2).length,
      turnsEnded: out.finalChars.length,
      cpuMsPerFragment: ((ticks / TICKS_PER_SECOND) * 1000) / Math.max(1, out.arrivals.length),
      cpuMsPerSession: ((ticks / TICKS_PER_SECOND) * 1000) / sessions,
      cpuShare: ticks / TICKS_PER_SECOND / elapsed,
      memoryKbPerSession: Math.round((rssPeak - rssBefore) / sessions),
    };
  } finally {
    server.kill('SIGKILL');
    upstream.child.kill('SIGKILL');
  }
}

/**
 * Steps up from 50 sessions, each step through the Aalis server and through the baseline
 * relay on the same core, until Aalis's p99 passes 50 ms; then 1,000 sessions as
 * overload, and a small load right after it to see that a fresh server behaves.
 */
export async function scaleBench({ steps = [50, 100, 200, 300], overload = 1000, seconds = 20 } = {}) {
  const results = [];
  let largest;
  for (const sessions of steps) {
    const aalis = await scaleStep(sessions, { seconds });
    const baseline = await scaleStep(sessions, { seconds, target: 'baseline' });
    results.push(aalis, baseline);
    console.error(
      `scale: ${sessions} sessions: p99 ${aalis.p99.toFixed(1)} ms (baseline ${baseline.p99.toFixed(1)} ms)`,
    );
    if (aalis.p99 <= 50) largest = aalis;
    else break;
  }
  const overloaded = await scaleStep(overload, { seconds });
  console.error(`scale: ${overload} sessions: p99 ${overloaded.p99.toFixed(1)} ms`);
  const recovery = await scaleStep(steps[0], { seconds: 5 });
  return { results, largest, overloaded, recovery };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sessions = Number(process.argv[2] ?? 100);
  const options = { seconds: Number(process.argv[3] ?? 20), target: process.argv[4] ?? 'aalis' };
  console.log(JSON.stringify(await scaleStep(sessions, options), null, 2));
}
