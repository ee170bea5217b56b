// A WebSocket client in its own process: starts SESSIONS turns (one per connection) on
// TARGET (`aalis` or `baseline`) at URL, and records when each tool-call fragment
// arrived (process.hrtime). The tool's name, `t_<stream>`, says which upstream stream a
// fragment belongs to. Prints JSON on stdout when every turn ended:
// { arrivals: [[stream, fragment, ns], ...], finalChars: [...], closed: n }.
import { ws as WebSocket } from './lib.mjs';

const URL = process.env.URL;
const TARGET = process.env.TARGET;
const SESSIONS = Number(process.env.SESSIONS ?? 1);
/** Fragments per stream; the closing brace after them is not a fragment. */
const FRAGMENTS_MAX = Number(process.env.FRAGMENTS ?? 1e9);
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
      if (frame.type === 'ready') socket.send(JSON.stringify({ type: 'send', text: 'go' }));
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
    socket.on('open', () => socket.send('go'));
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

// Sessions start spread over STAGGER_MS, as users do, rather than in one burst.
const STAGGER_MS = Number(process.env.STAGGER_MS ?? 1000);
await Promise.all(
  Array.from({ length: SESSIONS }, async (_, i) => {
    if (SESSIONS > 1) await new Promise((r) => setTimeout(r, (i * STAGGER_MS) / SESSIONS));
    return TARGET === 'aalis' ? runAalis() : runBaseline();
  }),
);
process.stdout.write(JSON.stringify({ arrivals, finalChars, closed }));
