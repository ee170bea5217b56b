// A fake OpenAI-compatible model in its own process, for benchmarks. A turn is two
// rounds, as a tool-using model's is:
// - a completion request without tool results streams one tool call whose arguments
//   arrive in FRAGMENTS pieces at RATE per second (real SSE format): `{`, then FRAGMENTS
//   blanks, then `}` (the arguments `{}`), and finishes with `tool_calls`;
// - a request that carries the tool's result (a `tool` message) streams a short text
//   answer and finishes with `stop`.
// The call id, `call_<id>`, tells a client whose fragment it received. The tool is
// TOOL_NAME, one the server runs (Aalis, the turn relay and the AI SDK peer run
// `get_time`); without it, it is named after the stream (`t_<id>`) for the first relay
// (bench/baseline-relay.mjs), which shows the model's chunks as they are and runs no tool.
// A user message `warm-up` gets a one-fragment call. Every fragment's write time
// (process.hrtime, the system's monotonic clock, comparable across processes) is kept in
// memory, so no disk write disturbs the pacing, and served at GET /writes as lines
// "<stream id> <fragment> <ns>".
import { createServer } from 'node:http';

const FRAGMENTS = Number(process.env.FRAGMENTS ?? 200);
const RATE = Number(process.env.RATE ?? 25);
const PORT = Number(process.env.PORT ?? 0);
let streams = 0;
const writes = [];

const chunk = (delta, finish = null) =>
  `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const server = createServer(async (req, res) => {
  if (req.method === 'GET' && req.url === '/writes') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end(writes.join('\n'));
    return;
  }
  let body = '';
  for await (const part of req) body += part;
  const request = JSON.parse(body || '{}');
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (request.messages?.some((m) => m.role === 'tool')) {
    res.end(chunk({ role: 'assistant', content: 'done' }) + chunk({}, 'stop') + 'data: [DONE]\n\n');
    return;
  }
  const stream = ++streams;
  // A warm-up turn (the user said `warm-up`) runs every code path with one fragment.
  const last = request.messages?.at(-1);
  const fragments = last?.role === 'user' && last.content === 'warm-up' ? 1 : FRAGMENTS;
  res.write(chunk({ role: 'assistant', content: null }));
  res.write(
    chunk({
      tool_calls: [
        {
          index: 0,
          id: `call_${stream}`,
          type: 'function',
          function: { name: process.env.TOOL_NAME ?? `t_${stream}`, arguments: '{' },
        },
      ],
    }),
  );
  const interval = 1000 / RATE;
  const start = performance.now();
  for (let i = 1; i <= fragments; i++) {
    // Paced against the start, so that slow writes do not drift the rate.
    const wait = start + i * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (res.destroyed) break;
    res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: ' ' } }] }));
    writes.push(`${stream} ${i} ${process.hrtime.bigint()}`);
  }
  res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '}' } }] }));
  res.end(chunk({}, 'tool_calls') + 'data: [DONE]\n\n');
});
// Idle connections stay open a minute (Node's default is 5 s): on a starved machine a
// client can otherwise reuse a kept-alive connection just as the upstream closes it, and
// the turn fails with "other side closed" before its second round.
server.keepAliveTimeout = 60_000;
server.listen(PORT, '127.0.0.1', () => process.send?.({ port: server.address().port }));
