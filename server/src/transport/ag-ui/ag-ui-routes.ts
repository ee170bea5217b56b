/**
 * AG-UI out (PROTOCOL.md section 6): the server as an agent any AG-UI client (CopilotKit,
 * `HttpAgent`) can run. `POST /ag-ui` takes a `RunAgentInput` and streams the run's
 * events; `GET /ag-ui/threads/{threadId}/stream` rejoins the thread's live run (what
 * AG-UI itself lacks), and `POST /ag-ui/threads/{threadId}/stop` stops it. A thread is
 * an Aalis session, bound to its visitor exactly as on the socket; the Host, Origin and
 * per-IP checks of the socket's admission, the per-address sends, the bot challenge and
 * the budgets all apply.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ErrorCode,
  Limits,
  type ChatMessage,
  type ServerFrame,
  type StreamResumeFrame,
} from '@aalis/protocol';
import type { SessionHub } from '../../sessions/session-hub.js';
import { logErrorWithId } from '../../util/log-error.js';
import type { Admit } from '../admission.js';
import type { ConnectionOptions } from '../client-connection.js';
import type { RouteHooks } from '../http-routes.js';
import { answerPreflight, corsFor } from '../cors.js';
import { AgUiRun } from './ag-ui-run.js';
import { agUiPackages } from './ag-ui-packages.js';
import { AgUiStream, encoderFor } from './ag-ui-stream.js';
import { ANONYMOUS_KEY_HEADER, identifyAgUi } from './ag-ui-visitor.js';
import { questionOf } from './run-input.js';

export const AG_UI_PATH = '/ag-ui';
export const AG_UI_REJOIN_PATH = '/ag-ui/threads/:threadId/stream';
export const AG_UI_STOP_PATH = '/ag-ui/threads/:threadId/stop';

/** A thread id the server takes as a session id: what AG-UI clients make (UUIDs, nanoids). */
const THREAD_ID = new RegExp(`^[A-Za-z0-9_.:-]{1,${Limits.sessionId}}$`);
/** The largest `RunAgentInput` read: the client's own copy of the conversation rides along. */
export const DEFAULT_AG_UI_BODY_BYTES = 1024 * 1024;

export interface AgUiRoutesOptions {
  hub: SessionHub;
  admit: Admit;
  /** The socket's connection options: the same visitor check, token, challenge and per-address sends. */
  connection: ConnectionOptions;
  hooks: RouteHooks;
  allowedOrigins: readonly string[];
  addressKeyOf: (ip: string) => string;
  /** The per-address count of open connections: a stream holds a place as a socket does. */
  openSockets?: { opened(address: string): void; release(address: string): void } | undefined;
  maxBodyBytes?: number;
}

/** A request let in, its visitor known: the stream that will answer it. */
interface Opened {
  stream: AgUiStream;
  /** The client address's count key. */
  address: string | undefined;
}

type Refusal = { status: number; code: string; message: string; headers?: Record<string, string> };
const NOT_FOUND: Refusal = { status: 404, code: 'not_found', message: 'no such thread' };

export function registerAgUiRoutes(app: FastifyInstance, options: AgUiRoutesOptions): void {
  const { hub, admit, connection, hooks, allowedOrigins } = options;
  const live = new Set<{ stream: AgUiStream; run: AgUiRun | undefined }>();

  // Shutdown: every run has ended with its turn (the hub's shutdown ends them first); a
  // stream still open (a rejoin of a thread whose run ended on another instance) ends now.
  app.addHook('preClose', async () => {
    for (const { stream, run } of live) {
      run?.fail(ErrorCode.ShuttingDown, 'the server is restarting: rejoin in a moment');
      stream.end();
    }
  });

  const refuse = (reply: FastifyReply, { status, code, message, headers = {} }: Refusal) =>
    reply.code(status).headers(headers).send({ error: message, code });

  /** Admission, CORS and the visitor: the stream ready to bind, or the answer already sent. */
  const open = async (request: FastifyRequest, reply: FastifyReply): Promise<Opened | undefined> => {
    const admission = await admit(request.raw, request.log);
    if (!admission.ok) {
      const { status, headers, contentType, body } = admission;
      await reply.code(status).headers(headers).type(contentType).send(body);
      return undefined;
    }
    // Admission refused an Origin not on the list: an allowed one gets its headers.
    corsFor(request, reply, allowedOrigins, ANONYMOUS_KEY_HEADER);
    const { remoteAddress } = admission;
    const address = remoteAddress === undefined ? undefined : options.addressKeyOf(remoteAddress);
    const identity = await identifyAgUi(request.headers, connection, remoteAddress, request.log);
    if (!identity.ok) {
      await refuse(reply, { status: identity.status, code: 'unauthorized', message: identity.message });
      return undefined;
    }
    const stream = new AgUiStream({
      visitor: identity.visitor,
      address,
      encoder: await encoderFor(request.headers.accept),
      challenge: connection.challenge,
    });
    return { stream, address };
  };

  /**
   * Sends the head, then the run's events as the frames come (`onFrame` picks the run's);
   * the per-address place is held until the stream ends.
   */
  const begin = (
    reply: FastifyReply,
    { stream, address }: Opened,
    threadId: string,
    run: AgUiRun,
    onFrame: (frame: ServerFrame) => void,
  ) => {
    reply.hijack();
    const anonymousKey = stream.visitor?.anonymousKey;
    reply.raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': stream.contentType,
      'cache-control': 'no-cache, no-transform',
      // nginx buffers proxied answers unless told not to: events must go out as they come.
      'x-accel-buffering': 'no',
      ...(anonymousKey ? { [ANONYMOUS_KEY_HEADER]: anonymousKey } : {}),
    });
    if (address !== undefined) options.openSockets?.opened(address);
    const entry = { stream, run };
    live.add(entry);
    const handle = (frame: ServerFrame) => {
      onFrame(frame);
      if (run.ended) stream.end();
    };
    stream.attach(reply.raw, handle, () => {
      live.delete(entry);
      hub.leave(stream, threadId);
      if (address !== undefined) options.openSockets?.release(address);
    });
  };

  app.post(
    AG_UI_PATH,
    { onRequest: hooks.withHeaders, bodyLimit: options.maxBodyBytes ?? DEFAULT_AG_UI_BODY_BYTES },
    async (request, reply) => {
      const opened = await open(request, reply);
      if (!opened) return reply;
      const { stream, address } = opened;
      const { RunAgentInputSchema } = await agUiPackages();
      const input = RunAgentInputSchema.safeParse(request.body);
      if (!input.success)
        return refuse(reply, { status: 400, code: ErrorCode.BadFrame, message: firstIssue(input.error) });
      const { threadId, runId } = input.data;
      if (!THREAD_ID.test(threadId))
        return refuse(reply, {
          status: 400,
          code: ErrorCode.BadFrame,
          message: `threadId: 1 to ${Limits.sessionId} of A-Z a-z 0-9 _ . : -`,
        });
      if (runId.length > Limits.clientMessageId)
        return refuse(reply, {
          status: 400,
          code: ErrorCode.BadFrame,
          message: `runId: at most ${Limits.clientMessageId} characters`,
        });
      const question = questionOf(input.data.messages);
      if (typeof question !== 'string')
        return refuse(reply, { status: 400, code: ErrorCode.BadFrame, message: question.error });
      if ((await hub.helloNamed(stream, threadId)) === null) {
        stream.end();
        return refuse(reply, {
          status: 403,
          code: 'not_yours',
          message:
            stream.visitor?.kind === 'anonymous'
              ? `this thread belongs to another visitor: send the ${ANONYMOUS_KEY_HEADER} header its first run answered with (or a visitor token)`
              : 'this thread belongs to another visitor',
        });
      }
      // Counted once the thread is known to be the visitor's: a refused request costs no send.
      let sends: Awaited<ReturnType<NonNullable<typeof connection.ipSends>['take']>> | undefined;
      try {
        sends = address === undefined ? undefined : await connection.ipSends?.take(address);
      } catch (error) {
        // The counts' store failed: the stream, bound already, must not stay in the session.
        hub.leave(stream, threadId);
        stream.end();
        throw error;
      }
      if (sends && !sends.ok) {
        hub.leave(stream, threadId);
        stream.end();
        const retryAfter = String(Math.max(1, Math.ceil(sends.retryInMs / 1000)));
        return refuse(reply, {
          status: 429,
          code: ErrorCode.RateLimited,
          message: 'too many messages from this address: wait a moment',
          headers: { 'retry-after': retryAfter },
        });
      }
      const run = new AgUiRun(threadId, runId, (event) => stream.write(event));
      begin(reply, opened, threadId, run, framesOfRun(runId, run));
      run.started();
      if (stream.visitor?.anonymousKey) run.anonymousKey(stream.visitor.anonymousKey);
      // The newest user message is the turn; the runId is its client id, echoed on refusals.
      try {
        await hub.send(stream, threadId, question, runId);
      } catch (error) {
        // The hub tells its refusals as frames; reaching here is the store failing.
        const errorId = logErrorWithId(request.log, error, 'ag-ui: the run could not start');
        run.fail(ErrorCode.Internal, `internal error (${errorId})`);
        stream.end();
      }
      return reply;
    },
  );

  app.get<{ Params: { threadId: string } }>(
    AG_UI_REJOIN_PATH,
    { onRequest: hooks.withHeaders },
    async (request, reply) => {
      const { threadId } = request.params;
      const thread = await openThread(request, reply);
      if (!thread) return reply;
      const { opened, ready, waiting } = thread;
      const resume = waiting.find((frame): frame is StreamResumeFrame => frame.type === 'stream_resume');
      const later = waiting.slice(waiting.indexOf(resume ?? ready) + 1);
      const { stream } = opened;
      const run = new AgUiRun(threadId, liveRunId(ready.messages, threadId), (e) => stream.write(e));
      begin(reply, opened, threadId, run, (frame) => run.frame(frame));
      run.rejoined(ready.messages, resume ?? null);
      for (const frame of later) run.frame(frame);
      if (run.ended) stream.end();
      return reply;
    },
  );

  // Closing a run's stream leaves its turn running (a reload closes it too): this stops it.
  app.post<{ Params: { threadId: string } }>(
    AG_UI_STOP_PATH,
    { onRequest: hooks.withHeaders },
    async (request, reply) => {
      const thread = await openThread(request, reply);
      if (!thread) return reply;
      const { stream } = thread.opened;
      hub.leave(stream, request.params.threadId);
      stream.end();
      hub.abort(request.params.threadId);
      return reply.code(204).send();
    },
  );

  /**
   * Opens a request for a thread that exists and is its visitor's (rejoin, stop): bound to
   * it, with the frames that came meanwhile (`ready` first). An unknown thread or another
   * visitor's is 404 alike (the same lookup), so ids cannot be probed; neither is made.
   */
  async function openThread(request: FastifyRequest<{ Params: { threadId: string } }>, reply: FastifyReply) {
    const { threadId } = request.params;
    if (!THREAD_ID.test(threadId)) return void (await refuse(reply, NOT_FOUND));
    const opened = await open(request, reply);
    if (!opened) return undefined;
    const bound = await hub.helloNamed(opened.stream, threadId, true);
    const waiting = opened.stream.takeWaiting();
    const ready = waiting.find((frame) => frame.type === 'ready');
    if (bound !== null && ready?.type === 'ready') return { opened, ready, waiting };
    opened.stream.end();
    return void (await refuse(reply, NOT_FOUND));
  }

  // Preflights: the same origins as the socket; the headers an AG-UI client sends.
  for (const [path, method] of [
    [AG_UI_PATH, 'POST'],
    [AG_UI_REJOIN_PATH, 'GET'],
    [AG_UI_STOP_PATH, 'POST'],
  ] as const) {
    answerPreflight(app, path, {
      method,
      headers: `authorization, content-type, accept, ${ANONYMOUS_KEY_HEADER}`,
      hooks: hooks.guarded,
      allowedOrigins,
      expose: ANONYMOUS_KEY_HEADER,
    });
  }
}

/**
 * The id a rejoin gives the live run: its question's (the history's newest user message),
 * which every instance knows; the client's own runId is not kept.
 */
function liveRunId(messages: readonly ChatMessage[], threadId: string): string {
  const question = messages.findLast((message) => message.role === 'user');
  return question?.id ?? `${threadId}:none`;
}

function firstIssue(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  const issue = error.issues[0];
  if (!issue) return 'not a RunAgentInput';
  const at = issue.path.map(String).join('.');
  return `RunAgentInput${at ? `.${at}` : ''}: ${issue.message}`.slice(0, 300);
}

/**
 * The frames of a POSTed run, handed to it: from its question (the `user_message` whose
 * client id is its `runId`) to the turn's end, or the refusal of its question (an `error`
 * with that client id: busy, a budget). Frames of another tab's turn, live when the run's
 * stream binds, come before its question and are not its.
 */
function framesOfRun(runId: string, run: AgUiRun): (frame: ServerFrame) => void {
  let ours = false;
  return (frame) => {
    const mine = 'clientMessageId' in frame && frame.clientMessageId === runId;
    if (frame.type === 'user_message' && mine) ours = true;
    if (ours || (frame.type === 'error' && mine)) run.frame(frame);
  };
}
