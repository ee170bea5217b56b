/**
 * What MCP adds to the view (PROTOCOL.md section 7): the requests for the visitor's input
 * (elicitations) the turn keeps, and the MCP App a tool call is shown as.
 */
import { describe, expect, test } from 'vitest';
import { emptyView, reduce, snapshot, type ChatView, type ViewFrame } from '../src/index.js';
import {
  appToolResult,
  assistantMessage,
  elicitationComplete,
  elicitationSettled,
  formElicitation,
  ready,
  text,
  toolDeclined,
  toolEnd,
  toolStart,
  urlElicitation,
  userMessage,
} from './frames.js';

/** Applies frames one by one, the i-th at time 100 * (i + 1), after `ready` and a user message. */
function play(...frames: ViewFrame[]): ChatView {
  let view = reduce(reduce(emptyView, ready(), 0), userMessage('u1', 'hi'), 0);
  frames.forEach((frame, i) => (view = reduce(view, frame, 100 * (i + 1))));
  return view;
}

/** The turn's open requests, as a client lists them: id and state, in the order they came. */
const open = (view: ChatView) =>
  [...(view.turn?.elicitations.values() ?? [])].map((e) => ({
    id: e.elicitationId,
    ...(e.opened ? { opened: true } : {}),
    ...(e.completed ? { completed: true } : {}),
  }));

describe('elicitations', () => {
  test('a request is kept as the MCP server sent it, without the envelope', () => {
    const view = play(toolStart('c1', 0, 'checkout'), formElicitation('e1', 'c1'));
    const { type: _type, sessionId: _session, ...request } = formElicitation('e1', 'c1');
    expect([...view.turn!.elicitations]).toEqual([['e1', request]]);
  });

  test('several are listed in the order they came, whatever their ids', () => {
    const view = play(
      toolStart('c1', 0, 'checkout'),
      toolStart('c2', 1, 'pay'),
      urlElicitation('z9', 'c2'),
      formElicitation('a1', 'c1'),
    );
    expect(open(view)).toEqual([{ id: 'z9' }, { id: 'a1' }]);
  });

  test.each(['accept', 'decline', 'cancel'] as const)(
    'a form settled by %s is gone; the others stay',
    (action) => {
      const view = play(
        toolStart('c1', 0, 'checkout'),
        formElicitation('e1', 'c1'),
        formElicitation('e2', 'c1'),
        elicitationSettled('e1', action),
      );
      expect(open(view)).toEqual([{ id: 'e2' }]);
    },
  );

  test('a stopped or expired request is gone too', () => {
    const asked = play(toolStart('c1', 0, 'checkout'), formElicitation('e1', 'c1'));
    expect(open(reduce(asked, elicitationSettled('e1', 'cancel', 'stopped'), 900))).toEqual([]);
    expect(open(reduce(asked, elicitationSettled('e1', 'cancel', 'expired'), 900))).toEqual([]);
  });

  test('an accepted page stays, opened, until the MCP server says its flow finished', () => {
    const opened = play(
      toolStart('c1', 0, 'pay'),
      urlElicitation('e1', 'c1'),
      elicitationSettled('e1', 'accept'),
    );
    expect(open(opened)).toEqual([{ id: 'e1', opened: true }]);
    expect(opened.turn!.elicitations.get('e1')).toMatchObject({
      url: 'https://pay.example.com/confirm?flow=42',
    });
    const done = reduce(opened, elicitationComplete('e1'), 900);
    expect(open(done)).toEqual([{ id: 'e1', opened: true, completed: true }]);
  });

  test('a page the visitor declined or let expire is gone', () => {
    const asked = play(toolStart('c1', 0, 'pay'), urlElicitation('e1', 'c1'));
    expect(open(reduce(asked, elicitationSettled('e1', 'decline'), 900))).toEqual([]);
    expect(open(reduce(asked, elicitationSettled('e1', 'cancel', 'expired'), 900))).toEqual([]);
  });

  test('an outcome for a request the view does not hold changes nothing', () => {
    const view = play(toolStart('c1', 0, 'pay'), urlElicitation('e1', 'c1'));
    expect(reduce(view, elicitationSettled('gone', 'accept'), 900)).toBe(view);
    expect(reduce(view, elicitationComplete('gone'), 900)).toBe(view);
    const noTurn = reduce(emptyView, ready(), 0);
    expect(reduce(noTurn, elicitationComplete('e1'), 900)).toBe(noTurn);
  });

  test("the call's end ends its requests, and only its own", () => {
    const view = play(
      toolStart('c1', 0, 'pay'),
      toolStart('c2', 1, 'checkout'),
      urlElicitation('e1', 'c1'),
      elicitationSettled('e1', 'accept'),
      formElicitation('e2', 'c2'),
      toolEnd('c1', 0, 'pay', 'paid', 40),
    );
    expect(open(view)).toEqual([{ id: 'e2' }]);
    expect(open(reduce(view, toolDeclined('c2', 1, 'checkout'), 900))).toEqual([]);
  });

  test('abort clears them all, and the turn end takes them with it', () => {
    const view = play(
      toolStart('c1', 0, 'checkout'),
      formElicitation('e1', 'c1'),
      urlElicitation('e2', 'c1'),
    );
    expect(open(reduce(view, { type: 'abort' }, 900))).toEqual([]);
    expect(reduce(view, assistantMessage('a1', []), 900).turn).toBeNull();
  });

  test('a request for another session changes nothing', () => {
    const view = play(toolStart('c1', 0, 'checkout'));
    expect(reduce(view, { ...formElicitation('e1', 'c1'), sessionId: 'session-2' }, 900)).toBe(view);
  });

  test('the snapshot carries them in order, and a reloaded tab shows the same requests', () => {
    const server = play(
      text('One moment.'),
      toolStart('c1', 0, 'pay'),
      urlElicitation('e2', 'c1'),
      elicitationSettled('e2', 'accept'),
      formElicitation('e1', 'c1'),
    );
    const resume = snapshot(server, 1_000)!;
    expect(resume.elicitations!.map((e) => [e.elicitationId, e.opened ?? false])).toEqual([
      ['e2', true],
      ['e1', false],
    ]);
    const client = reduce(reduce(emptyView, ready(), 1_000), resume, 1_000);
    expect(client.turn!.elicitations).toEqual(server.turn!.elicitations);
    expect(open(reduce(client, elicitationComplete('e2'), 1_100))).toEqual([
      { id: 'e2', opened: true, completed: true },
      { id: 'e1' },
    ]);
  });

  test('a snapshot of a turn that asks nothing has no `elicitations`', () => {
    const answered = play(
      toolStart('c1', 0, 'checkout'),
      formElicitation('e1', 'c1'),
      elicitationSettled('e1', 'accept'),
    );
    expect(snapshot(answered, 1_000)).not.toHaveProperty('elicitations');
  });
});

describe('MCP Apps', () => {
  const app = { serverName: 'maps', resourceUri: 'ui://maps/route.html' };

  test("start brings the call's app, and the part keeps it through end", () => {
    const started = play({ ...toolStart('c1', 0, 'route', { to: 'Lyon' }), app });
    expect(started.turn!.parts[0]).toMatchObject({ callId: 'c1', status: 'running', app });
    const ended = reduce(started, toolEnd('c1', 0, 'route', { km: 465 }, 30), 1_000);
    expect(ended.turn!.parts[0]).toMatchObject({ status: 'done', result: { km: 465 }, app });
  });

  test('an end without its start brings its own; a tool that is no app has none', () => {
    const view = play({ ...toolEnd('c9', 2, 'route', 'ok', 5), app }, toolStart('c2', 1, 'search'));
    expect(view.turn!.parts[0]).toMatchObject({ callId: 'c9', app });
    expect(view.turn!.parts[1]).not.toHaveProperty('app');
  });

  test('a reloaded tab gets the app with the part', () => {
    const server = play({ ...toolStart('c1', 0, 'route'), app });
    const client = reduce(reduce(emptyView, ready(), 1_000), snapshot(server, 1_000)!, 1_000);
    expect(client.turn!.parts[0]).toMatchObject({ app });
  });

  test("an app's tool result goes to the app, never into the view", () => {
    const view = play({ ...toolStart('c1', 0, 'route'), app });
    expect(reduce(view, appToolResult('r1', 'zoomed'), 900)).toBe(view);
  });
});
