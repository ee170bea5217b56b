/** How often the widget renders: once per animation frame at most, and cards alone while they tick. */
import { expect } from '@open-wc/testing';
import type { AalisChat } from '../src/aalis-chat.js';
import { SESSION, mount, progress, retrying, text, until, userMessage, waiting } from './harness.js';

function countRenders(el: AalisChat): { count: number } {
  const counter = { count: 0 };
  const original = (el as unknown as { render: () => unknown }).render.bind(el);
  (el as unknown as { render: () => unknown }).render = () => {
    counter.count++;
    return original();
  };
  return counter;
}

describe('render cost', () => {
  it('frames that arrive within one animation frame cause one render', async () => {
    const { el, socket } = await mount();
    const renders = countRenders(el);
    socket.receive(userMessage());
    for (let i = 0; i < 50; i++) socket.receive(progress(0, 'write_file', i * 10));
    for (let i = 0; i < 50; i++) socket.receive(text(`word${i} `));
    await el.updateComplete;
    expect(renders.count).to.equal(1);
  });

  it('the ticking cards re-render themselves, never the transcript', async () => {
    const { el, frames, shadow } = await mount();
    await frames(userMessage(), progress(0, 'write_file', 5), progress(1, 'search_docs', 3));
    const renders = countRenders(el);
    const card = shadow.querySelector('aalis-tool-progress')!;
    const before = card.shadowRoot!.textContent;
    // Real time on purpose: what is checked is that nothing renders the transcript while
    // the cards tick, over several of their 100 ms ticks.
    await new Promise((r) => setTimeout(r, 450));
    expect(renders.count).to.equal(0);
    expect(card.shadowRoot!.textContent).not.to.equal(before);
  });
});

describe('counts from a model writing tool calls', () => {
  const meta = (shadow: ShadowRoot, index: number) =>
    shadow.querySelectorAll('aalis-tool-progress')[index]!.shadowRoot!.querySelector('[part="meta"]')!
      .textContent!;

  it('render the chat once a tick (100 ms), not once a frame, and show the newest count', async () => {
    const { el, frames, shadow, socket } = await mount();
    await frames(userMessage(), progress(0, 'write_file', 1), progress(1, 'search_docs', 1));
    const renders = countRenders(el);
    const started = performance.now();
    // 600 counts over about half a second, as a model writing two calls sends them.
    for (let i = 1; i <= 30; i++) {
      for (let j = 0; j < 10; j++) {
        socket.receive(progress(0, 'write_file', i * 10 + j));
        socket.receive(progress(1, 'search_docs', i * 10 + j));
      }
      await new Promise((r) => setTimeout(r, 16));
    }
    await until(() => meta(shadow, 0).startsWith('309 chars') && meta(shadow, 1).startsWith('309 chars'));
    // One render a tick (100 ms), and one more for the last count; a render per
    // animation frame would be about three times as many.
    const ticks = (performance.now() - started) / 100;
    expect(renders.count).to.be.within(2, Math.ceil(ticks) + 2);
  });

  it('do not hold back what the visitor types', async () => {
    const { el, frames, shadow, socket } = await mount();
    await frames(userMessage(), progress(0, 'write_file', 1));
    const textarea = shadow.querySelector('textarea')!;
    // Renders once from the count alone, then the draft's render must not wait a tick.
    socket.receive(progress(0, 'write_file', 42));
    textarea.value = 'next question';
    textarea.dispatchEvent(new Event('input'));
    const asked = performance.now();
    await el.updateComplete;
    // Held for the tick, it would take 100 ms or more; at the next frame, a frame or so.
    expect(performance.now() - asked).to.be.below(80);
    expect(meta(shadow, 0)).to.match(/^42 chars/);
  });

  it('do not hold back a status line a fragment ends', async () => {
    const { frames, shadow, socket } = await mount();
    // A retry is said beside the cards (a wait is not: the cards show the model is there).
    await frames(userMessage(), progress(0, 'write_file', 1), retrying(1, 2_000));
    expect(shadow.querySelector('aalis-turn-status')).to.exist;
    socket.receive(progress(0, 'write_file', 2));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    // A boolean: chai describing a live element that is still there never finishes.
    expect(shadow.querySelector('aalis-turn-status') === null, 'the retry line is gone').to.equal(true);
  });

  it('do not hold back text, a new card or a tool start that arrive after them', async () => {
    const { frames, shadow, socket } = await mount();
    await frames(userMessage(), progress(0, 'write_file', 1));
    // A count, then at once something else: it renders at the next frame, the count with it.
    socket.receive(progress(0, 'write_file', 42));
    socket.receive(progress(1, 'search_docs', 7));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    expect(shadow.querySelectorAll('aalis-tool-progress')).to.have.length(2);
    expect(meta(shadow, 0)).to.match(/^42 chars/);
    socket.receive(progress(0, 'write_file', 50));
    socket.receive(text('Hello'));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    expect(shadow.querySelector('[part~="bubble-assistant"]')?.textContent).to.contain('Hello');
  });
});

describe('a long history', () => {
  it('shows its newest places at once and the older ones over the next frames, at the bottom throughout', async () => {
    const now = Date.now();
    const messages = Array.from({ length: 200 }, (_, i) => ({
      id: `m${i}`,
      role: i % 2 ? 'assistant' : 'user',
      parts: [{ type: 'text', text: `message ${i}` }],
      createdAt: now - (200 - i) * 1000,
    }));
    const { el, shadow } = await mount({ messages });
    const shown = () => shadow.querySelectorAll('.history .bubble[data-id]').length;
    const transcript = shadow.querySelector<HTMLElement>('.transcript')!;
    const atBottom = () => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 2;
    // The first render is a chunk, the newest: not all 200 at once.
    expect(shown()).to.be.within(2, 40);
    expect(shadow.querySelector('[data-id="m199"]')).to.exist;
    expect(shadow.querySelector('[data-id="m0"]')).to.equal(null);
    await until(() => shown() === 200, 5_000);
    await el.updateComplete;
    expect(shadow.querySelector('.history .bubble[data-id]')!.getAttribute('data-id')).to.equal('m0');
    expect(atBottom()).to.equal(true);
  });
});

describe('scrolling', () => {
  it('follows new output, stops when the reader scrolls up, and jumps back on request', async () => {
    const { el, frames, shadow } = await mount();
    const transcript = shadow.querySelector<HTMLElement>('.transcript')!;
    await frames(userMessage(), text('line\n\n'.repeat(80)));
    expect(transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight).to.be.below(2);
    transcript.scrollTop = 0;
    transcript.dispatchEvent(new Event('scroll'));
    await el.updateComplete;
    await frames(text('more\n\n'.repeat(20)));
    expect(transcript.scrollTop).to.equal(0);
    const jump = shadow.querySelector<HTMLButtonElement>('[part~="jump-button"]')!;
    expect(jump.textContent!.trim()).to.equal('Jump to latest');
    jump.click();
    await el.updateComplete;
    expect(transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight).to.be.below(2);
    expect(shadow.querySelector('[part~="jump-button"]')).to.equal(null);
  });
});

describe('following the output', () => {
  it('stays at the bottom when the last thing added is a line that renders itself (status, card)', async () => {
    const { frames, shadow } = await mount();
    const transcript = shadow.querySelector<HTMLElement>('.transcript')!;
    const gap = () => transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight;
    await frames(userMessage(), text('line\n\n'.repeat(80)));
    expect(gap()).to.be.below(2);
    await frames(waiting());
    // The line renders its words itself, after the chat's render: once they are there.
    await until(() => !!shadow.querySelector('aalis-turn-status')?.shadowRoot?.textContent);
    expect(shadow.querySelector('aalis-turn-status')!.shadowRoot!.textContent).to.contain('Waiting');
    expect(gap(), 'the status line is in view').to.be.below(2);
    await frames(progress(0, 'write_file', 5));
    await until(
      () => !!shadow.querySelector('aalis-tool-progress')?.shadowRoot?.textContent?.includes('write_file'),
    );
    expect(gap(), 'the card is in view').to.be.below(2);
  });
});

describe('sessions', () => {
  it('remembers the session under its key, and newSession() asks for a fresh one', async () => {
    const { el, socket } = await mount();
    expect(localStorage.getItem('aalis-chat-session')).to.equal(SESSION);
    el.newSession();
    await until(() => socket.sent.length === 2);
    expect(socket.sent[1]).to.deep.equal({ type: 'hello', protocol: 1, features: ['operator'] });
    expect(localStorage.getItem('aalis-chat-session')).to.equal(null);
  });
});
