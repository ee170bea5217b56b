// What a whole session costs the server apart from its fragments: WebSocket upgrade,
// hello, the user message, the model request, the tool run, the second round, the final
// message and the close. These are the costs that pile up when many turns start or end
// in the same second, which is where the tail latency of benchmark 2 sits. Many short
// sessions (one fragment each), a few at a time, through the Aalis server, the baseline
// relay and the AI SDK peer on the same core; server CPU divided by sessions, median of
// runs, targets alternating.
import { median } from './lib.mjs';
import { scaleStep } from './scale.mjs';

export async function turnCostBench({ sessions = 1000, seconds = 10, repeats = 3 } = {}) {
  const runs = { aalis: [], baseline: [], peer: [] };
  const targets = Object.keys(runs);
  for (let round = 0; round < repeats; round++) {
    for (const target of round % 2 ? [...targets].reverse() : targets) {
      const step = await scaleStep(sessions, {
        target,
        fragments: 1,
        staggerMs: seconds * 1000,
        warmUp: 200,
      });
      if (step.finalExact !== sessions)
        throw new Error(`${target}: ${step.finalExact}/${sessions} turns ended`);
      runs[target].push(step.cpuMsPerSession);
    }
  }
  const [aalis, baseline, peer] = targets.map((target) => median(runs[target]));
  return { sessions, seconds, repeats, aalis, baseline, peer };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await turnCostBench({ repeats: Number(process.argv[2] ?? 3) }), null, 2));
}
