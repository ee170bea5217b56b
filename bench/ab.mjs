// Before/after for a server change, in one run: the same load through two builds of the
// server, runs alternating, medians and their ratio reported. Keep the "before" build
// inside server/ so that it resolves the same packages:
//
//   git stash && npm run build && cp -r server/dist server/dist-before && git stash pop
//   npm run build && node bench/ab.mjs session 5        # CPU per session
//   node bench/ab.mjs 200 3                             # 200 sessions, as benchmark 2
//
// Load `session`: bench/turn-cost.mjs's (1,000 one-fragment sessions over 10 s); a
// number: that many sessions streaming 25 fragments/s for 20 s (benchmark 2's). The
// server keeps its history as users run it (SQLite in a fresh data folder);
// BENCH_HISTORY=memory compares the builds with history in memory instead.
//
// Load `relay`: benchmark 2c's (bench/relay-cost.mjs), issue 29's guardrail: at 250 and
// then 350 sessions (AB_SESSIONS=250,350; AB_SECONDS=20 per stream), each round runs the two builds and the turn
// relay (bench/baseline-turn-relay.mjs) on the same load, order rotating; reports CPU per
// fragment of each build, after/before, and each build against the relay (the median of
// the rounds' ratios, each round's runs being next to each other in time):
//
//   node bench/ab.mjs relay 3
//
// FIGURE=cpuMsPerFragment (or any other figure of a step) compares that instead of the p99.
//
// Load `resume`: benchmark 5 (a page restoring 50 KB and five cards), the builds being
// two copies of the widget's dist files (aalis-chat*.js), copied into widget/dist in turn
// (the server serves the newest file); the figure is each run's median of 7 page loads:
//
//   node bench/ab.mjs resume 3 /tmp/ab/before /tmp/ab/after
//
// Load `render`: benchmark 4 (three busy cards under a 300-message transcript) on the
// same two widget builds; the figure is the main thread's busy share.
import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { median, ms, root } from './lib.mjs';
import { resumeBench } from './resume.mjs';
import { widgetRenderBench } from './widget-render.mjs';
import { scaleStep } from './scale.mjs';
import { sessionCostRun } from './turn-cost.mjs';

const [load = 'session', repeats = '3', before = 'server/dist-before', after = 'server/dist'] =
  process.argv.slice(2);
const builds = { before, after };
const perSession = load === 'session';
const relay = load === 'relay';
const widget = load === 'resume' || load === 'render';
// FIGURE=a,b compares several figures of the same runs.
const figures = (
  process.env.FIGURE ??
  (load === 'resume'
    ? 'medianMs'
    : load === 'render'
      ? 'mainThreadBusyShare'
      : perSession
        ? 'cpuMsPerSession'
        : relay
          ? 'cpuMsPerFragment'
          : 'p99')
).split(',');

/** A widget build into widget/dist, where the server reads it. */
function useWidget(dir) {
  for (const file of readdirSync(dir).filter((f) => /^aalis-chat.*\.js$/.test(f)))
    copyFileSync(join(dir, file), join(root, 'widget/dist', file));
}

if (relay) {
  await relayAb();
  process.exit(0);
}

const runs = { before: [], after: [] };

for (let round = 0; round < Number(repeats); round++) {
  for (const name of round % 2 ? ['after', 'before'] : ['before', 'after']) {
    let step;
    if (widget) {
      useWidget(builds[name]);
      step = load === 'resume' ? await resumeBench() : await widgetRenderBench();
    } else {
      process.env.BENCH_SERVER_DIST = builds[name];
      const sessions = perSession ? 1000 : Number(load);
      step = perSession
        ? await sessionCostRun('aalis')
        : await scaleStep(sessions, { seconds: 20, warmUp: 100 });
      // A build whose turns fail would look cheap.
      if (step.finalExact !== sessions || step.lost)
        throw new Error(`${name}: turns did not all end exactly`);
    }
    runs[name].push(step);
    console.error(`${name}: ${figures.map((figure) => `${figure} ${ms(step[figure], 3)}`).join(', ')}`);
  }
}
for (const figure of figures) {
  const medians = Object.fromEntries(
    Object.entries(runs).map(([name, steps]) => [name, median(steps.map((s) => s[figure]))]),
  );
  for (const name of ['before', 'after']) {
    console.log(`${name} (${builds[name]}): ${figure} ${ms(medians[name], 3)}, median of ${repeats}`);
  }
  console.log(`after/before: ${(medians.after / medians.before).toFixed(3)}`);
}
// The widget build left in place is the one the working tree made.
if (widget) useWidget(builds.after);

/** Load `relay`: both builds and the turn relay, per session count, order rotating. */
async function relayAb() {
  const names = ['before', 'after', 'turn'];
  for (const sessions of (process.env.AB_SESSIONS ?? '250,350').split(',').map(Number)) {
    const rounds = [];
    for (let round = 0; round < Number(repeats); round++) {
      const steps = {};
      for (const name of names.map((_, i) => names[(i + round) % names.length])) {
        if (name === 'turn') delete process.env.BENCH_SERVER_DIST;
        else process.env.BENCH_SERVER_DIST = builds[name];
        const step = await scaleStep(sessions, {
          target: name === 'turn' ? 'turn' : 'aalis',
          seconds: Number(process.env.AB_SECONDS ?? 20),
          warmUp: 100,
        });
        if (step.finalExact !== sessions || step.lost)
          throw new Error(`${name}: turns did not all end exactly`);
        steps[name] = step;
        console.error(
          `${sessions} sessions, ${name}: ${figures.map((figure) => `${figure} ${ms(step[figure], 4)}`).join(', ')}`,
        );
      }
      rounds.push(steps);
    }
    for (const figure of figures) {
      const of = (name) => median(rounds.map((steps) => steps[name][figure]));
      const ratio = (a, b) => median(rounds.map((steps) => steps[a][figure] / steps[b][figure]));
      const history = rounds[0].before.history;
      console.log(`${sessions} sessions (${history} history), ${figure}, median of ${repeats}:`);
      for (const name of names)
        console.log(`  ${name === 'turn' ? 'turn relay' : `${name} (${builds[name]})`}: ${ms(of(name), 4)}`);
      console.log(`  after/before: ${ratio('after', 'before').toFixed(3)}`);
      console.log(
        `  before/turn relay: ${ratio('before', 'turn').toFixed(3)}, after/turn relay: ${ratio('after', 'turn').toFixed(3)}`,
      );
    }
  }
}
