// The peer of benchmark 3: the least a chat server on the Vercel AI SDK needs for the
// same job. POST /chat starts a turn: `streamText` on the fake upstream (Chat
// Completions, through @ai-sdk/openai) with one tool that runs and a second step for the
// model's answer, piped to the response as the SDK's UI message stream over SSE. Same
// work as the Aalis server per turn: two model rounds, one tool run, every tool-input
// fragment forwarded as it arrives.
import { createServer } from 'node:http';
import { createOpenAI } from '@ai-sdk/openai';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';

const provider = createOpenAI({ apiKey: 'bench', baseURL: `${process.env.UPSTREAM}/v1` });
const tools = {
  [process.env.TOOL_NAME ?? 'bench_tool']: tool({
    description: 'A tool the benchmark model calls.',
    inputSchema: jsonSchema({ type: 'object' }),
    execute: async () => 'ok',
  }),
};

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/chat') {
    res.writeHead(404).end();
    return;
  }
  let text = '';
  req.setEncoding('utf8');
  req.on('data', (part) => (text += part));
  req.on('end', () => {
    const result = streamText({
      model: provider.chat('bench'),
      messages: [{ role: 'user', content: text || 'go' }],
      tools,
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    });
    result.pipeUIMessageStreamToResponse(res);
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () =>
  process.send?.({ port: server.address().port }),
);
