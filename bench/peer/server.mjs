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
  // What Aalis's built-in get_time does, so that both run the same tool.
  [process.env.TOOL_NAME ?? 'get_time']: tool({
    description: 'The current date and time, in an IANA time zone (UTC by default).',
    inputSchema: jsonSchema({
      type: 'object',
      properties: { timezone: { type: 'string' } },
      additionalProperties: false,
    }),
    execute: async ({ timezone = 'UTC' }) => ({
      timezone,
      now: new Intl.DateTimeFormat('en-GB', {
        timeZone: timezone,
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(new Date()),
      iso: new Date().toISOString(),
    }),
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
