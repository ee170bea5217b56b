import { describe, expect, test } from 'vitest';
import { emptyView, progressList, reduce, snapshot, type ChatView, type ViewFrame } from '../src/index.js';
import {
  SESSION,
  approvalRequest,
  assistantMessage,
  done,
  error,
  interruptedMessage,
  progress,
  ready,
  reasoning,
  stream,
  text,
  toolDeclined,
  toolEnd,
  toolProgress,
  toolStart,
  retrying,
  usage,
  userMessage,
  waiting,
} from './frames.js';

/** Applies frames one by one, the i-th at time 100 * (i + 1), after `ready` and a user message. */
function play(...frames: ViewFrame[]): ChatView {
  let view = reduce(reduce(emptyView, ready(), 0), userMessage('u1', 'hi'), 0);
  frames.forEach((frame, i) => (view = reduce(view, frame, 100 * (i + 1))));
  return view;
}

const cards = (view: ChatView) => (view.turn ? progressList(view.turn) : []);

describe('the progress map', () => {
  test('progress for a known index keeps its startedAt and updates the rest', () => {
    const view = play(
      progress(0, 'write_file', 0),
      progress(0, 'write_file', 40),
      progress(0, 'write_file', 142),
    );
    expect(cards(view)).toEqual([
      { index: 0, name: 'write_file', charsAccumulated: 142, startedAt: 100, updatedAt: 300 },
    ]);
  });

  test('a new index gets its own startedAt; cards are listed by index', () => {
    const view = play(progress(1, 'b', 5), progress(0, 'a', 3), progress(1, 'b', 9));
    expect(cards(view)).toEqual([
      { index: 0, name: 'a', charsAccumulated: 3, startedAt: 200, updatedAt: 200 },
      { index: 1, name: 'b', charsAccumulated: 9, startedAt: 100, updatedAt: 300 },
    ]);
  });

  test('a name that arrives after the first fragment fills in; a later empty name never erases it', () => {
    expect(cards(play(progress(0, '', 0)))[0]?.name).toBe('');
    expect(cards(play(progress(0, '', 0), progress(0, 'search', 4)))[0]?.name).toBe('search');
    expect(cards(play(progress(0, 'search', 4), progress(0, '', 8)))[0]?.name).toBe('search');
  });

  const clearing: Array<[string, ViewFrame]> = [
    ['a content delta', text('Done.')],
    ['a reasoning delta', reasoning('Hmm.')],
    ['a stream with done: true', done()],
    ['a tool_execute start', toolStart('call_1', 0, 'a')],
    ['the final message', assistantMessage('a1', [])],
    ['an error for the session', error('upstream', SESSION)],
    ['abort', { type: 'abort' }],
  ];
  test.each(clearing)('clears wholly on %s', (_, frame) => {
    const before = play(progress(0, 'a', 3), progress(1, 'b', 5));
    expect(cards(before)).toHaveLength(2);
    expect(cards(reduce(before, frame, 1_000))).toEqual([]);
  });

  test('an error for one connection only (no sessionId) leaves the cards alone', () => {
    const before = play(progress(0, 'a', 3));
    expect(reduce(before, error('busy'), 1_000)).toBe(before);
  });

  test('an empty delta is no delta: no part, and the cards stay', () => {
    const view = play(progress(0, 'a', 3), stream({ contentDelta: '', reasoningDelta: '' }));
    expect(view.turn?.parts).toEqual([]);
    expect(cards(view)).toHaveLength(1);
  });

  test('a chunk with progress and done together ends the round with no card left', () => {
    expect(
      cards(play(stream({ toolCallProgress: { index: 0, name: 'a', charsAccumulated: 2 }, done: true }))),
    ).toEqual([]);
  });
});

describe('parts', () => {
  test('adjacent text deltas merge into one part', () => {
    expect(play(text('Hel'), text('lo'), text('!')).turn?.parts).toEqual([{ type: 'text', text: 'Hello!' }]);
  });

  test('adjacent reasoning merges; text after reasoning starts its own part', () => {
    expect(play(reasoning('Let me '), reasoning('think.'), text('Answer')).turn?.parts).toEqual([
      { type: 'reasoning', text: 'Let me think.' },
      { type: 'text', text: 'Answer' },
    ]);
  });

  test('progress-only chunks between two text deltas leave one merged part and the same usage', () => {
    const plain = play(text('Let me check. '), text('Done.'), done(usage(10, 5)));
    const withProgress = play(
      text('Let me check. '),
      progress(0, 'get_weather', 0),
      progress(0, 'get_weather', 12),
      progress(1, 'get_time', 7),
      text('Done.'),
      done(usage(10, 5)),
    );
    expect(withProgress.turn?.parts).toEqual([{ type: 'text', text: 'Let me check. Done.' }]);
    expect(withProgress.turn?.parts).toEqual(plain.turn?.parts);
    expect(withProgress.turn?.usage).toEqual(plain.turn?.usage);
  });

  test('a progress-only chunk creates no part and no usage', () => {
    const view = play(progress(0, 'a', 3));
    expect(view.turn?.parts).toEqual([]);
    expect(view.turn?.usage).toBeUndefined();
  });

  test('usage is summed over the rounds of a turn', () => {
    expect(play(done(usage(10, 5)), done(usage(20, 7))).turn?.usage).toEqual(usage(30, 12));
  });

  test('text after a tool call is a new part, not merged across it', () => {
    const view = play(
      text('Checking.'),
      toolStart('c1', 0, 'a'),
      toolEnd('c1', 0, 'a', 1, 50),
      text('Done.'),
    );
    expect(view.turn?.parts.map((p) => p.type)).toEqual(['text', 'tool_call', 'text']);
  });

  test('tool_execute is matched by callId: the same tool twice at once, ending in reverse order', () => {
    const view = play(
      toolStart('call_A', 0, 'get_weather', { location: 'Paris' }),
      toolStart('call_B', 1, 'get_weather', { location: 'Tokyo' }),
      toolEnd('call_B', 1, 'get_weather', { temp: 18 }, 40),
      toolEnd('call_A', 0, 'get_weather', 'no such city', 250, true),
    );
    expect(view.turn?.parts).toEqual([
      {
        type: 'tool_call',
        callId: 'call_A',
        index: 0,
        name: 'get_weather',
        arguments: { location: 'Paris' },
        status: 'error',
        result: 'no such city',
        startedAt: 100,
        endedAt: 350,
      },
      {
        type: 'tool_call',
        callId: 'call_B',
        index: 1,
        name: 'get_weather',
        arguments: { location: 'Tokyo' },
        status: 'done',
        result: { temp: 18 },
        startedAt: 200,
        endedAt: 240,
      },
    ]);
  });

  test('an end without its start (joined late) still shows the finished call', () => {
    const view = play(toolEnd('c9', 2, 'search', ['hit'], 30));
    expect(view.turn?.parts).toEqual([
      {
        type: 'tool_call',
        callId: 'c9',
        index: 2,
        name: 'search',
        status: 'done',
        result: ['hit'],
        startedAt: 70,
        endedAt: 100,
      },
    ]);
  });
});

describe('turns and history', () => {
  test('the final message ends the turn and joins the history after the user message', () => {
    const view = play(text('Hello'), done(), assistantMessage('a1', [{ type: 'text', text: 'Hello' }]));
    expect(view.turn).toBeNull();
    expect(view.messages.map((m) => m.id)).toEqual(['u1', 'a1']);
  });

  test('a new turn starts empty', () => {
    const first = play(text('Hi'), progress(0, 'a', 1), done(usage(1, 1)), assistantMessage('a1', []));
    const second = reduce(first, userMessage('u2', 'again'), 5_000);
    expect(second.turn).toEqual({
      parts: [],
      toolCallsProgress: new Map(),
      approvals: new Map(),
      elicitations: new Map(),
    });
  });

  test('the same message twice replaces, never duplicates', () => {
    const once = play(assistantMessage('a1', [{ type: 'text', text: 'x' }]));
    const twice = reduce(once, assistantMessage('a1', [{ type: 'text', text: 'y' }]), 9);
    expect(twice.messages.map((m) => m.id)).toEqual(['u1', 'a1']);
    expect(twice.messages[1]?.parts).toEqual([{ type: 'text', text: 'y' }]);
  });

  test('ready replaces everything with the server history', () => {
    const view = reduce(play(text('streaming')), ready([userMessage('u7', 'old').message], 'session-2'), 1);
    expect(view).toEqual({
      sessionId: 'session-2',
      messages: [userMessage('u7', 'old').message],
      turn: null,
    });
  });

  test('older history goes before what the view has, without repeats', () => {
    const view = play(assistantMessage('a1', []));
    const older = [userMessage('u0', 'first').message, userMessage('u1', 'hi').message];
    const next = reduce(view, { type: 'history', sessionId: SESSION, messages: older, hasMore: false }, 5);
    expect(next.messages.map((m) => m.id)).toEqual(['u0', 'u1', 'a1']);
  });

  test('frames for another session change nothing', () => {
    const view = play(text('mine'));
    expect(reduce(view, stream({ contentDelta: 'theirs' }, 'other'), 1)).toBe(view);
  });

  test('the reducer is pure: the view it was given is left as it was', () => {
    const view = play(text('a'), progress(0, 'x', 1), toolStart('c', 0, 'x'));
    const copy = structuredClone(view);
    for (const frame of [text('b'), progress(1, 'y', 2), toolEnd('c', 0, 'x', 1, 5), done(usage(1, 1))]) {
      reduce(view, frame, 9_999);
    }
    expect(view).toEqual(copy);
  });
});

describe('turn status', () => {
  test('turn_status is kept with the time it arrived, and the next stream frame clears it', () => {
    const view = play(retrying(2, 4_000));
    expect(view.turn?.status).toEqual({ state: 'retrying', attempt: 2, retryInMs: 4_000, since: 100 });
    expect(play(waiting(1), text('Hi')).turn?.status).toBeUndefined();
    expect(play(waiting(1), progress(0, 'search', 0)).turn?.status).toBeUndefined();
  });

  test('a tool start, an error for the session and the turn end clear it too', () => {
    expect(play(waiting(), toolStart('c1', 0, 'search')).turn?.status).toBeUndefined();
    expect(play(waiting(), error('upstream', SESSION)).turn?.status).toBeUndefined();
    expect(play(waiting(), assistantMessage('a1', [])).turn).toBeNull();
    // An error for one connection only (busy) says nothing about the turn.
    expect(play(waiting(), error('busy')).turn?.status).toMatchObject({ state: 'waiting' });
  });

  test('a snapshot carries the status, so a reloaded page shows the same wait', () => {
    const view = play(text('Let me check'), retrying(1, 8_000));
    const resume = snapshot(view, 500)!;
    expect(resume.turnStatus).toEqual({ state: 'retrying', attempt: 1, retryInMs: 8_000, since: 200 });
    const client = reduce(reduce(emptyView, ready(), 500), resume, 500);
    expect(client.turn?.status).toEqual(view.turn?.status);
  });
});

describe('arguments sent once', () => {
  const call = {
    type: 'tool_call' as const,
    callId: 'c1',
    index: 0,
    name: 'write_file',
    status: 'done' as const,
  };

  test("the final message gets its tool calls' arguments back from the running turn", () => {
    const args = { path: 'a.txt', content: 'x'.repeat(50) };
    const view = play(
      toolStart('c1', 0, 'write_file', args),
      toolEnd('c1', 0, 'write_file', 'ok', 5),
      assistantMessage('a1', [{ ...call, result: 'ok', startedAt: 100, endedAt: 105 }]),
    );
    expect(view.messages.at(-1)?.parts).toEqual([
      { ...call, arguments: args, result: 'ok', startedAt: 100, endedAt: 105 },
    ]);
  });

  test('arguments a message does carry are kept as sent', () => {
    const view = play(
      toolStart('c1', 0, 'write_file', { path: 'old' }),
      assistantMessage('a1', [{ ...call, arguments: { path: 'new' }, startedAt: 100 }]),
    );
    expect(view.messages.at(-1)?.parts[0]).toMatchObject({ arguments: { path: 'new' } });
  });
});

describe('a turn another instance ended', () => {
  test('a call that was running is of unknown outcome, with its arguments and no result', () => {
    const view = play(
      toolStart('c1', 0, 'send_mail', { to: 'a@example.com' }),
      toolProgress('c1', 0, 'send_mail', 1, 2),
      interruptedMessage('a1', [
        {
          type: 'tool_call',
          callId: 'c1',
          index: 0,
          name: 'send_mail',
          status: 'unknown',
          startedAt: 100,
          endedAt: 900,
        },
      ]),
    );
    expect(view.turn).toBeNull();
    expect(view.messages.at(-1)).toMatchObject({ status: 'error', error: { code: 'interrupted' } });
    expect(view.messages.at(-1)?.parts).toEqual([
      {
        type: 'tool_call',
        callId: 'c1',
        index: 0,
        name: 'send_mail',
        arguments: { to: 'a@example.com' },
        status: 'unknown',
        startedAt: 100,
        endedAt: 900,
      },
    ]);
  });
});

describe('snapshot', () => {
  test('is null when no turn runs', () => {
    expect(snapshot(reduce(emptyView, ready(), 0), 5)).toBeNull();
  });

  test('carries the parts, usage and cards sorted by index with their first startedAt', () => {
    const view = play(
      reasoning('r'),
      done(usage(3, 4)),
      progress(2, 'c', 7),
      progress(0, 'a', 1),
      progress(2, 'c', 9),
    );
    expect(snapshot(view, 42_000)).toEqual({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: 42_000,
      parts: [{ type: 'reasoning', text: 'r' }],
      usage: usage(3, 4),
      toolCallsProgress: [
        { index: 0, name: 'a', charsAccumulated: 1, startedAt: 400, updatedAt: 400 },
        { index: 2, name: 'c', charsAccumulated: 9, startedAt: 300, updatedAt: 500 },
      ],
    });
  });

  test('applied to a fresh client, it continues from the server startedAt, not from zero', () => {
    const server = play(progress(0, 'write_file', 100));
    const frame = snapshot(server, 10_000)!;
    let client = reduce(reduce(emptyView, ready(), 10_000), frame, 10_000);
    client = reduce(client, progress(0, 'write_file', 180), 10_100);
    expect(cards(client)).toEqual([
      { index: 0, name: 'write_file', charsAccumulated: 180, startedAt: 100, updatedAt: 10_100 },
    ]);
  });
});

describe('tool execution progress', () => {
  test("sets the running call's progress; each report replaces the one before", () => {
    const view = play(
      toolStart('c1', 0, 'crawl'),
      toolProgress('c1', 0, 'crawl', 1, 10, 'page 1'),
      toolProgress('c1', 0, 'crawl', 4),
    );
    expect(view.turn!.parts[0]).toMatchObject({ callId: 'c1', status: 'running', progress: { progress: 4 } });
    expect((view.turn!.parts[0] as { progress: object }).progress).toEqual({ progress: 4 });
  });

  test('a report for a call that is not running changes nothing', () => {
    const ended = play(toolStart('c1', 0, 'crawl'), toolEnd('c1', 0, 'crawl', 'ok', 5));
    expect(reduce(ended, toolProgress('c1', 0, 'crawl', 3, 10), 900)).toBe(ended);
    const unknown = play(toolStart('c1', 0, 'crawl'));
    expect(reduce(unknown, toolProgress('c9', 0, 'crawl', 3), 900)).toBe(unknown);
  });

  test('end drops the progress: a finished block shows its result', () => {
    const view = play(
      toolStart('c1', 0, 'crawl'),
      toolProgress('c1', 0, 'crawl', 9, 10),
      toolEnd('c1', 0, 'crawl', 'ok', 5),
    );
    expect(view.turn!.parts[0]).not.toHaveProperty('progress');
  });
});

describe('tool approvals', () => {
  test('a request waits in the turn, sorted by index in the snapshot, and clears the cards', () => {
    const view = play(
      progress(0, 'delete_file', 20),
      approvalRequest('c2', 1, 'send_mail'),
      approvalRequest('c1', 0, 'delete_file', { path: 'a' }, 'session'),
    );
    expect(cards(view)).toEqual([]);
    expect(snapshot(view, 1_000)!.approvals!.map((a) => [a.callId, a.policy])).toEqual([
      ['c1', 'session'],
      ['c2', 'always'],
    ]);
  });

  test("the call's tool_execute answers it: start when approved, end with declined when not", () => {
    const waiting = play(approvalRequest('c1', 0, 'a'), approvalRequest('c2', 1, 'b'));
    const approved = reduce(waiting, toolStart('c1', 0, 'a'), 500);
    expect([...approved.turn!.approvals.keys()]).toEqual(['c2']);
    const declined = reduce(approved, toolDeclined('c2', 1, 'b', 'expired'), 600);
    expect(declined.turn!.approvals.size).toBe(0);
    expect(declined.turn!.parts[1]).toMatchObject({ callId: 'c2', status: 'error', declined: 'expired' });
  });

  test('abort and the turn end clear them all', () => {
    const waiting = play(approvalRequest('c1', 0, 'a'));
    expect(reduce(waiting, { type: 'abort' }, 500).turn!.approvals.size).toBe(0);
    expect(reduce(waiting, assistantMessage('a1', []), 500).turn).toBeNull();
  });

  test('a resumed client sees the same requests', () => {
    const server = play(text('Let me check.'), approvalRequest('c1', 0, 'a', { x: 1 }));
    const client = reduce(reduce(emptyView, ready(), 0), snapshot(server, 400)!, 400);
    expect(client.turn!.approvals).toEqual(server.turn!.approvals);
  });
});

describe("a call's writing time", () => {
  test('start brings it, the part keeps it through end; an end without start brings its own', () => {
    const started = play(progress(0, 'write_file', 142), done(), {
      ...toolStart('c1', 0, 'write_file'),
      writingMs: 9_200,
    });
    expect(started.turn!.parts[0]).toMatchObject({ callId: 'c1', status: 'running', writingMs: 9_200 });
    const ended = reduce(started, toolEnd('c1', 0, 'write_file', 'ok', 40), 1_000);
    expect(ended.turn!.parts[0]).toMatchObject({ status: 'done', writingMs: 9_200 });
    const declined = reduce(ended, { ...toolDeclined('c2', 1, 'b', 'user'), writingMs: 300 }, 1_100);
    expect(declined.turn!.parts[1]).toMatchObject({ callId: 'c2', declined: 'user', writingMs: 300 });
  });

  test('a server that sends none: no writing time, nothing made up', () => {
    const view = play(toolStart('c1', 0, 'a'), toolEnd('c1', 0, 'a', 'ok', 5));
    expect(view.turn!.parts[0]).not.toHaveProperty('writingMs');
  });
});
