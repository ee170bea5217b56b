/**
 * Under every finished answer: copy its markdown, and rate it with a thumb and an
 * optional comment. The pressed thumb is the answer's stored feedback, as every tab and a
 * reload have it.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { SESSION, announced, mount, until, userMessage } from './harness.js';

const MARKDOWN = 'Use **two** bulbs:\n\n- E27\n- GU10';
const answerFrame = (feedback?: object) => ({
  type: 'message',
  sessionId: SESSION,
  message: {
    id: 'a1',
    role: 'assistant',
    parts: [{ type: 'text', text: MARKDOWN }],
    createdAt: Date.now(),
    status: 'complete',
    ...(feedback ? { feedback } : {}),
  },
});
const told = (rating: string, comment?: string) => ({
  type: 'feedback',
  sessionId: SESSION,
  messageId: 'a1',
  rating,
  ...(comment ? { comment } : {}),
});
const pressed = (shadow: ShadowRoot) =>
  [...shadow.querySelectorAll('.action[aria-pressed="true"]')].map((b) => b.getAttribute('aria-label'));

describe('actions under an answer', () => {
  it("a thumb sends feedback, opens an optional comment, and the server's echo presses it", async () => {
    const { el, shadow, frames, socket } = await mount();
    const heard: unknown[] = [];
    el.addEventListener('aalis-feedback', (e) => heard.push(e.detail));
    await frames(userMessage('Which bulbs?'), answerFrame());
    expect(pressed(shadow)).to.deep.equal([]);
    shadow.querySelector<HTMLButtonElement>('.action.down')!.click();
    expect(socket.sent.at(-1)).to.deep.equal({ type: 'feedback', messageId: 'a1', rating: 'down' });
    await el.updateComplete;
    await el.updateComplete;
    const input = shadow.querySelector<HTMLInputElement>('.feedback-form input')!;
    expect(shadow.activeElement).to.equal(input);
    await frames(told('down'));
    expect(pressed(shadow)).to.deep.equal(['Bad answer']);
    await sendKeys({ type: 'GU10 is wrong' });
    await sendKeys({ press: 'Enter' });
    expect(socket.sent.at(-1)).to.deep.equal({
      type: 'feedback',
      messageId: 'a1',
      rating: 'down',
      comment: 'GU10 is wrong',
    });
    await el.updateComplete;
    expect(shadow.querySelector('.feedback-form')).to.equal(null);
    expect(announced(shadow)).to.equal('Thanks for your feedback.');
    expect(heard).to.deep.equal([
      { messageId: 'a1', rating: 'down' },
      { messageId: 'a1', rating: 'down', comment: 'GU10 is wrong' },
    ]);
  });

  it('Escape closes the comment form without sending anything more', async () => {
    const { el, shadow, frames, socket } = await mount();
    await frames(userMessage('Q'), answerFrame());
    shadow.querySelector<HTMLButtonElement>('.action.up')!.click();
    await el.updateComplete;
    await el.updateComplete;
    const sent = socket.sent.length;
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    expect(shadow.querySelector('.feedback-form')).to.equal(null);
    expect(socket.sent.length).to.equal(sent);
  });

  it("a reload shows the stored verdict; another tab's verdict presses the thumb here", async () => {
    const { shadow, frames } = await mount({
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Q' }], createdAt: 1 },
        { ...answerFrame({ rating: 'up' }).message },
      ],
    });
    expect(pressed(shadow)).to.deep.equal(['Good answer']);
    await frames(told('down', 'changed my mind'));
    expect(pressed(shadow)).to.deep.equal(['Bad answer']);
  });

  it("copy puts the answer's markdown on the clipboard and says so", async () => {
    const { el, shadow, frames } = await mount();
    await frames(userMessage('Q'), answerFrame());
    let written = '';
    const clipboard = navigator.clipboard;
    Object.defineProperty(navigator, 'clipboard', {
      configurable: true,
      value: { writeText: async (text: string) => void (written = text) },
    });
    try {
      shadow.querySelector<HTMLButtonElement>('.action.copy')!.click();
      await until(() => written !== '');
      await el.updateComplete;
      expect(written).to.equal(MARKDOWN);
      expect(shadow.querySelector('.action.copy')!.textContent!.trim()).to.equal('Copied');
    } finally {
      Object.defineProperty(navigator, 'clipboard', { configurable: true, value: clipboard });
    }
  });

  it('feedback() from code: false for what is not a shown answer, or when offline', async () => {
    const { el, frames, socket } = await mount();
    await frames(userMessage('Q'), answerFrame());
    expect(el.feedback('nope', 'up')).to.equal(false);
    expect(el.feedback('a1', 'up', 'fine')).to.equal(true);
    expect(socket.sent.at(-1)).to.deep.equal({
      type: 'feedback',
      messageId: 'a1',
      rating: 'up',
      comment: 'fine',
    });
    socket.close(1006);
    await el.updateComplete;
    expect(el.feedback('a1', 'down')).to.equal(false);
  });

  for (const theme of ['light', 'dark']) {
    it(`passes an axe check with the actions and an open comment form (${theme})`, async () => {
      const { el, shadow, frames } = await mount({ theme, locale: 'zh-CN' });
      await frames(userMessage('Q'), answerFrame({ rating: 'up' }));
      shadow.querySelector<HTMLButtonElement>('.action.up')!.click();
      await el.updateComplete;
      await expect(el).to.be.accessible();
    });
  }
});
