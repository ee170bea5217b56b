import { expect } from '@open-wc/testing';
import {
  SESSION,
  cards,
  done,
  mount,
  progress,
  text,
  toolExecute,
  toolStart,
  until,
  userMessage,
} from './harness.js';

describe('pending tool-call cards', () => {
  it('appear with the name on the first fragment, in the typing bubble before any text', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), progress(0, 'write_file', 0));
    const typing = shadow.querySelector('.typing-bubble')!;
    expect(typing).to.exist;
    const card = typing.querySelector('aalis-tool-progress.tool-call-block.tool-call-block-pending');
    expect(card, 'card inside the typing bubble').to.exist;
    expect((await cards(shadow))[0]).to.match(/^write_file 0 chars · 0\.\ds$/);
  });

  it('reads "Generating…" until the name is known, and the chars rise', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), progress(0, '', 0));
    expect((await cards(shadow))[0]).to.match(/^Generating… 0 chars/);
    await frames(progress(0, 'search_docs', 12));
    expect((await cards(shadow))[0]).to.match(/^search_docs 12 chars/);
    await frames(progress(0, 'search_docs', 142));
    expect((await cards(shadow))[0]).to.match(/^search_docs 142 chars · /);
  });

  it('the elapsed time ticks on its own (fake clock)', async () => {
    const realNow = Date.now;
    let now = realNow();
    Date.now = () => now;
    try {
      const { frames, shadow } = await mount({ serverTime: now });
      await frames(userMessage(), progress(0, 'write_file', 10));
      expect((await cards(shadow))[0]).to.contain('· 0.0s');
      now += 3_200;
      // The card picks the clock up at its next tick.
      await until(
        () => !!shadow.querySelector('aalis-tool-progress')?.shadowRoot?.textContent?.includes('3.2s'),
      );
      expect((await cards(shadow))[0]).to.contain('· 3.2s');
    } finally {
      Date.now = realNow;
    }
  });

  it('indexes 2, 0, 1 give three cards in order 0, 1, 2', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), progress(2, 'c', 1), progress(0, 'a', 1), progress(1, 'b', 1));
    expect((await cards(shadow)).map((c) => c.split(' ')[0])).to.deep.equal(['a', 'b', 'c']);
  });

  const clearing: Array<[string, Record<string, unknown>]> = [
    ['a content delta', text('Done.')],
    ['a stream with done', done()],
    ['tool_execute start', toolStart('c1', 'a', {})],
    [
      'an error for the session',
      { type: 'error', sessionId: SESSION, code: 'upstream', message: 'model failed' },
    ],
  ];
  for (const [what, frame] of clearing) {
    it(`clear on ${what}`, async () => {
      const { frames, shadow } = await mount();
      await frames(userMessage(), progress(0, 'a', 1), progress(1, 'b', 2));
      expect(await cards(shadow)).to.have.length(2);
      await frames(frame);
      expect(await cards(shadow)).to.have.length(0);
    });
  }

  it("tool-call blocks take the cards' place, in the same bubble, at the same spot", async () => {
    const { frames, shadow } = await mount();
    await frames(
      userMessage(),
      text('Checking both. '),
      progress(0, 'get_weather', 20),
      progress(1, 'get_weather', 18),
    );
    const bubble = shadow.querySelector('.bubble.assistant.streaming')!;
    expect(bubble.lastElementChild!.matches('aalis-tool-progress')).to.equal(true);
    await frames(
      done(),
      toolStart('A', 'get_weather', { location: 'Paris' }),
      toolStart('B', 'get_weather', { location: 'Tokyo' }, { index: 1 }),
    );
    const blocks = [...bubble.querySelectorAll('.tool-call-block')];
    expect(blocks.map((b) => b.getAttribute('data-call-id'))).to.deep.equal(['A', 'B']);
    expect(bubble.querySelector('.tool-call-block-pending')).to.equal(null);
    await frames(
      toolExecute('end', 'B', 'get_weather', {
        index: 1,
        arguments: {},
        result: { temp: 21 },
        durationMs: 40,
      }),
    );
    const b = bubble.querySelector('[data-call-id="B"]')!;
    expect(b.getAttribute('data-status')).to.equal('done');
    expect(b.textContent).to.contain('"temp": 21');
    expect(b.textContent).to.contain('done · 0.0s');
    expect(bubble.querySelector('[data-call-id="A"]')!.getAttribute('data-status')).to.equal('running');
  });

  it('stream_resume with serverTime three hours off still shows the right elapsed time', async () => {
    const hours3 = 3 * 3_600_000;
    const serverNow = Date.now() + hours3;
    const { frames, shadow } = await mount({ serverTime: serverNow });
    await frames({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: serverNow,
      parts: [{ type: 'text', text: 'Writing the report.' }],
      toolCallsProgress: [
        {
          index: 0,
          name: 'write_file',
          charsAccumulated: 1400,
          startedAt: serverNow - 12_300,
          updatedAt: serverNow - 100,
        },
      ],
    });
    const [card] = await cards(shadow);
    expect(card).to.match(/^write_file 1400 chars · 12\.[34]s$/);
    expect(shadow.querySelector('.bubble.assistant.streaming')!.textContent).to.contain(
      'Writing the report.',
    );
  });

  it('says it is waiting for the model when no fragment came for 5 s', async () => {
    const serverNow = Date.now();
    const { frames, shadow } = await mount({ serverTime: serverNow });
    await frames({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: serverNow,
      parts: [],
      toolCallsProgress: [
        {
          index: 0,
          name: 'write_file',
          charsAccumulated: 400,
          startedAt: serverNow - 12_400,
          updatedAt: serverNow - 6_000,
        },
      ],
    });
    expect((await cards(shadow))[0]).to.match(/^write_file waiting for the model · 12\.[45]s$/);
    expect(shadow.querySelector('aalis-tool-progress')!.hasAttribute('stalled')).to.equal(true);
    // A new fragment: back to counting.
    await frames(progress(0, 'write_file', 410));
    await until(() => !shadow.querySelector('aalis-tool-progress')!.hasAttribute('stalled'));
  });

  describe('tool-call blocks without arguments', () => {
    const call = {
      type: 'tool_call',
      callId: 'c1',
      index: 0,
      name: 'get_time',
      status: 'done',
      result: { time: '12:00' },
      startedAt: 1_000,
      endedAt: 1_400,
    };
    const blockText = (root: ParentNode) =>
      root.querySelector('[data-call-id="c1"]')!.textContent!.replace(/\s+/g, ' ');

    it('from history (an older server sent them only with tool_execute start): no "undefined"', async () => {
      const { shadow } = await mount({
        messages: [
          { id: 'a1', role: 'assistant', parts: [call, { type: 'text', text: 'It is noon.' }], createdAt: 1 },
        ],
      });
      const block = shadow.querySelector('[data-id="a1"] .tool-call-block')!;
      expect(blockText(block.parentNode!)).to.contain('get_time done · 0.4s');
      expect(block.textContent).to.contain('"time": "12:00"');
      expect(block.textContent).not.to.contain('undefined');
      expect(block.textContent).not.to.contain('Arguments');
      // Opened, it shows the result and nothing where the arguments would be.
      (block as HTMLDetailsElement).open = true;
      expect([...block.querySelectorAll('h6')].map((h) => h.textContent)).to.deep.equal(['Result']);
    });

    it('live, when a client joined after the start: only the end frame, without arguments', async () => {
      const { frames, shadow } = await mount();
      await frames(
        userMessage(),
        toolExecute('end', 'c1', 'get_time', { result: { time: '12:00' }, durationMs: 400 }),
      );
      const bubble = shadow.querySelector('.bubble.assistant.streaming')!;
      expect(blockText(bubble)).to.contain('get_time done · 0.4s');
      expect(bubble.textContent).not.to.contain('undefined');
    });

    it('a final message without arguments shows those its tool_execute start carried', async () => {
      const { frames, shadow } = await mount();
      await frames(userMessage(), toolStart('c1', 'get_time', { zone: 'Europe/Paris' }));
      await frames({
        type: 'message',
        sessionId: SESSION,
        message: { id: 'a1', role: 'assistant', parts: [call], createdAt: 1, status: 'complete' },
      });
      const block = shadow.querySelector('[data-id="a1"] .tool-call-block')!;
      expect(block.textContent).to.contain('"zone": "Europe/Paris"');
      expect(block.textContent).not.to.contain('undefined');
    });
  });
});
