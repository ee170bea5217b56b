// An AG-UI agent, as a site owner might already run one: plain node:http, the official
// schemas (@ag-ui/core) and encoder (@ag-ui/encoder), no framework. POST / (or /agent)
// takes a RunAgentInput and streams the run's events. A LangGraph, Mastra, Pydantic AI,
// CrewAI or Google ADK agent behind its AG-UI endpoint speaks exactly these events; this one
// follows a fixed script (agent-script.mjs) so that it runs without a model or a key.
//
//   node examples/ag-ui/agent.mjs [port]        # http://127.0.0.1:8790/ (AGENT_PORT)
//   AGENT_PACE_MS=80 node examples/ag-ui/agent.mjs   # slower fragments (default 40 ms)
//
// How to put an Aalis server in front of it: README.md.
import { randomUUID } from 'node:crypto';
import { EventType } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { fragments, plan, questionOf, readJson, sleep, words } from './agent-script.mjs';
import { plain, serveAgent } from './serve-agent.mjs';

/**
 * Starts the agent. `pace` is the wait in ms after each fragment (0 in tests), `fragments`
 * how many pieces the tool call's arguments are written in. `runs` emits `end` once per run:
 * `{ runId, outcome: 'finished' | 'stopped', sentFragments, totalFragments }`.
 */
export function startAgent({ port = 8790, host = '127.0.0.1', pace = 40, fragments: count = 60 } = {}) {
  return serveAgent((request, response, runs) => handle(request, response, { pace, count, runs }), {
    port,
    host,
    name: 'agent',
  });
}

async function handle(request, response, { pace, count, runs }) {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (path !== '/' && path !== '/agent') return plain(response, 404, 'not found: POST / or /agent');
  if (request.method !== 'POST')
    return plain(response, 405, 'POST a RunAgentInput here (AG-UI)', { allow: 'POST' });

  let body;
  try {
    body = await readJson(request);
  } catch (error) {
    return plain(response, 400, `not JSON: ${error.message}`);
  }
  const input = RunAgentInputSchema.safeParse(body);
  if (!input.success) return plain(response, 400, `not a RunAgentInput: ${input.error.issues[0]?.message}`);
  const { threadId, runId, messages } = input.data;

  // SSE unless the client asks for AG-UI's protobuf framing: the encoder decides, as
  // every official AG-UI server does.
  const encoder = new EventEncoder({ accept: request.headers.accept });
  response.writeHead(200, { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache' });
  const send = (event) => response.write(encoder.encodeBinary(event));

  // The client closing the request is Stop: the run ends where it is, its timers cleared.
  const stop = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) stop.abort();
  });

  const steps = plan(questionOf(messages));
  const pieces = fragments(JSON.stringify(steps.args), count);
  const run = { runId, outcome: 'finished', sentFragments: 0, totalFragments: pieces.length };
  try {
    send({ type: EventType.RUN_STARTED, threadId, runId });
    // The tool call hangs from an assistant message, as a model's tool call does.
    const toolCallId = `call_${randomUUID()}`;
    send({
      type: EventType.TOOL_CALL_START,
      toolCallId,
      toolCallName: steps.toolName,
      parentMessageId: `msg_${randomUUID()}`,
    });
    for (const delta of pieces) {
      send({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta });
      run.sentFragments++;
      await sleep(pace, stop.signal);
    }
    send({ type: EventType.TOOL_CALL_END, toolCallId });

    // The agent runs its own tools: the result goes to the client, as a tool message.
    await sleep(pace * 5, stop.signal);
    const result = steps.run();
    send({
      type: EventType.TOOL_CALL_RESULT,
      messageId: `${toolCallId}:result`,
      toolCallId,
      content: JSON.stringify(result),
      role: 'tool',
    });

    const messageId = `msg_${randomUUID()}`;
    send({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    for (const delta of words(steps.answer(result))) {
      send({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
      await sleep(pace / 2, stop.signal);
    }
    send({ type: EventType.TEXT_MESSAGE_END, messageId });
    send({ type: EventType.RUN_FINISHED, threadId, runId });
    response.end();
  } catch (error) {
    if (!stop.signal.aborted) throw error;
    run.outcome = 'stopped';
  }
  runs.emit('end', run);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url, runs } = await startAgent({
    port: Number(process.argv[2] ?? process.env.AGENT_PORT ?? 8790),
    pace: Number(process.env.AGENT_PACE_MS ?? 40),
  });
  runs.on('end', ({ runId, outcome, sentFragments, totalFragments }) =>
    console.log(
      `agent: run ${runId} ${outcome === 'stopped' ? 'stopped by the client' : 'finished'} ` +
        `(${sentFragments} of ${totalFragments} argument fragments sent)`,
    ),
  );
  console.log(`AG-UI agent: POST a RunAgentInput to ${url}`);
}
