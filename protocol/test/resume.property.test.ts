/**
 * The resume invariant of PROTOCOL.md section 4: for every frame sequence and every cut
 * point, a client that joins at the cut (`ready` with the history, then the snapshot)
 * and applies the frames after it ends with the view of a client that saw them all.
 */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { emptyView, reduce, snapshot, type ChatView, type ViewFrame } from '../src/index.js';
import {
  SESSION,
  appToolResult,
  approvalRequest,
  assistantMessage,
  done,
  elicitationComplete,
  elicitationSettled,
  error,
  feedback,
  formElicitation,
  handoff,
  interruptedMessage,
  operatorMessage,
  progress,
  ready,
  reasoning,
  retrying,
  stream,
  text,
  toOperator,
  toolDeclined,
  toolEnd,
  toolProgress,
  toolStart,
  usage,
  urlElicitation,
  userMessage,
  waiting,
} from './frames.js';

const toolName = fc.constantFrom('', 'get_weather', 'write_file', 'search');
const callId = fc.constantFrom('call_0', 'call_1', 'call_2', 'call_3');
const index = fc.integer({ min: 0, max: 3 });
const delta = fc.string({ maxLength: 6 });
const usageArb = fc.tuple(fc.nat(50), fc.nat(50)).map(([p, c]) => usage(p, c));
const elicitationId = fc.constantFrom('el_0', 'el_1', 'el_2');
const app = fc.option(
  fc.constantFrom(
    { serverName: 'maps', resourceUri: 'ui://maps/route.html' },
    { serverName: 'shop', resourceUri: 'ui://cart' },
  ),
  { nil: undefined },
);

const frameArb: fc.Arbitrary<ViewFrame> = fc.oneof(
  { weight: 2, arbitrary: fc.uuid().map((id) => userMessage(id, 'question')) },
  {
    // A question with images attached.
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.uuid(),
        fc.array(fc.tuple(fc.uuid(), fc.nat(4000), fc.nat(4000)), { minLength: 1, maxLength: 3 }),
      )
      .map(([id, images]) =>
        userMessage(
          id,
          '',
          images.map(([imageId, width, height]) => ({
            id: imageId,
            mimeType: 'image/png' as const,
            width,
            height,
            bytes: width + height,
          })),
        ),
      ),
  },
  { weight: 4, arbitrary: delta.map(text) },
  { weight: 3, arbitrary: delta.map(reasoning) },
  { weight: 8, arbitrary: fc.tuple(index, toolName, fc.nat(5000)).map(([i, n, c]) => progress(i, n, c)) },
  {
    // A fragment with its id and argument text, as the server's own parts carry it.
    weight: 4,
    arbitrary: fc
      .tuple(index, toolName, fc.nat(5000), fc.option(callId, { nil: undefined }), delta)
      .map(([i, n, c, id, d]) =>
        stream({
          toolCallProgress: {
            index: i,
            name: n,
            charsAccumulated: c,
            argumentsDelta: d,
            ...(id ? { callId: id } : {}),
          },
        }),
      ),
  },
  { weight: 2, arbitrary: fc.option(usageArb, { nil: undefined }).map(done) },
  { weight: 1, arbitrary: usageArb.map((u) => stream({ usage: u })) },
  {
    // Some tools are MCP Apps: their start says which.
    weight: 3,
    arbitrary: fc
      .tuple(callId, index, toolName, fc.jsonValue(), app)
      .map(([id, i, n, a, shownAs]) => ({ ...toolStart(id, i, n, a), ...(shownAs ? { app: shownAs } : {}) })),
  },
  {
    // An end may bring an app too (one whose start this tab never saw).
    weight: 3,
    arbitrary: fc
      .tuple(
        callId,
        index,
        toolName,
        fc.jsonValue(),
        fc.option(fc.nat(900), { nil: undefined }),
        fc.boolean(),
        app,
      )
      .map(([id, i, n, r, ms, isError, shownAs]) => ({
        ...toolEnd(id, i, n, r, ms, isError),
        ...(shownAs ? { app: shownAs } : {}),
      })),
  },
  {
    // An MCP server asks the visitor during a call (a form or a page; the same id again
    // replaces the request), and the requests' outcomes, for them or for ones not held.
    weight: 3,
    arbitrary: fc.oneof(
      fc
        .tuple(elicitationId, callId, fc.boolean(), fc.nat(900_000))
        .map(([id, call, form, expiresAt]) =>
          form ? formElicitation(id, call, expiresAt) : urlElicitation(id, call, expiresAt),
        ),
      fc
        .tuple(
          elicitationId,
          fc.constantFrom('accept' as const, 'decline' as const, 'cancel' as const),
          fc.constantFrom(undefined, 'expired' as const, 'stopped' as const),
        )
        .map(([id, action, reason]) => elicitationSettled(id, action, reason)),
      elicitationId.map(elicitationComplete),
    ),
  },
  // An app's own tool call answered, to one connection: no part of the view.
  { weight: 1, arbitrary: fc.constant(appToolResult('r1', 'zoomed')) },
  {
    // MCP-style execution progress of a running call (or of one that is not running).
    weight: 3,
    arbitrary: fc
      .tuple(
        callId,
        index,
        toolName,
        fc.nat(100),
        fc.option(fc.nat(100), { nil: undefined }),
        fc.option(delta, { nil: undefined }),
      )
      .map(([id, i, n, p, t, m]) => toolProgress(id, i, n, p, t, m)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(callId, index, toolName, fc.jsonValue(), fc.constantFrom('always' as const, 'session' as const))
      .map(([id, i, n, a, policy]) => approvalRequest(id, i, n, a, policy)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(callId, index, toolName, fc.constantFrom('user' as const, 'expired' as const))
      .map(([id, i, n, why]) => toolDeclined(id, i, n, why)),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.uuid(), delta).map(([id, t]) => assistantMessage(id, [{ type: 'text', text: t }])),
  },
  {
    // The final message as the server sends it: its tool calls without their arguments.
    weight: 1,
    arbitrary: fc
      .tuple(fc.uuid(), callId, index, toolName)
      .map(([id, call, i, n]) =>
        assistantMessage(id, [
          { type: 'tool_call', callId: call, index: i, name: n, status: 'done', startedAt: 10_000 },
        ]),
      ),
  },
  {
    // Another instance ends the turn of one that died: a call that was running may have
    // completed (status `unknown`, with `endedAt` and no result).
    weight: 1,
    arbitrary: fc.tuple(fc.uuid(), callId, index, toolName, fc.nat(900)).map(([id, call, i, n, ms]) =>
      interruptedMessage(id, [
        {
          type: 'tool_call',
          callId: call,
          index: i,
          name: n,
          status: 'unknown',
          startedAt: 10_000,
          endedAt: 10_000 + ms,
        },
      ]),
    ),
  },
  {
    // Answers with known ids, and visitors' verdicts on them (or on one not shown).
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a1', 'a2'), delta)
      .map(([id, t]) => assistantMessage(id, [{ type: 'text', text: t }])),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('a1', 'a2', 'u0', 'gone'),
        fc.constantFrom('up' as const, 'down' as const),
        fc.option(delta, { nil: undefined }),
      )
      .map(([messageId, rating, comment]) => feedback(messageId, rating, comment)),
  },
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }).map(waiting),
      fc.tuple(fc.integer({ min: 1, max: 3 }), fc.nat(30_000)).map(([a, ms]) => retrying(a, ms)),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(error('upstream', SESSION), error('busy'), { type: 'abort' } as ViewFrame),
  },
  {
    // A person is asked for, answers (during a turn or not), and gives the conversation
    // back; a visitor's message for them starts no turn.
    weight: 2,
    arbitrary: fc.oneof(
      fc
        .tuple(
          fc.constantFrom('off' as const, 'waiting' as const, 'active' as const),
          fc.nat(900_000),
          fc.option(fc.constantFrom('Ada', 'Grace'), { nil: undefined }),
          fc.option(delta, { nil: undefined }),
        )
        .map(([state, since, operator, reason]) => handoff(state, since, operator, reason)),
      fc.tuple(fc.uuid(), delta).map(([id, t]) => operatorMessage(id, t)),
      fc.tuple(fc.uuid(), delta).map(([id, t]) => toOperator(id, t)),
    ),
  },
  // The owner deletes the conversation (rarely, in the middle of anything).
  { weight: 1, arbitrary: fc.constant({ type: 'session_deleted', sessionId: SESSION } as ViewFrame) },
);

/** Frames with the server-clock time each arrived at (non-decreasing, as on a real clock). */
const timedFrames = fc
  .array(fc.tuple(frameArb, fc.nat(400)), { minLength: 1, maxLength: 40 })
  .map((pairs) => {
    let now = 10_000;
    return pairs.map(([frame, step]) => ({ frame, now: (now += step) }));
  });

const apply = (view: ChatView, timed: Array<{ frame: ViewFrame; now: number }>): ChatView =>
  timed.reduce((v, { frame, now }) => reduce(v, frame, now), view);

test('snapshot at any cut plus the remaining frames equals applying all frames', () => {
  fc.assert(
    fc.property(timedFrames, (timed) => {
      const start = reduce(emptyView, ready([userMessage('u0', 'earlier').message]), 9_000);
      const whole = apply(start, timed);
      for (let cut = 0; cut <= timed.length; cut++) {
        const server = apply(start, timed.slice(0, cut));
        const at = timed[cut - 1]?.now ?? 9_000;
        // What the server sends a connection that says hello at the cut: the history, and
        // the conversation's handoff.
        const hello = { ...ready([...server.messages]), serverTime: at };
        let client = reduce(emptyView, server.handoff ? { ...hello, handoff: server.handoff } : hello, at);
        const resume = snapshot(server, at);
        if (resume) client = reduce(client, resume, at);
        expect(apply(client, timed.slice(cut))).toEqual(whole);
      }
    }),
    { numRuns: 1_000 },
  );
});
