/**
 * What a newcomer noticed first, each in a real browser: names and headers broken inside
 * a word, a text box that makes iOS zoom, markdown read aloud as symbols, a notice that
 * promised a kept message nobody kept, blocks that looked inert, a card's 9.2 s that
 * became 0.0 s, two reasoning blocks with one duration, and words only a locale could set.
 */
import { expect } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import {
  SESSION,
  announced,
  cards,
  done,
  fakeClock,
  mount,
  progress,
  text,
  toolExecute,
  toolStart,
  userMessage,
} from './harness.js';

const lineHeight = (element: Element) => parseFloat(getComputedStyle(element).lineHeight);
const writing = (callId: string, name: string, writingMs?: number) =>
  toolStart(callId, name, { path: 'notes.md' }, writingMs === undefined ? {} : { writingMs });
const toolEnd = (callId: string, name: string, durationMs: number) =>
  toolExecute('end', callId, name, { result: 'ok', durationMs });

afterEach(async () => {
  await setViewport({ width: 800, height: 600 });
});

describe('the first look', () => {
  it("at 375 px a tool's name is never broken inside: not on its card, not on its block", async () => {
    await setViewport({ width: 375, height: 667 });
    const { el, shadow, frames } = await mount();
    el.style.width = '375px';
    await frames(userMessage('Write it'), progress(0, 'write_file_contents', 1_234_567));
    expect(await cards(shadow)).to.have.length(1);
    const cardName = shadow.querySelector('aalis-tool-progress')!.shadowRoot!.querySelector('.name')!;
    expect(cardName.getClientRects()).to.have.length(1);
    expect(cardName.getBoundingClientRect().height).to.be.below(lineHeight(cardName) * 1.5);
    await frames(done(), writing('c1', 'write_file_contents'), toolEnd('c1', 'write_file_contents', 20));
    const blockName = shadow.querySelector('.tool-call-block .tool-name')!;
    expect(blockName.textContent).to.equal('write_file_contents');
    expect(blockName.getBoundingClientRect().height).to.be.below(lineHeight(blockName) * 1.5);
  });

  it('table headers keep their words whole at 1280 px, however long the cells', async () => {
    await setViewport({ width: 1280, height: 800 });
    const { shadow, frames } = await mount();
    const long = 'one progress chunk per delta entry, with its absolute length, and more words again';
    await frames(
      userMessage('Table?'),
      text(`| provider | configuration | behaviour |\n| --- | --- | --- |\n| openai | ${long} | ${long} |`),
    );
    const headers = [...shadow.querySelectorAll('th')];
    expect(headers.map((th) => th.textContent)).to.deep.equal(['provider', 'configuration', 'behaviour']);
    for (const th of headers) {
      const range = document.createRange();
      range.selectNodeContents(th);
      expect(range.getClientRects(), th.textContent!).to.have.length(1);
    }
  });

  it('the text box is at least 16 px, so iOS does not zoom into it', async () => {
    const { shadow } = await mount();
    expect(parseFloat(getComputedStyle(shadow.querySelector('textarea')!).fontSize)).to.be.at.least(16);
  });

  it('a markdown answer is announced as words, not as its symbols', async () => {
    const { shadow, frames } = await mount();
    const markdown =
      '## Streaming, in short\n\n| provider | chars |\n| --- | --- |\n| openai | 142 |\n\n**Done** with `write_file`.';
    await frames(userMessage('Explain'), text(markdown), {
      type: 'message',
      sessionId: SESSION,
      message: {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'text', text: markdown }],
        createdAt: Date.now(),
        status: 'complete',
      },
    });
    const said = announced(shadow);
    expect(said).to.contain('Streaming, in short');
    expect(said).to.contain('openai, 142');
    expect(said).to.contain('Done with write_file');
    for (const symbol of ['#', '|', '---', '**', '`']) expect(said, symbol).not.to.contain(symbol);
  });

  it('says what became of a message it could not send: kept, not sent, or never sendable here', async () => {
    const { el, shadow, socket } = await mount();
    socket.close(1006);
    await el.updateComplete;
    expect(el.send('from code')).to.equal(false);
    await el.updateComplete;
    const notice = () => shadow.querySelector('.notice')!.textContent;
    expect(notice()).to.equal('Not connected: the message was not sent.');
    expect(shadow.querySelector('textarea')!.value).to.equal('');

    const refused = await mount();
    refused.socket.close(4401, 'token refused');
    await refused.el.updateComplete;
    expect(refused.el.send('hello')).to.equal(false);
    await refused.el.updateComplete;
    expect(refused.shadow.querySelector('.notice')!.textContent).to.equal(
      'This page cannot use this chat, so messages cannot be sent.',
    );
  });

  it('a tool block shows that it opens, and turns its marker when it does', async () => {
    const { shadow, frames } = await mount();
    await frames(userMessage('Go'), writing('c1', 'search'), toolEnd('c1', 'search', 5));
    const block = shadow.querySelector<HTMLDetailsElement>('.tool-call-block')!;
    const summary = block.querySelector('summary')!;
    const marker = getComputedStyle(summary, '::before');
    expect(marker.content).to.equal('""');
    expect(parseFloat(marker.borderLeftWidth)).to.be.above(0);
    expect(marker.transform).to.equal('none');
    const turned = new Promise((resolve) =>
      summary.addEventListener('transitionend', resolve, { once: true }),
    );
    summary.click();
    await turned;
    expect(block.open).to.equal(true);
    expect(getComputedStyle(summary, '::before').transform).not.to.equal('none');
  });

  it("a block's time counts on from its card's: writing 9.2 s, then running 0.04 s, shows 9.2 s", async () => {
    const { shadow, frames } = await mount();
    await frames(userMessage('Write'), progress(0, 'write_file', 500), done());
    await frames(writing('c1', 'write_file', 9_200), toolEnd('c1', 'write_file', 40));
    expect(
      shadow.querySelector('.tool-call-block .tool-status')!.textContent!.replace(/\s+/g, ' ').trim(),
    ).to.equal('done · 9.2s');
  });

  it('two reasoning blocks in one answer each show their own duration', async () => {
    const clock = fakeClock();
    try {
      const { shadow, frames } = await mount();
      const reasoning = (reasoningDelta: string) => ({ type: 'stream', sessionId: SESSION, reasoningDelta });
      await frames(userMessage('Think'), reasoning('First I look.'));
      await clock.advance(1_000);
      await frames(text('Found it. '));
      await frames(reasoning('Then I check.'));
      await clock.advance(3_000);
      await frames(text('Checked.'));
      const labels = [...shadow.querySelectorAll('details.reasoning summary')].map((s) =>
        s.textContent!.trim(),
      );
      expect(labels).to.deep.equal(['Reasoned for 1.0s', 'Reasoned for 3.0s']);
    } finally {
      clock.restore();
    }
  });

  it('a placeholder and a title are attributes, no locale needed', async () => {
    const { el, shadow } = await mount();
    el.setAttribute('placeholder', 'Ask about your order…');
    el.setAttribute('chat-title', 'Lumen & Oak');
    el.setAttribute('mode', 'launcher');
    await el.updateComplete;
    // Shown where they are used: the title names the launcher's button and its panel.
    expect(shadow.querySelector('.launcher')!.getAttribute('aria-label')).to.equal('Lumen & Oak');
    el.open();
    await el.updateComplete;
    expect(shadow.querySelector('.panel h2')!.textContent).to.equal('Lumen & Oak');
    expect(shadow.querySelector('textarea')!.placeholder).to.equal('Ask about your order…');
  });
});
