// A client in its own process: starts SESSIONS turns (one per connection) on TARGET
// (`aalis` or `baseline` over a WebSocket, `peer` over HTTP with an SSE answer) at URL,
// and records when each tool-call fragment arrived (process.hrtime). The tool's name,
// `t_<stream>`, or for the peer its call id, `call_<stream>`, says which upstream stream
// a fragment belongs to. Prints JSON on stdout when every turn ended:
// { arrivals: [[stream, fragment, ns], ...], finalChars: [...], closed: n }.
import { request } from 'node:http';
import { ws as WebSocket } from './lib.mjs';

const URL = process.env.URL;
const TARGET = process.env.TARGET;
const SESSIONS = Number(process.env.SESSIONS ?? 1);
/** Fragments per stream; the closing brace after them is not a fragment. */
const FRAGMENTS_MAX = Number(process.env.FRAGMENTS ?? 1e9);
/** What the user says; `warm-up` asks the fake upstream for a one-fragment turn. */
const TEXT = process.env.TEXT ?? 'go';
const arrivals = [];
const finalChars = [];
let closed = 0;

function runAalis() {
  return new Promise((resolve) => {
    const socket = new WebSocket(URL);
    let last = 0;
    socket.on('error', () => resolve());
    socket.on('close', () => {
      closed++;
      resolve();
    });
    socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', protocol: 1 })));
    socket.on('message', (data) => {
      const now = process.hrtime.bigint();
      const frame = JSON.parse(data.toString());
      if (frame.type === 'ready') socket.send(JSON.stringify({ type: 'send', text: TEXT }));
      else if (frame.type === 'stream' && frame.toolCallProgress) {
        const { name, charsAccumulated } = frame.toolCallProgress;
        last = charsAccumulated;
        // Fragment k carries the k-th blank after the opening brace.
        if (charsAccumulated > 1 && charsAccumulated - 1 <= FRAGMENTS_MAX) {
          arrivals.push([Number(name.slice(2)), charsAccumulated - 1, String(now)]);
        }
      } else if (frame.type === 'message') {
        finalChars.push(last);
        socket.removeAllListeners('close');
        socket.close();
        resolve();
      }
    });
  });
}

function runBaseline() {
  return new Promise((resolve) => {
    const socket = new WebSocket(URL);
    let stream = 0;
    let fragment = 0;
    socket.on('error', () => resolve());
    socket.on('open', () => socket.send(TEXT));
    socket.on('message', (data) => {
      const now = process.hrtime.bigint();
      const chunk = JSON.parse(data.toString());
      const call = chunk.choices?.[0]?.delta?.tool_calls?.[0];
      if (call?.function?.name) stream = Number(call.function.name.slice(2));
      if (call?.function?.arguments === ' ') arrivals.push([stream, ++fragment, String(now)]);
      if (chunk.done) {
        finalChars.push(fragment + 2);
        socket.close();
        resolve();
      }
    });
  });
}

/** One POST, answered with the AI SDK's UI message stream (SSE, one JSON chunk per event). */
function runPeer() {
  return new Promise((resolve) => {
    const req = request(URL, { method: 'POST', agent: false }, (res) => {
      res.setEncoding('utf8');
      let buffered = '';
      let stream = 0;
      let fragment = 0;
      res.on('data', (text) => {
        const now = process.hrtime.bigint();
        buffered += text;
        let end;
        while ((end = buffered.indexOf('\n\n')) >= 0) {
          const data = buffered.slice(0, end).replace(/^data: /, '');
          buffered = buffered.slice(end + 2);
          if (data === '[DONE]') continue;
          const chunk = JSON.parse(data);
          if (chunk.type === 'tool-input-start') stream = Number(chunk.toolCallId.slice(5));
          else if (chunk.type === 'tool-input-delta' && chunk.inputTextDelta === ' ') {
            arrivals.push([stream, ++fragment, String(now)]);
          } else if (chunk.type === 'finish') finalChars.push(fragment + 2);
        }
      });
      res.on('end', resolve);
      res.on('error', resolve);
    });
    req.on('error', resolve);
    req.end(TEXT);
  });
}

// Sessions start spread over STAGGER_MS, as users do, rather than in one burst.
const STAGGER_MS = Number(process.env.STAGGER_MS ?? 1000);
await Promise.all(
  Array.from({ length: SESSIONS }, async (_, i) => {
    if (SESSIONS > 1) await new Promise((r) => setTimeout(r, (i * STAGGER_MS) / SESSIONS));
    return TARGET === 'aalis' ? runAalis() : TARGET === 'peer' ? runPeer() : runBaseline();
  }),
);
process.stdout.write(JSON.stringify({ arrivals, finalChars, closed }));
