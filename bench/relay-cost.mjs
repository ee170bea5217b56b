// Benchmark 2c (issue 29's guardrail): the Aalis server's CPU per tool-call fragment
// against a relay that does the turn's whole work (bench/baseline-turn-relay.mjs: streams
// the tool call and relays each argument fragment, parses the arguments, runs the tool,
// sends the result back in a second model round, relays the text). Both sides get the
// same load, benchmark 2's: every session streams one `get_time` call whose arguments
// arrive at 25 fragments a second for SECONDS, then a second round answers with text;
// sessions start spread over one second. Each step runs on a fresh server (core 0,
// taskset; upstream and clients on core 1) warmed up with 100 one-fragment turns.
//
// Targets: Aalis with durable history (SQLite in a fresh data folder, as users run it),
// Aalis with history in memory, and the turn relay. In each round every target runs once,
// their order rotating from round to round; the ratio to the relay is taken within each
// round (the runs next to each other in time) and its median reported, with the ratio of
// the medians and the spread of the rounds' ratios, since the machine is shared.
//
//   npm run build && node bench/relay-cost.mjs [repeats=3] [seconds=20] [sessions=250,350]
//
// Prints JSON; `BENCH_ONLY=relayCost npm run bench` puts the figures in RESULTS.md.
import { median, ms } from './lib.mjs';
import { scaleStep } from './scale.mjs';

export const RELAY_TARGETS = ['aalis', 'aalis-memory', 'turn'];

export async function relayCostBench({
  counts = [250, 350],
  repeats = 3,
  seconds = 20,
  warmUp = 100,
  targets = RELAY_TARGETS,
} = {}) {
  const results = [];
  for (const sessions of counts) {
    const rounds = [];
    for (let round = 0; round < repeats; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      const steps = {};
      for (const target of order) {
        const step = await scaleStep(sessions, { target, seconds, warmUp });
        steps[target] = step;
        console.error(
          `relay-cost: ${sessions} sessions, ${target}${step.history ? ` (${step.history})` : ''}: ` +
            `${ms(step.cpuMsPerFragment, 4)} ms CPU/fragment, p99 ${ms(step.p99, 1)} ms, ` +
            `${step.finalExact}/${sessions} exact, ${step.lost} lost, core 1 ${Math.round(step.harnessCoreBusy * 100)}%`,
        );
      }
      rounds.push(steps);
    }
    const byTarget = Object.fromEntries(
      targets.map((target) => {
        const runs = rounds.map((steps) => steps[target]);
        const cpu = runs.map((step) => step.cpuMsPerFragment);
        return [
          target,
          {
            cpuMsPerFragment: median(cpu),
            runs: cpu,
            p99: median(runs.map((step) => step.p99)),
            lost: Math.max(...runs.map((step) => step.lost)),
            finalExact: Math.min(...runs.map((step) => step.finalExact)),
            harnessCoreBusy: median(runs.map((step) => step.harnessCoreBusy)),
          },
        ];
      }),
    );
    // Each Aalis line against the relay: within each round, and of the medians.
    const ratios = Object.fromEntries(
      targets
        .filter((target) => target !== 'turn')
        .map((target) => {
          const perRound = rounds.map(
            (steps) => steps[target].cpuMsPerFragment / steps.turn.cpuMsPerFragment,
          );
          return [
            target,
            {
              median: median(perRound),
              perRound,
              ofMedians: byTarget[target].cpuMsPerFragment / byTarget.turn.cpuMsPerFragment,
            },
          ];
        }),
    );
    results.push({ sessions, byTarget, ratios });
  }
  return { counts, repeats, seconds, warmUp, results };
}

/** One line per count and Aalis line, for a terminal. */
export function relayCostSummary({ results, repeats, seconds }) {
  const lines = [`CPU per fragment against the turn relay; ${seconds} s streams, ${repeats} rounds`];
  for (const { sessions, byTarget, ratios } of results) {
    lines.push(`${sessions} sessions: turn relay ${ms(byTarget.turn.cpuMsPerFragment, 4)} ms`);
    for (const [target, ratio] of Object.entries(ratios)) {
      lines.push(
        `  ${target}: ${ms(byTarget[target].cpuMsPerFragment, 4)} ms, ratio ${ms(ratio.median)} ` +
          `(rounds ${ratio.perRound.map((r) => ms(r)).join(', ')}; of medians ${ms(ratio.ofMedians)})`,
      );
    }
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [repeats = '3', seconds = '20', counts = '250,350'] = process.argv.slice(2);
  const figures = await relayCostBench({
    repeats: Number(repeats),
    seconds: Number(seconds),
    counts: counts.split(',').map(Number),
  });
  console.error(relayCostSummary(figures));
  console.log(JSON.stringify(figures, null, 2));
}
