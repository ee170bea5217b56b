// What a whole session costs the server apart from its fragments: WebSocket upgrade (or
// HTTP request), hello, the user message, the model request, the tool, the second round,
// the final message and the close. These are the costs that pile up when many turns
// start or end in the same second, which is where the tail latency of benchmark 2 sits.
// Many short sessions (one fragment each), a few at a time, through the Aalis server
// (durable history, then history in memory), the turn relay (the same turn's whole work,
// bench/baseline-turn-relay.mjs), the baseline relay (one round, no tool) and the AI SDK
// peer on the same core; server CPU divided by sessions, median of runs, targets
// alternating.
import { median } from './lib.mjs';
import { scaleStep } from './scale.mjs';

/** The load: 1,000 one-fragment sessions over 10 s, after 200 warm-up turns. */
const SESSIONS = 1000;
const SECONDS = 10;

export async function sessionCostRun(target) {
  const step = await scaleStep(SESSIONS, { target, fragments: 1, staggerMs: SECONDS * 1000, warmUp: 200 });
  if (step.finalExact !== SESSIONS) throw new Error(`${target}: ${step.finalExact}/${SESSIONS} turns ended`);
  return step;
}

export async function turnCostBench({ repeats = 3 } = {}) {
  const runs = { aalis: [], 'aalis-memory': [], turn: [], baseline: [], peer: [] };
  const targets = Object.keys(runs);
  for (let round = 0; round < repeats; round++) {
    for (const target of round % 2 ? [...targets].reverse() : targets) {
      runs[target].push((await sessionCostRun(target)).cpuMsPerSession);
    }
  }
  const [aalis, aalisMemory, turn, baseline, peer] = targets.map((target) => median(runs[target]));
  return { sessions: SESSIONS, seconds: SECONDS, repeats, aalis, aalisMemory, turn, baseline, peer };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await turnCostBench({ repeats: Number(process.argv[2] ?? 3) }), null, 2));
}
