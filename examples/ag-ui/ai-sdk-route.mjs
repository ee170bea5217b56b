// An AI SDK chat route, as a Next.js or Express app serves one for useChat, in plain
// node:http: POST { id, messages, trigger } (UI messages) answers a UI message stream made
// with the `ai` package (v6), headers and `[DONE]` included. In a real route, streamText
// with a model and tools makes the stream (`result.pipeUIMessageStreamToResponse(res)`);
// here the same chunks come from a fixed script (agent-script.mjs), so it runs without a key.
//
//   node examples/ag-ui/ai-sdk-route.mjs [port]   # http://127.0.0.1:8791/ (ROUTE_PORT)
//   AGENT_PACE_MS=80 node examples/ag-ui/ai-sdk-route.mjs
//
// How to put an Aalis server in front of it: README.md.
import { randomUUID } from 'node:crypto';
import { createUIMessageStream, pipeUIMessageStreamToResponse, safeValidateUIMessages } from 'ai';
import { fragments, plan, readJson, sleep, words } from './agent-script.mjs';
import { plain, serveAgent } from './serve-agent.mjs';

/**
 * Starts the route. `pace`, `fragments` and `runs` (its `end` events) mean what they mean
 * in agent.mjs: `{ runId, outcome: 'finished' | 'stopped', sentFragments, totalFragments }`,
 * where `runId` is the chat's `id`.
 */
export function startRoute({ port = 8791, host = '127.0.0.1', pace = 40, fragments: count = 60 } = {}) {
  return serveAgent((request, response, runs) => handle(request, response, { pace, count, runs }), {
    port,
    host,
    name: 'ai-sdk-route',
  });
}

async function handle(request, response, { pace, count, runs }) {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (path !== '/' && path !== '/api/chat') return plain(response, 404, 'not found: POST / or /api/chat');
  if (request.method !== 'POST')
    return plain(response, 405, 'POST { id, messages, trigger } here', { allow: 'POST' });

  let body;
  try {
    body = await readJson(request);
  } catch (error) {
    return plain(response, 400, `not JSON: ${error.message}`);
  }
  const checked = await safeValidateUIMessages({ messages: body?.messages });
  if (!checked.success || typeof body.id !== 'string')
    return plain(response, 400, `not a chat request: ${checked.error?.message ?? 'id must be a string'}`);
  const newest = checked.data.findLast((message) => message.role === 'user');
  const question = newest?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n') ?? '';

  // The client closing the request is Stop: the script ends where it is, its timers cleared.
  // (The ai package cancels its own stream then too, but does not tell `execute`.)
  const stop = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) stop.abort();
  });

  const steps = plan(question);
  const pieces = fragments(JSON.stringify(steps.args), count);
  const run = { runId: body.id, outcome: 'finished', sentFragments: 0, totalFragments: pieces.length };
  const stream = createUIMessageStream({
    execute: async ({ writer }) => {
      try {
        await answer(writer, steps, pieces, run, { pace, signal: stop.signal });
      } catch (error) {
        if (!stop.signal.aborted) throw error;
        run.outcome = 'stopped';
      }
      runs.emit('end', run);
    },
    onError: () => 'the agent failed: see its log',
  });
  pipeUIMessageStreamToResponse({ response, stream });
}

/** One step with the tool call and its output, then one with the text: what streamText writes. */
async function answer(writer, steps, pieces, run, { pace, signal }) {
  const toolCallId = `call_${randomUUID()}`;
  const { toolName, args } = steps;
  writer.write({ type: 'start', messageId: `msg_${randomUUID()}` });
  writer.write({ type: 'start-step' });
  writer.write({ type: 'tool-input-start', toolCallId, toolName });
  for (const inputTextDelta of pieces) {
    writer.write({ type: 'tool-input-delta', toolCallId, inputTextDelta });
    run.sentFragments++;
    await sleep(pace, signal);
  }
  writer.write({ type: 'tool-input-available', toolCallId, toolName, input: args });
  await sleep(pace * 5, signal);
  const output = steps.run();
  writer.write({ type: 'tool-output-available', toolCallId, output });
  writer.write({ type: 'finish-step' });

  const id = `text_${randomUUID()}`;
  writer.write({ type: 'start-step' });
  writer.write({ type: 'text-start', id });
  for (const delta of words(steps.answer(output))) {
    writer.write({ type: 'text-delta', id, delta });
    await sleep(pace / 2, signal);
  }
  writer.write({ type: 'text-end', id });
  writer.write({ type: 'finish-step' });
  writer.write({ type: 'finish', finishReason: 'stop' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url, runs } = await startRoute({
    port: Number(process.argv[2] ?? process.env.ROUTE_PORT ?? 8791),
    pace: Number(process.env.AGENT_PACE_MS ?? 40),
  });
  runs.on('end', ({ runId, outcome, sentFragments, totalFragments }) =>
    console.log(
      `ai-sdk-route: chat ${runId} ${outcome === 'stopped' ? 'stopped by the client' : 'finished'} ` +
        `(${sentFragments} of ${totalFragments} input fragments sent)`,
    ),
  );
  console.log(`AI SDK route: POST { id, messages, trigger } to ${url}`);
}
