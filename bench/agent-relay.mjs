// What fronting an agent with Aalis costs per fragment. A fake AG-UI agent (in this
// process) writes one tool call's arguments in FRAGMENTS one-character TOOL_CALL_ARGS at
// RATE per second, noting when it wrote each; three readers take the same run in turn:
//   direct   the agent's own SSE, read straight (what a page gets without Aalis: no
//            resume, no Stop, no budgets), the baseline;
//   widget   the Aalis server (the CLI, AALIS_AGENT_PROTOCOL=ag-ui) in front of it, its
//            card frames on a WebSocket, as the widget reads them;
//   ag-ui    the same server's POST /ag-ui, its TOOL_CALL_ARGS, as an AG-UI client reads them.
// Each reader's latency from the agent's write to its arrival, median and p95, and the
// ratio of each to the baseline of the same round. Rounds alternate the readers.
//
//   node bench/agent-relay.mjs            ROUNDS=3 FRAGMENTS=100 RATE=25
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { median, ms, percentile, startAalis, takeSseData, ws as WebSocket } from './lib.mjs';

const FRAGMENTS = Number(process.env.FRAGMENTS ?? 100);
const RATE = Number(process.env.RATE ?? 25);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
/** The arguments before the fragments: a card's count is this plus the fragments so far. */
const OPENING = '{"note":"';

/** The agent's write times of the run under way, by fragment (1-based), in ms. */
let writes = [];

const event = (e) => `data: ${JSON.stringify(e)}\n\n`;
const now = () => Number(process.hrtime.bigint()) / 1e6;

const agent = createServer(async (req, res) => {
  let body = '';
  for await (const part of req) body += part;
  const { threadId = 't', runId = 'r' } = JSON.parse(body || '{}');
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  writes = [];
  res.write(event({ type: 'RUN_STARTED', threadId, runId }));
  res.write(event({ type: 'TOOL_CALL_START', toolCallId: 'call_bench', toolCallName: 'save_note' }));
  res.write(event({ type: 'TOOL_CALL_ARGS', toolCallId: 'call_bench', delta: OPENING }));
  for (let k = 1; k <= FRAGMENTS; k++) {
    await new Promise((resolve) => setTimeout(resolve, 1000 / RATE));
    writes[k] = now();
    res.write(event({ type: 'TOOL_CALL_ARGS', toolCallId: 'call_bench', delta: 'x' }));
  }
  res.write(event({ type: 'TOOL_CALL_ARGS', toolCallId: 'call_bench', delta: '"}' }));
  res.write(event({ type: 'TOOL_CALL_END', toolCallId: 'call_bench' }));
  res.write(
    event({ type: 'TOOL_CALL_RESULT', messageId: 'm_r', toolCallId: 'call_bench', content: 'saved' }),
  );
  res.write(event({ type: 'TEXT_MESSAGE_START', messageId: 'm_t', role: 'assistant' }));
  res.write(event({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm_t', delta: 'Saved.' }));
  res.write(event({ type: 'TEXT_MESSAGE_END', messageId: 'm_t' }));
  res.end(event({ type: 'RUN_FINISHED', threadId, runId }));
});
await new Promise((resolve) => agent.listen(0, '127.0.0.1', resolve));
const agentUrl = `http://127.0.0.1:${agent.address().port}/`;

/** Reads an SSE response, calling `onEvent` with each parsed event as it arrives. */
async function readSse(response, onEvent) {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const piece of response.body) {
    const taken = takeSseData(rest + decoder.decode(piece, { stream: true }));
    rest = taken.rest;
    for (const data of taken.data) onEvent(JSON.parse(data));
  }
}

/** An AG-UI run read at `url`: each fragment's arrival (ms), by its number. */
async function agUiArrivals(url) {
  const arrivals = [];
  let count = 0;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: randomUUID(),
      runId: randomUUID(),
      messages: [{ id: randomUUID(), role: 'user', content: 'save a note' }],
      tools: [],
      context: [],
    }),
  });
  await readSse(response, (e) => {
    if (e.type === 'TOOL_CALL_ARGS' && e.delta === 'x') arrivals[++count] = now();
  });
  return arrivals;
}

/** A turn on the Aalis socket: each fragment's arrival (ms), by the card's count. */
function widgetArrivals(port) {
  return new Promise((resolve, reject) => {
    const arrivals = [];
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    socket.on('error', reject);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', protocol: 1 })));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === 'ready') socket.send(JSON.stringify({ type: 'send', text: 'save a note' }));
      const count = frame.toolCallProgress?.charsAccumulated;
      if (count > OPENING.length && count <= OPENING.length + FRAGMENTS)
        arrivals[count - OPENING.length] ??= now();
      if (frame.type === 'message') {
        socket.close();
        resolve(arrivals);
      }
    });
  });
}

const latencies = (arrivals) =>
  arrivals.flatMap((at, k) => (at === undefined || writes[k] === undefined ? [] : [at - writes[k]]));

const server = await startAalis('http://127.0.0.1:9', {
  history: 'memory',
  env: { AALIS_AGENT_PROTOCOL: 'ag-ui', AALIS_AGENT_URL: agentUrl, AALIS_IP_TURNS_PER_HOUR: '0' },
});
const readers = {
  direct: () => agUiArrivals(agentUrl),
  widget: () => widgetArrivals(server.port),
  'ag-ui': () => agUiArrivals(`http://127.0.0.1:${server.port}/ag-ui`),
};
const results = Object.fromEntries(
  Object.keys(readers).map((name) => [name, { medians: [], p95s: [], lost: 0 }]),
);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, read] of Object.entries(readers)) {
      const seen = latencies(await read()).sort((a, b) => a - b);
      results[name].medians.push(median(seen));
      results[name].p95s.push(percentile(seen, 95));
      results[name].lost += FRAGMENTS - seen.length;
    }
  }
} finally {
  server.child.kill();
  agent.close();
}
const base = results.direct;
console.log(
  `${FRAGMENTS} fragments at ${RATE}/s, ${ROUNDS} rounds; latency from the agent's write to arrival`,
);
console.log('reader   median ms  p95 ms   median / direct  lost');
for (const [name, r] of Object.entries(results)) {
  const m = median(r.medians);
  console.log(
    `${name.padEnd(8)} ${ms(m).padStart(9)}  ${ms(median(r.p95s)).padStart(6)}   ${ms(m / median(base.medians)).padStart(15)}  ${r.lost}`,
  );
}
