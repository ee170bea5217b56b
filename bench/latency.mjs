// Benchmark 1: latency added per tool-call fragment, from the upstream's write to the
// receipt by a WebSocket client, through the Aalis server and, in the same run, through
// a baseline relay that only parses the SSE and forwards each chunk. Three processes:
// upstream, server (or relay), client. Repeated, alternating targets; medians reported.
import { join } from 'node:path';
import {
  forkService,
  matchArrivals,
  median,
  percentile,
  readWrites,
  root,
  runClients,
  startAalis,
} from './lib.mjs';

export async function latencyBench({ repeats = 5, fragments = 300, rate = 50 } = {}) {
  const upstream = await forkService(join(root, 'bench/upstream.mjs'), {
    FRAGMENTS: String(fragments),
    RATE: String(rate),
  });
  const upstreamUrl = `http://127.0.0.1:${upstream.port}`;
  const aalis = await startAalis(upstreamUrl);
  const relay = await forkService(join(root, 'bench/baseline-relay.mjs'), { UPSTREAM: upstreamUrl });
  try {
    const targets = {
      aalis: `ws://127.0.0.1:${aalis.port}/ws`,
      baseline: `ws://127.0.0.1:${relay.port}`,
    };
    const runs = [];
    for (let round = 0; round < repeats + 1; round++) {
      const sequence = round % 2 ? ['baseline', 'aalis'] : ['aalis', 'baseline'];
      for (const target of sequence) {
        const out = await runClients({ url: targets[target], target });
        // The first round warms both up (JIT, connections) and is not counted.
        if (round > 0) runs.push({ target, arrivals: out.arrivals });
      }
    }
    const writes = await readWrites(`http://127.0.0.1:${upstream.port}`);
    const perTarget = { aalis: [], baseline: [] };
    for (const { target, arrivals } of runs) {
      const { latencies } = matchArrivals(arrivals, writes);
      perTarget[target].push({
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        n: latencies.length,
      });
    }
    const summary = (runs) => ({
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      fragments: runs.reduce((n, r) => n + r.n, 0),
    });
    const result = {
      aalis: summary(perTarget.aalis),
      baseline: summary(perTarget.baseline),
      repeats,
      fragments,
      rate,
    };
    result.addedP50 = result.aalis.p50 - result.baseline.p50;
    result.addedP99 = result.aalis.p99 - result.baseline.p99;
    return result;
  } finally {
    aalis.child.kill();
    upstream.child.kill();
    relay.child.kill();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await latencyBench();
  console.log(JSON.stringify(r, null, 2));
}
