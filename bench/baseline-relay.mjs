// The baseline for added latency: the least a relay can do. On a WebSocket message it
// requests the model's SSE stream with fetch, parses each event and forwards its data
// over the socket as is. No agent, no reducer, no validation, no buffers.
import { takeSseData, ws } from './lib.mjs';

const { WebSocketServer } = ws;

const UPSTREAM = process.env.UPSTREAM;
const wss = new WebSocketServer({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' }, () =>
  process.send?.({ port: wss.address().port }),
);
wss.on('connection', (socket) => {
  socket.on('message', (text) => relay(socket, String(text)).catch(() => socket.close(1011)));
});

async function relay(socket, text) {
  const response = await fetch(`${UPSTREAM}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'bench',
      stream: true,
      messages: [{ role: 'user', content: text }],
    }),
  });
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of response.body) {
    const { data, rest } = takeSseData(buffered + decoder.decode(bytes, { stream: true }));
    buffered = rest;
    for (const event of data) if (event !== '[DONE]') socket.send(JSON.stringify(JSON.parse(event)));
  }
  socket.send('{"done":true}');
}
