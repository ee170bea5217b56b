// A client in its own process: starts SESSIONS turns (one per connection) on TARGET
// (`aalis`, `baseline` or `turn` over a WebSocket, `peer` over HTTP with an SSE answer) at
// TARGET_URL, and records when each tool-call fragment arrived (process.hrtime). The
// tool call's id, `call_<stream>`, says which upstream stream a fragment belongs to (for
// the relay, which forwards the model's chunks as they are, so does the tool's name,
// `t_<stream>`). Prints JSON on stdout when every turn ended:
// { arrivals: [stream, fragment, ns, stream, fragment, ns, ...], finalChars: [...], stuck }.
// Arrivals are flat numbers, not an array per fragment: a thousand sessions make half a
// million of them, and the client's own garbage collection must not show as latency.
import { request } from 'node:http';
import { takeSseData, ws as WebSocket } from './lib.mjs';

const TARGET_URL = process.env.TARGET_URL;
const TARGET = process.env.TARGET;
const SESSIONS = Number(process.env.SESSIONS ?? 1);
/** Fragments per stream; the closing brace after them is not a fragment. */
const FRAGMENTS_MAX = Number(process.env.FRAGMENTS ?? 1e9);
/** What the user says; `warm-up` asks the fake upstream for a one-fragment turn. */
const TEXT = process.env.TEXT ?? 'go';
/** A turn that has not ended by then is given up and counted as stuck. */
const TURN_TIMEOUT_MS = Number(process.env.TURN_TIMEOUT_MS ?? 180_000);
const arrivals = [];
const finalChars = [];
let stuck = 0;

/** Fragments `from` to `to` (the arguments' k-th blank is fragment k) arrived now. */
function arrived(stream, from, to, now) {
  for (let fragment = from; fragment <= Math.min(to, FRAGMENTS_MAX); fragment++) {
    arrivals.push(stream, fragment, now);
  }
}

/**
 * A turn over a WebSocket: `first` is sent when it opens; `onFrame(frame, now, end)` reads
 * each parsed frame, `now` taken on receipt, and calls `end(finalChars)` when the turn is over.
 */
function socketTurn(done, first, onFrame) {
  const socket = new WebSocket(TARGET_URL);
  socket.on('error', done);
  socket.on('close', done);
  socket.on('open', () => socket.send(first));
  const end = (chars) => {
    finalChars.push(chars);
    socket.close();
    done();
  };
  socket.on('message', (data) => {
    const now = Number(process.hrtime.bigint());
    onFrame(JSON.parse(data.toString()), now, end, socket);
  });
  return () => socket.terminate();
}

function runAalis(done) {
  let last = 0;
  // Progress frames carry no call id: the fragments wait for the tool's start, which does.
  const pending = [];
  return socketTurn(done, JSON.stringify({ type: 'hello', protocol: 1 }), (frame, now, end, socket) => {
    if (frame.type === 'ready') socket.send(JSON.stringify({ type: 'send', text: TEXT }));
    else if (frame.type === 'stream' && frame.toolCallProgress) {
      const { charsAccumulated } = frame.toolCallProgress;
      // Under backpressure the server may collapse progress frames: every fragment the
      // count passed arrived with this frame, late, and counts so.
      pending.push([Math.max(1, last), charsAccumulated - 1, now]);
      last = charsAccumulated;
    } else if (frame.type === 'tool_execute' && frame.phase === 'start') {
      const stream = Number(frame.callId.slice(5));
      for (const [from, to, at] of pending) arrived(stream, from, to, at);
    } else if (frame.type === 'message') end(last);
  });
}

function runBaseline(done) {
  let stream = 0;
  let fragment = 0;
  return socketTurn(done, TEXT, (chunk, now, end) => {
    const call = chunk.choices?.[0]?.delta?.tool_calls?.[0];
    if (call?.function?.name) stream = Number(call.function.name.slice(2));
    if (call?.function?.arguments === ' ') arrived(stream, ++fragment, fragment, now);
    // The relay has no count of its own: the client's count of blanks, and the braces.
    if (chunk.done) end(fragment + 2);
  });
}

/** bench/baseline-turn-relay.mjs: a frame per fragment, the tool's result, text, the end. */
function runTurnRelay(done) {
  let fragment = 0;
  return socketTurn(done, TEXT, (frame, now, end) => {
    if (frame.args === ' ') arrived(Number(frame.id.slice(5)), ++fragment, fragment, now);
    // The relay's own count of the arguments' characters, as Aalis's final count.
    else if (frame.done) end(frame.chars);
  });
}

/** One POST, answered with the AI SDK's UI message stream (SSE, one JSON chunk per event). */
function runPeer(done) {
  const req = request(TARGET_URL, { method: 'POST', agent: false }, (res) => {
    res.setEncoding('utf8');
    let buffered = '';
    let stream = 0;
    let fragment = 0;
    res.on('data', (text) => {
      const now = Number(process.hrtime.bigint());
      const { data: events, rest } = takeSseData(buffered + text);
      buffered = rest;
      for (const data of events) {
        if (data === '[DONE]') continue;
        const chunk = JSON.parse(data);
        if (chunk.type === 'tool-input-start') stream = Number(chunk.toolCallId.slice(5));
        else if (chunk.type === 'tool-input-delta' && chunk.inputTextDelta === ' ') {
          arrived(stream, ++fragment, fragment, now);
        } else if (chunk.type === 'finish') finalChars.push(fragment + 2);
      }
    });
    res.on('close', done);
    res.on('error', done);
  });
  req.on('error', done);
  req.end(TEXT);
  return () => req.destroy();
}

const run = { aalis: runAalis, baseline: runBaseline, turn: runTurnRelay, peer: runPeer }[TARGET];

/** One turn, ended by its client, its connection, or the timeout. */
const turn = () =>
  new Promise((resolve) => {
    let timer;
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const giveUp = run(done);
    timer = setTimeout(() => {
      stuck++;
      giveUp();
      done();
    }, TURN_TIMEOUT_MS);
  });

// Sessions start spread over STAGGER_MS, as users do, rather than in one burst.
const STAGGER_MS = Number(process.env.STAGGER_MS ?? 1000);
await Promise.all(
  Array.from({ length: SESSIONS }, async (_, i) => {
    if (SESSIONS > 1) await new Promise((r) => setTimeout(r, (i * STAGGER_MS) / SESSIONS));
    return turn();
  }),
);
process.stdout.write(JSON.stringify({ arrivals, finalChars, stuck }));
