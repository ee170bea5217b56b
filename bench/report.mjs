// RESULTS.md from the figures of a run (bench/results.json), followed by the hand-written
// findings (bench/FINDINGS.md): what was profiled, changed and measured before and after.
// `node bench/report.mjs` renders it again without measuring, after FINDINGS.md changed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ms, root } from './lib.mjs';

export function renderReport({
  machine,
  date,
  latency,
  scale,
  turnCost,
  relayCost,
  render,
  resume,
  idle,
  scroll,
  widgetBundle,
}) {
  // Aalis's lines say where its history lived (results before issue 29 do not: memory).
  const label = (r) => r.label ?? (r.history ? `aalis (${r.history} history)` : r.target);
  const scaleRow = (r) =>
    `| ${label(r)} | ${r.sessions} | ${r.fragmentsPerSecond} | ${ms(r.p50)} | **${ms(r.p99)}** (${(r.p99s ?? [r.p99]).map((p) => ms(p, 1)).join(', ')}) | ${ms(r.p99ByPhase.start, 1)} / ${ms(r.p99ByPhase.middle, 1)} / ${ms(r.p99ByPhase.end, 1)} | ${ms(r.max, 1)} | ${r.lost} | ${r.finalExact}/${r.sessions} | ${ms(r.cpuMsPerFragment, 3)} | ${Math.round(r.cpuShare * 100)}% | ${r.memoryKbPerSession} | ${Math.round(r.harnessCoreBusy * 100)}% |`;

  /** The largest count a target held; "≥" when it still passed the last step. */
  const held = (target) =>
    scale.largest[target] === undefined
      ? 'none'
      : `${scale.atLeast[target] ? '≥ ' : ''}${scale.largest[target]}`;
  const heldRatio =
    // A ratio needs the peer's own limit; Aalis's may be a lower bound.
    scale.largest.aalis && scale.largest.peer && !scale.atLeast.peer
      ? `Aalis holds ${scale.atLeast.aalis ? 'at least ' : ''}${(scale.largest.aalis / scale.largest.peer).toFixed(1)}× the peer's sessions`
      : undefined;
  // CPU per fragment of Aalis and the peer at the largest count the peer held.
  const atPeer = (target) =>
    scale.results.find((r) => r.target === target && r.sessions === scale.largest.peer);
  const cpuAtPeer = atPeer('aalis') && atPeer('peer') ? [atPeer('aalis'), atPeer('peer')] : undefined;
  const over = scale.overloaded;
  // Checks on the harness itself: every arrival matched one write, no turn hung.
  const steps = [...scale.results, over, over.recovery];
  const total = (key) => steps.reduce((n, step) => n + step[key], 0);
  const integrity =
    total('unmatched') + total('duplicates') + total('stuck')
      ? `**Harness check failed**: arrivals matching no write ${total('unmatched')}, fragments arriving twice ${total('duplicates')}, turns stuck ${total('stuck')}.`
      : 'Harness checks: every arrival matched one write, none came twice, no turn hung.';
  const hand = join(root, 'bench/FINDINGS.md');
  // Benchmarks run again on their own after the full run (BENCH_ONLY), with their date.
  const sections = {
    latency: 1,
    scale: '2 and 3',
    turnCost: '2b',
    relayCost: '2c',
    render: 4,
    resume: 5,
    idle: 6,
    scroll: 7,
  };
  const figures = { latency, scale, turnCost, relayCost, render, resume, idle, scroll };
  const apart = Object.entries(sections)
    .filter(([name]) => figures[name]?.measuredAt)
    .map(([name, number]) => `benchmark ${number} on ${figures[name].measuredAt}`);

  const report = `# Benchmark results

Machine: ${machine}. Date: ${date}. Command: \`npm run bench\` (after \`npm run build\` and \`npm run build -w @aalis/widget\`).${
    apart.length ? `\nRun again alone since (\`BENCH_ONLY=<name> npm run bench\`): ${apart.join(', ')}.` : ''
  }
All latencies are from the fake upstream's write of a fragment to its receipt by a
client in another process, on the system's monotonic clock. Figures are medians over
repeated runs; comparisons are ratios between runs of the same benchmark.

## 1. Added latency per tool-call fragment

One session at a time, ${latency.fragments} fragments at ${latency.rate}/s, ${latency.repeats} runs per
target after a warm-up run, targets alternating; the figures are medians of the runs'
percentiles. The baseline relay only parses the SSE and forwards each chunk over a
WebSocket (bench/baseline-relay.mjs).

| path | p50 ms | p99 ms |
| --- | --- | --- |
| baseline relay | ${ms(latency.baseline.p50, 3)} | ${ms(latency.baseline.p99, 3)} |
| Aalis server | ${ms(latency.aalis.p50, 3)} | ${ms(latency.aalis.p99, 3)} |
| **added by Aalis** | **${ms(latency.addedP50, 3)}** | **${ms(latency.addedP99, 3)}** |

Goal: p99 added at most 1 ms: **${latency.addedP99 <= 1 ? 'met' : 'missed'}**.

## 2. Sessions one server core holds (and 3. the AI SDK peer)

The server alone on core 0 (\`taskset -c 0\`); the fake upstream and the clients (one
process, one connection per session) on core 1. Each session streams one tool call at 25
fragments/s for ${scale.seconds} s; sessions start spread over one second. Three targets on the
same load: Aalis, the baseline relay, and the peer, a minimal server on the Vercel AI SDK
(\`ai@6\` + \`@ai-sdk/openai@3\`, \`streamText\` with one tool and a second step, piped as its
UI message stream over SSE: bench/peer/server.mjs, installed into bench/peer by the
benchmark only). Each row is the median of ${scale.repeats} runs, each on a fresh server warmed up
with ${scale.warmUp} one-fragment turns; the p99 column lists every run's. "p99 start / middle /
end" splits fragments by where they sit in their stream: the first 50 (turns starting),
the rest, the last 50 (turns ending). "lost" counts fragments that never arrived; a
fragment inside a collapsed progress frame counts as arrived when that frame did (worst
run). "final exact" counts sessions whose last count equals the full length: the
server's count for Aalis, the client's count of what arrived for the relay and the peer
(worst run). "core 1" is how busy the upstream's and clients' core was: near 100%, the
harness, not the server, would be the limit. "fragments/s" is over the whole run,
staggered starts and second rounds included.

| path | sessions | fragments/s | p50 ms | p99 ms (runs) | p99 start / middle / end | max ms | lost | final exact | CPU ms/fragment | CPU | memory KiB/session | core 1 |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${scale.results.map(scaleRow).join('\n')}
${scaleRow({ ...over, label: `aalis (overload, one run${over.history ? `, ${over.history} history` : ''})` })}

Overload recovery: right after the ${over.sessions} sessions, on the same server, ${over.recovery.sessions} sessions: p50
${ms(over.recovery.p50)} ms, p99 **${ms(over.recovery.p99)} ms** (start / middle / end ${ms(over.recovery.p99ByPhase.start, 1)} / ${ms(over.recovery.p99ByPhase.middle, 1)} / ${ms(over.recovery.p99ByPhase.end, 1)}),
final count exact in ${over.recovery.finalExact}/${over.recovery.sessions}, ${over.recovery.lost} fragments lost.
${integrity}

Largest count with a median p99 at or under ${scale.boundMs} ms: Aalis **${held('aalis')}**${
    scale.largest['aalis-memory'] !== undefined || scale.atLeast['aalis-memory'] !== undefined
      ? ` (history in memory: ${held('aalis-memory')})`
      : ''
  }, the relay
**${held('baseline')}**, the AI SDK peer **${held('peer')}**${heldRatio ? ` (${heldRatio})` : ''}.
${cpuAtPeer ? `CPU per fragment at ${cpuAtPeer[0].sessions} sessions, the peer's largest: the peer ${ms(cpuAtPeer[1].cpuMsPerFragment, 3)} ms, Aalis ${ms(cpuAtPeer[0].cpuMsPerFragment, 3)} ms (peer/Aalis ${(cpuAtPeer[1].cpuMsPerFragment / cpuAtPeer[0].cpuMsPerFragment).toFixed(2)}).` : ''}
For scale (figures from the issue, not measured here): a fetch-based relay on one core
held about 250 such sessions within 50 ms p99, a server built on the AI SDK about 50.

### What a whole session costs

${turnCost.sessions} sessions of one fragment each over ${turnCost.seconds} s (connect, hello, the user message,
the model request, the tool, the second round, the final message, the close), after a
warm-up; server CPU divided by sessions, median of ${turnCost.repeats} runs per target
(bench/turn-cost.mjs). This is what piles up when many turns start or end in the same
second.

| path | CPU ms per session | ratio to Aalis |
| --- | --- | --- |
| baseline relay (one model round, no tool) | ${ms(turnCost.baseline)} | ${(turnCost.baseline / turnCost.aalis).toFixed(2)} |${
    turnCost.turn === undefined
      ? ''
      : `
| turn relay (two rounds, runs its \`get_time\`) | ${ms(turnCost.turn)} | ${(turnCost.turn / turnCost.aalis).toFixed(2)} |`
  }
| Aalis (two rounds, runs \`get_time\`)${turnCost.aalisMemory === undefined ? '' : ', durable history'} | ${ms(turnCost.aalis)} | 1.00 |${
    turnCost.aalisMemory === undefined
      ? ''
      : `
| Aalis, history in memory | ${ms(turnCost.aalisMemory)} | ${(turnCost.aalisMemory / turnCost.aalis).toFixed(2)} |`
  }
| AI SDK peer (two steps, runs its \`get_time\`) | ${ms(turnCost.peer)} | ${(turnCost.peer / turnCost.aalis).toFixed(2)} |

${relayCost ? relayCostSection(relayCost) : ''}## 4. The widget

Headless Chromium, the script-tag build, a 300-message transcript above three cards
fed 100 progress frames a second each for 10 s (bench/widget-render.mjs).

| frames/s | renders/s | paints (animation frames)/s | long tasks (>= 50 ms), page load included | longest | main-thread busy | JS heap |
| --- | --- | --- | --- | --- | --- | --- |
| ${ms(render.framesPerSecond, 0)} | ${ms(render.rendersPerSecond, 1)} | ${ms(render.paintsPerSecond, 1)} | ${render.longTasks} | ${ms(render.longestTaskMs, 0)} ms | ${Math.round(render.mainThreadBusyShare * 100)}% | ${render.heapUsedMb} MB |

Renders per second must not exceed animation frames per second: **${render.rendersPerSecond <= render.paintsPerSecond + 1 ? 'met' : 'missed'}**.
${
  render.longTasksWhileBusy === undefined
    ? ''
    : `Long tasks while the cards tick: **${render.longTasksWhileBusy}** (longest ${ms(render.longestWhileBusyMs, 0)} ms); the others are the page's
load (the script's evaluation) and the first render of the history, before the cards start.
Goal: no long task, at most 25% busy: **${render.longTasksWhileBusy === 0 && render.mainThreadBusyShare <= 0.25 ? 'met' : 'missed'}** while the cards tick; with the page's load, **${render.longTasks === 0 && render.mainThreadBusyShare <= 0.25 ? 'met' : 'missed'}**.
`
}
\`widget/dist/aalis-chat.js\`: ${widgetBundle ? `${widgetBundle.raw} B raw, **${widgetBundle.gzipped} B gzipped**` : 'not built'}; deep-chat's single file is 110 KB gzipped
(ratio ${widgetBundle ? (widgetBundle.gzipped / (110 * 1024)).toFixed(2) : 'n/a'}).

## 5. Resume

A turn runs with ${resume.textKb} KB of text so far and ${resume.tools} tool calls being written; a page
opens on that session. From its WebSocket opening to the restored view painted (what the
reader sees: the end of the text, all ${resume.tools} cards under it, the transcript at its bottom),
${resume.repeats} page loads after a warm-up: median **${ms(resume.medianMs, 0)} ms**, slowest ${ms(resume.maxMs, 0)} ms (bench/resume.mjs).${
    resume.loadMedianMs === undefined
      ? ''
      : ` From the page's navigation to that view: median ${ms(resume.loadMedianMs, 0)} ms. All ${resume.textKb} KB of
text in the page (a long text shows its end first, the rest over the next frames): median
${ms(resume.wholeMedianMs, 0)} ms after the socket opened.`
  }

Goal: at most 100 ms median: **${resume.medianMs <= 100 ? 'met' : 'missed'}**.
${
  idle
    ? `
## 6. Idle connections

${idle.connections} connections that said hello and wait (pages open, no turn), the server alone on core 0
(bench/idle.mjs). Connected in ${ms(idle.connectSeconds, 1)} s. Server memory (RSS): ${ms(idle.rssBeforeMiB, 0)} MiB
before, **${ms(idle.rssWithMiB, 0)} MiB** with them (peak ${ms(idle.rssPeakMiB, 0)} MiB), ${ms(idle.kibPerConnection, 1)} KiB
per connection. CPU while they were idle for ${idle.windowSeconds} s (two heartbeats: a ping to each, its pong back):
**${ms(idle.idleCpuShare * 100, 1)}% of a core**. Connections lost meanwhile: ${idle.closedMeanwhile}.

Goal: under 500 MB and under 5% of a core: **${idle.rssWithMiB * 1.048576 < 500 && idle.idleCpuShare < 0.05 ? 'met' : 'missed'}**.
`
    : ''
}${
    scroll
      ? `
## 7. Scrolling a long transcript

The widget holds a ${scroll.messages}-message transcript, every place shown (answers in markdown,
a list and a code block in every fifth, a table in every tenth); a mouse wheel gesture
(Chromium's \`Input.synthesizeScrollGesture\`) scrolls it from the newest message to the
oldest, ${scroll.scrolledPx} px, ${scroll.runs.length} runs on fresh pages (bench/widget-scroll.mjs).
Long tasks (>= 50 ms) during the scroll: **${scroll.longTasks}** in the worst run (longest
${ms(scroll.longestTaskMs, 0)} ms); frames painted: ${ms(scroll.framesPerSecond, 1)} a second (median), longest gap
between two ${ms(scroll.longestFrameGapMs, 0)} ms.

Goal: no long task: **${scroll.longTasks === 0 ? 'met' : 'missed'}**.
`
      : ''
  }
${existsSync(hand) ? readFileSync(hand, 'utf8') : ''}`;
  return report;
}

/** Benchmark 2c: CPU per fragment against the relay that does the turn's whole work. */
function relayCostSection({ results, repeats, seconds, warmUp }) {
  const row = (sessions, name, figures, ratio) =>
    `| ${sessions} | ${name} | ${ms(figures.cpuMsPerFragment, 4)} (${figures.runs.map((r) => ms(r, 4)).join(', ')}) | ${
      ratio ? `**${ms(ratio.median)}** (${ratio.perRound.map((r) => ms(r)).join(', ')})` : '1.00'
    } | ${ms(figures.p99, 1)} | ${figures.finalExact}/${sessions} | ${figures.lost} | ${Math.round(figures.harnessCoreBusy * 100)}% |`;
  const rows = results.flatMap(({ sessions, byTarget, ratios }) => [
    row(sessions, 'Aalis, durable history', byTarget.aalis, ratios.aalis),
    row(sessions, 'Aalis, history in memory', byTarget['aalis-memory'], ratios['aalis-memory']),
    row(sessions, 'turn relay', byTarget.turn),
  ]);
  return `## 2c. CPU per fragment against a relay that does the turn's whole work

Benchmark 2's load (each session streams a \`get_time\` call whose arguments arrive at 25
fragments/s for ${seconds} s, then a second model round answers with text) through the Aalis
server and through the turn relay (bench/baseline-turn-relay.mjs: relays each argument
fragment, parses the arguments, runs the tool in-process, sends the result back in a
second round, relays the text; no agent, reducer, validation or history). Server alone on
core 0, each run on a fresh server warmed up with ${warmUp} one-fragment turns; ${repeats} rounds,
each running every target once, order rotating. The ratio is taken within each round and
its median reported (each round's in brackets). Command: \`node bench/relay-cost.mjs ${repeats} ${seconds}\`.

| sessions | server | CPU ms/fragment (runs) | ratio to the turn relay (rounds) | p99 ms | final exact | lost | core 1 |
| --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

Goal (issue 29): at most 1.2× the turn relay with durable history: **${
    // A run whose turns did not all end did less than the whole work: it decides nothing.
    results.some(({ sessions, byTarget }) =>
      Object.values(byTarget).some((t) => t.finalExact !== sessions || t.lost),
    )
      ? 'not decided (turns did not all end)'
      : results.every(({ ratios }) => ratios.aalis.median <= 1.2)
        ? 'met'
        : 'missed'
  }**.

`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = JSON.parse(readFileSync(join(root, 'bench/results.json'), 'utf8'));
  writeFileSync(join(root, 'bench/RESULTS.md'), renderReport(results));
}
