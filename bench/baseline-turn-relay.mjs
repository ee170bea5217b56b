// The baseline for CPU per fragment (issue 29): the least a server can do that does a
// turn's whole work, as Aalis does on the benchmarks' load. On a WebSocket message it
// requests the model's SSE stream with fetch (the tool declared), parses each event,
// gathers the tool call's argument fragments as they stream and relays each one over the
// socket, parses the complete arguments, runs the tool in-process (the current time, as
// Aalis's built-in `get_time`), sends the result back in a second model round and relays
// that round's text; then one closing frame with the length of the arguments (its own
// count, as Aalis's final progress count). No agent, no reducer, no validation, no
// history, no buffers beyond the arguments of the calls being streamed.
//
// Frames (JSON): {"id":"call_7","args":" "} per fragment, {"id":"call_7","result":{...}}
// per tool run, {"text":"..."} per text delta, {"done":true,"chars":N} at the end.
import { currentTime } from '../server/dist/tools/builtin/time.js';
import { takeSseData, ws } from './lib.mjs';

const { WebSocketServer } = ws;

const UPSTREAM = process.env.UPSTREAM;
/** A model that keeps calling tools is stopped after this many rounds, as Aalis stops it. */
const MAX_ROUNDS = 5;

// The tool itself, in-process: Aalis's own built-in `get_time` (as built by `npm install`),
// declared to the model as Aalis declares it, run without the registry's validation.
const TOOLS = [
  {
    type: 'function',
    function: {
      name: currentTime.name,
      description: currentTime.description,
      parameters: currentTime.parameters,
    },
  },
];

async function runTool(name, args) {
  if (name !== currentTime.name) return { error: `unknown tool ${name}` };
  try {
    return await currentTime.execute(args, {});
  } catch (error) {
    return { error: error.message };
  }
}

const wss = new WebSocketServer({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' }, () =>
  process.send?.({ port: wss.address().port }),
);
let failures = 0;
wss.on('connection', (socket) => {
  socket.on('message', (text) =>
    turn(socket, String(text)).catch((error) => {
      // A failed turn does less work than a whole one: say so, the run is then suspect.
      if (++failures <= 3) console.error(`turn relay: turn failed: ${error.cause?.message ?? error.message}`);
      socket.close(1011);
    }),
  );
});

async function turn(socket, text) {
  const messages = [{ role: 'user', content: text }];
  let chars = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const calls = await modelRound(socket, messages);
    if (!calls.length) break;
    messages.push({
      role: 'assistant',
      content: null,
      tool_calls: calls.map(({ id, name, args }) => ({
        id,
        type: 'function',
        function: { name, arguments: args },
      })),
    });
    for (const call of calls) {
      chars += call.args.length;
      const result = await runTool(call.name, JSON.parse(call.args || '{}'));
      socket.send(JSON.stringify({ id: call.id, result }));
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  socket.send(JSON.stringify({ done: true, chars }));
}

/** One streamed completion: relays text and argument fragments; resolves with the calls. */
async function modelRound(socket, messages) {
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'bench', stream: true, messages, tools: TOOLS }),
  };
  // One retry when the request fails before an answer (a kept-alive connection the
  // upstream closed meanwhile), as the model SDKs do.
  const response = await fetch(`${UPSTREAM}/v1/chat/completions`, request).catch(() =>
    fetch(`${UPSTREAM}/v1/chat/completions`, request),
  );
  if (!response.ok) throw new Error(`upstream ${response.status}`);
  const calls = [];
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of response.body) {
    const { data, rest } = takeSseData(buffered + decoder.decode(bytes, { stream: true }));
    buffered = rest;
    for (const event of data) {
      if (event === '[DONE]') continue;
      const delta = JSON.parse(event).choices?.[0]?.delta;
      if (!delta) continue;
      if (delta.content) socket.send(JSON.stringify({ text: delta.content }));
      for (const part of delta.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: part.id, name: '', args: '' });
        if (part.function?.name) call.name = part.function.name;
        const fragment = part.function?.arguments;
        if (fragment) {
          call.args += fragment;
          socket.send(JSON.stringify({ id: call.id, args: fragment }));
        }
      }
    }
  }
  return calls.filter(Boolean);
}
