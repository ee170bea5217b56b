/** Tool calls waiting for the user's approval (PROTOCOL.md, `tool_approval_request`, `tool_decision`). */
import { expect } from '@open-wc/testing';
import {
  SESSION,
  announced,
  fakeClock,
  mount,
  readyFrame,
  text,
  toolExecute,
  toolStart,
  until,
  userMessage,
} from './harness.js';

const MINUTE = 60_000;

const request = (
  fields: { callId?: string; index?: number; name?: string; arguments?: unknown; policy?: string } = {},
  expiresAt = Date.now() + 9.5 * MINUTE,
) => ({
  type: 'tool_approval_request',
  sessionId: SESSION,
  callId: 'w1',
  index: 0,
  name: 'get_weather',
  arguments: { location: 'Paris', unit: 'celsius' },
  policy: 'always',
  expiresAt,
  ...fields,
});
const started = (callId = 'w1', name = 'get_weather') =>
  toolStart(callId, name, { location: 'Paris', unit: 'celsius' });
const declinedEnd = (callId = 'w1', declined = 'user') =>
  toolExecute('end', callId, 'get_weather', {
    isError: true,
    declined,
    result: 'The user declined this tool call.',
  });

const card = (root: ShadowRoot, callId = 'w1') =>
  root.querySelector<HTMLElement>(`.approval-card[data-call-id="${callId}"]`);
const button = (root: ShadowRoot, part: string, callId = 'w1') =>
  card(root, callId)?.querySelector<HTMLButtonElement>(`[part="${part}"]`) ?? null;
const decisions = (sent: Array<Record<string, unknown>>) => sent.filter((f) => f.type === 'tool_decision');
const words = (el: Element | null) => el!.textContent!.replace(/\s+/g, ' ').trim();

describe('approval cards', () => {
  it("show the tool's name, its arguments pretty-printed, the time left and the buttons, in the turn's bubble", async () => {
    const { frames, shadow } = await mount({ serverTime: Date.now() });
    await frames(userMessage(), text('Let me check. '), request());
    const c = card(shadow)!;
    expect(c, 'card').to.exist;
    expect(c.closest('.bubble.assistant.streaming'), "inside the running turn's bubble").to.exist;
    expect(c.getAttribute('part')).to.equal('approval-card');
    expect(c.getAttribute('role')).to.equal('group');
    expect(c.getAttribute('aria-label')).to.equal('get_weather asks for approval');
    expect(words(c.querySelector('.approval-title'))).to.equal('get_weather asks for approval');
    expect(c.querySelector('pre')!.textContent).to.equal(
      JSON.stringify({ location: 'Paris', unit: 'celsius' }, null, 2),
    );
    expect(words(c.querySelector('.approval-expires'))).to.equal('Expires in 9 min');
    expect(words(button(shadow, 'approve-button'))).to.equal('Approve');
    expect(words(button(shadow, 'deny-button'))).to.equal('Deny');
    expect(button(shadow, 'allow-session-button'), 'policy always: no session button').to.equal(null);
    // Stands out: the warning colour for its border (light theme default).
    expect(getComputedStyle(c).borderTopColor).to.equal('rgb(173, 87, 0)');
  });

  it("before any words, the card takes the typing dots' place in the typing bubble", async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), request());
    expect(card(shadow)!.closest('.typing-bubble')).to.exist;
    expect(shadow.querySelector('.typing-bubble .typing')).to.equal(null);
  });

  it('several requests show one card each, sorted by index', async () => {
    const { frames, shadow } = await mount();
    await frames(
      userMessage(),
      request({ callId: 'b', index: 2, name: 'write_file' }),
      request({ callId: 'a', index: 1, name: 'delete_file' }),
    );
    const shown = [...shadow.querySelectorAll('.approval-card')].map((c) => c.getAttribute('data-call-id'));
    expect(shown).to.deep.equal(['a', 'b']);
  });

  it('Approve sends exactly one tool_decision, even on a double click, and disables the buttons', async () => {
    const { frames, shadow, socket, el } = await mount();
    await frames(userMessage(), request());
    const approve = button(shadow, 'approve-button')!;
    approve.click();
    approve.click();
    await el.updateComplete;
    approve.click();
    button(shadow, 'deny-button')!.click();
    expect(decisions(socket.sent)).to.deep.equal([
      { type: 'tool_decision', callId: 'w1', decision: 'approve' },
    ]);
    for (const part of ['approve-button', 'deny-button']) {
      expect(button(shadow, part)!.disabled, part).to.equal(true);
      expect(button(shadow, part)!.getAttribute('aria-disabled'), part).to.equal('true');
    }
    // The card stays until the outcome arrives, then goes: the tool runs.
    expect(card(shadow)).to.exist;
    await frames(started());
    expect(card(shadow)).to.equal(null);
    const block = shadow.querySelector('.tool-call-block[data-call-id="w1"]')!;
    expect(block.getAttribute('data-status')).to.equal('running');
  });

  it('Deny sends deny; the declined outcome replaces the card with a block that says so', async () => {
    const { frames, shadow, socket } = await mount();
    await frames(userMessage(), request());
    button(shadow, 'deny-button')!.click();
    expect(decisions(socket.sent)).to.deep.equal([{ type: 'tool_decision', callId: 'w1', decision: 'deny' }]);
    await frames(declinedEnd());
    expect(card(shadow)).to.equal(null);
    const block = shadow.querySelector('.tool-call-block[data-call-id="w1"]')!;
    expect(block.getAttribute('data-declined')).to.equal('user');
    expect(words(block.querySelector('summary'))).to.equal('get_weather declined');
  });

  it('"Allow for this conversation" only with policy session, and it sends remember: session', async () => {
    const { frames, shadow, socket } = await mount();
    await frames(
      userMessage(),
      request({ callId: 's1', policy: 'session' }),
      request({ callId: 'a1', index: 1 }),
    );
    expect(button(shadow, 'allow-session-button', 'a1')).to.equal(null);
    const allow = button(shadow, 'allow-session-button', 's1')!;
    expect(words(allow)).to.equal('Allow for this conversation');
    allow.click();
    allow.click();
    expect(decisions(socket.sent)).to.deep.equal([
      { type: 'tool_decision', callId: 's1', decision: 'approve', remember: 'session' },
    ]);
    // Only the decided card is disabled.
    expect(button(shadow, 'approve-button', 'a1')!.disabled).to.equal(false);
  });

  it('decide() answers from script, once per call, and refuses a call that is not waiting', async () => {
    const { frames, socket, el } = await mount();
    await frames(userMessage(), request({ policy: 'session' }));
    expect(el.decide('nope', 'approve')).to.equal(false);
    expect(el.decide('w1', 'approve', 'session')).to.equal(true);
    expect(el.decide('w1', 'deny')).to.equal(false);
    expect(decisions(socket.sent)).to.deep.equal([
      { type: 'tool_decision', callId: 'w1', decision: 'approve', remember: 'session' },
    ]);
  });

  it('another tab answered: the card goes when the outcome arrives, with no decision sent here', async () => {
    const { frames, shadow, socket } = await mount();
    await frames(userMessage(), request());
    await frames(started());
    expect(card(shadow)).to.equal(null);
    expect(decisions(socket.sent)).to.have.length(0);
  });

  it('abort and the end of the turn clear the cards', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), request());
    await frames({
      type: 'message',
      sessionId: SESSION,
      message: { id: 'a1', role: 'assistant', parts: [], createdAt: 1, status: 'aborted' },
    });
    expect(card(shadow)).to.equal(null);
  });

  it('a reload: stream_resume with approvals shows the card, its time on the server clock', async () => {
    const hours3 = 3 * 3_600_000;
    const serverNow = Date.now() + hours3;
    const { frames, shadow, el } = await mount({ serverTime: serverNow });
    const seen: unknown[] = [];
    el.addEventListener('aalis-tool-approval', (e) => seen.push(e.detail));
    await frames({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: serverNow,
      parts: [{ type: 'text', text: 'Checking the weather.' }],
      toolCallsProgress: [],
      approvals: [
        {
          callId: 'w1',
          index: 0,
          name: 'get_weather',
          arguments: { location: 'Paris' },
          policy: 'session',
          expiresAt: serverNow + 7.5 * MINUTE,
        },
      ],
    });
    const c = card(shadow)!;
    expect(c).to.exist;
    expect(words(c.querySelector('.approval-expires'))).to.equal('Expires in 7 min');
    expect(button(shadow, 'allow-session-button')).to.exist;
    expect(seen).to.deep.equal([
      { callId: 'w1', name: 'get_weather', arguments: { location: 'Paris' }, policy: 'session' },
    ]);
    expect(announced(shadow)).to.equal('get_weather asks for approval');
  });

  it('the minutes left follow the server clock, down to "less than a minute"', async () => {
    const clock = fakeClock();
    try {
      const { frames, shadow, el } = await mount({ serverTime: Date.now() });
      await frames(userMessage(), request({}, Date.now() + 2.5 * MINUTE));
      const left = () => words(card(shadow)!.querySelector('.approval-expires'));
      expect(left()).to.equal('Expires in 2 min');
      for (const [ms, expected] of [
        [31_000, 'Expires in 1 min'],
        [MINUTE, 'Expires in less than a minute'],
      ] as const) {
        await clock.advance(ms);
        el.requestUpdate();
        await el.updateComplete;
        expect(left()).to.equal(expected);
      }
    } finally {
      clock.restore();
    }
  });

  it('re-renders on its own when the minute changes, with no frame arriving', async () => {
    const { frames, shadow } = await mount({ serverTime: Date.now() });
    // The count drops from 3 to 2 in 300 ms.
    await frames(userMessage(), request({}, Date.now() + 3 * MINUTE + 300));
    const left = () => words(card(shadow)!.querySelector('.approval-expires'));
    expect(left()).to.equal('Expires in 3 min');
    await until(() => left() === 'Expires in 2 min', 2_000);
  });

  it('the event fires once per request: not again on later frames or a reconnect', async () => {
    const { frames, el } = await mount();
    const seen: string[] = [];
    el.addEventListener('aalis-tool-approval', (e) => seen.push(e.detail.callId));
    await frames(userMessage(), request(), text('more'), request({ callId: 'w2', index: 1 }));
    // The connection drops and comes back: ready, then the same waiting calls again.
    await frames(readyFrame(), {
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: Date.now(),
      parts: [],
      toolCallsProgress: [],
      approvals: [
        { callId: 'w1', index: 0, name: 'get_weather', policy: 'always', expiresAt: Date.now() + MINUTE },
        { callId: 'w2', index: 1, name: 'get_weather', policy: 'always', expiresAt: Date.now() + MINUTE },
      ],
    });
    expect(seen).to.deep.equal(['w1', 'w2']);
  });

  it('is announced politely', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), request());
    expect(announced(shadow)).to.equal('get_weather asks for approval');
  });

  it('focus goes to Approve when the card appears only if it was in an empty composer', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage());
    shadow.querySelector('textarea')!.focus();
    await frames(request());
    expect(shadow.activeElement).to.equal(button(shadow, 'approve-button'));

    // Focus elsewhere on the page: left alone.
    const other = await mount();
    const outside = document.createElement('button');
    document.body.append(outside);
    try {
      outside.focus();
      await other.frames(userMessage(), request());
      expect(document.activeElement).to.equal(outside);
      expect(other.shadow.activeElement).to.equal(null);
    } finally {
      outside.remove();
    }
  });

  it('a visitor typing in the composer keeps the focus there', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage());
    const textarea = shadow.querySelector('textarea')!;
    textarea.focus();
    textarea.value = 'and also';
    textarea.dispatchEvent(new Event('input'));
    await frames(request());
    expect(shadow.activeElement).to.equal(textarea);
  });

  it('after a decision, focus goes to the composer, never to the next card (a second Enter must not approve it)', async () => {
    const { frames, shadow, el, socket } = await mount();
    await frames(userMessage(), request(), request({ callId: 'w2', index: 1 }));
    button(shadow, 'approve-button')!.focus();
    button(shadow, 'approve-button')!.click();
    await el.updateComplete;
    expect(shadow.activeElement).to.equal(shadow.querySelector('textarea'));
    expect(decisions(socket.sent)).to.have.length(1);
    expect(button(shadow, 'approve-button', 'w2')!.disabled).to.equal(false);
  });

  it('long arguments scroll inside the card, never widening the bubble', async () => {
    const { frames, shadow, el } = await mount();
    const long = { content: 'x'.repeat(5_000), lines: Array.from({ length: 80 }, (_, i) => `line ${i}`) };
    await frames(userMessage(), text('Writing.'), request({ name: 'write_file', arguments: long }));
    const c = card(shadow)!;
    const pre = c.querySelector('pre')!;
    const bubble = c.closest('.bubble')!;
    // Wrapped like a tool-call block's, and scrolling past 12 lines or so.
    expect(pre.scrollHeight).to.be.greaterThan(pre.clientHeight * 2);
    expect(pre.scrollWidth).to.be.at.most(pre.clientWidth);
    const column = shadow.querySelector('.column')!.getBoundingClientRect().width;
    expect(bubble.getBoundingClientRect().width).to.be.at.most(column * 0.85 + 1);
    expect(c.getBoundingClientRect().height).to.be.lessThan(el.getBoundingClientRect().height);
    expect(c.getBoundingClientRect().right).to.be.at.most(bubble.getBoundingClientRect().right);
    expect(pre.tabIndex, 'reachable by keyboard to scroll').to.equal(0);
  });

  it('speaks Chinese', async () => {
    const { frames, shadow } = await mount({ locale: 'zh-CN', serverTime: Date.now() });
    await frames(userMessage(), request({ policy: 'session' }, Date.now() + 5.5 * MINUTE));
    const c = card(shadow)!;
    expect(words(c.querySelector('.approval-title'))).to.equal('get_weather 请求批准');
    expect(words(c.querySelector('.approval-expires'))).to.equal('5 分钟后过期');
    expect(words(button(shadow, 'approve-button'))).to.equal('批准');
    expect(words(button(shadow, 'deny-button'))).to.equal('拒绝');
    expect(words(button(shadow, 'allow-session-button'))).to.equal('在本次对话中允许');
    expect(announced(shadow)).to.equal('get_weather 请求批准');
  });

  it('the dark theme: the card keeps the warning border, on the dark card background', async () => {
    const { frames, shadow } = await mount({ theme: 'dark' });
    await frames(userMessage(), request());
    const style = getComputedStyle(card(shadow)!);
    expect(style.borderTopColor).to.equal('rgb(255, 160, 87)');
    expect(style.backgroundColor).to.equal('rgb(24, 25, 27)');
  });

  for (const theme of ['light', 'dark']) {
    it(`passes an axe accessibility check with cards, a progress bar and a declined block (${theme})`, async () => {
      const { frames, el } = await mount({ theme });
      await frames(
        userMessage('Weather?'),
        text('Checking.'),
        declinedEnd('d0', 'expired'),
        started('r1', 'index_docs'),
        toolExecute('progress', 'r1', 'index_docs', { progress: 2, total: 5, message: 'Reading' }),
        request({ policy: 'session' }),
        request({ callId: 'w2', index: 1, arguments: 'x'.repeat(400) }),
      );
      await expect(el).to.be.accessible();
    });
  }

  it('passes an axe check with a card in the typing bubble and its buttons disabled', async () => {
    const { frames, el, shadow } = await mount();
    await frames(userMessage(), request());
    button(shadow, 'approve-button')!.click();
    await el.updateComplete;
    await expect(el).to.be.accessible();
  });
});
