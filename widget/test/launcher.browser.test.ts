/**
 * Launcher mode: a round button in a corner opens the chat in a dialog panel, by mouse
 * and by keyboard alone; open or closed survives a reload; an answer that ends while it
 * is closed leaves a dot; on a phone the panel is the whole screen.
 */
import { expect } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { SESSION, mount, text, userMessage } from './harness.js';

const button = (shadow: ShadowRoot) => shadow.querySelector<HTMLButtonElement>('.launcher')!;
const panel = (shadow: ShadowRoot) => shadow.querySelector<HTMLElement>('.panel');
const active = (shadow: ShadowRoot) => shadow.activeElement;
const answer = (id: string, words: string) => ({
  type: 'message',
  sessionId: SESSION,
  message: {
    id,
    role: 'assistant',
    parts: [{ type: 'text', text: words }],
    createdAt: Date.now(),
    status: 'complete',
  },
});

afterEach(async () => {
  await setViewport({ width: 800, height: 600 });
});

describe('launcher mode', () => {
  it('connects at once, but builds the panel only when first opened, with the turn so far', async () => {
    const { el, shadow, frames, sockets } = await mount({ mode: 'launcher' });
    expect(sockets[0]!.sent[0]).to.include({ type: 'hello' });
    await frames(userMessage('Are you there?'), text('I am here'));
    expect(panel(shadow)).to.equal(null);
    expect(shadow.querySelector('.transcript')).to.equal(null);
    expect(button(shadow).getAttribute('aria-expanded')).to.equal('false');
    button(shadow).click();
    await el.updateComplete;
    expect(panel(shadow)!.hidden).to.equal(false);
    expect(panel(shadow)!.getAttribute('role')).to.equal('dialog');
    expect(panel(shadow)!.textContent).to.contain('I am here');
    expect(button(shadow).getAttribute('aria-expanded')).to.equal('true');
  });

  it('by keyboard alone: Tab to the button, Enter opens, Tab stays inside, Escape closes and gives the focus back', async () => {
    const { el, shadow } = await mount({ mode: 'launcher' });
    const events: string[] = [];
    el.addEventListener('aalis-open', () => events.push('open'));
    el.addEventListener('aalis-close', () => events.push('close'));
    (document.activeElement as HTMLElement | null)?.blur();
    await sendKeys({ press: 'Tab' });
    expect(active(shadow)).to.equal(button(shadow));
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    await el.updateComplete;
    expect(active(shadow)!.tagName).to.equal('TEXTAREA');
    // However many times Tab is pressed, the focus never leaves the panel.
    for (let i = 0; i < 8; i++) {
      await sendKeys({ press: 'Tab' });
      expect(panel(shadow)!.contains(active(shadow)), `Tab ${i + 1}`).to.equal(true);
    }
    await sendKeys({ down: 'Shift' });
    for (let i = 0; i < 8; i++) {
      await sendKeys({ press: 'Tab' });
      expect(panel(shadow)!.contains(active(shadow)), `Shift+Tab ${i + 1}`).to.equal(true);
    }
    await sendKeys({ up: 'Shift' });
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    await el.updateComplete;
    expect(panel(shadow)!.hidden).to.equal(true);
    expect(active(shadow)).to.equal(button(shadow));
    expect(events).to.deep.equal(['open', 'close']);
  });

  it('Escape in a form inside the panel closes the form, not the panel', async () => {
    const { el, shadow, frames } = await mount({ mode: 'launcher' });
    el.open();
    await frames(userMessage('Q'), answer('a1', 'A'));
    shadow.querySelector<HTMLButtonElement>('.action.edit')!.click();
    await el.updateComplete;
    await el.updateComplete;
    expect(active(shadow)).to.equal(shadow.querySelector('.edit-form textarea'));
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    expect(shadow.querySelector('.edit-form')).to.equal(null);
    expect(el.isOpen).to.equal(true);
    // The focus stays in the panel, in the text box, where the next Escape closes it.
    await el.updateComplete;
    expect(active(shadow)!.tagName).to.equal('TEXTAREA');
  });

  it('the close button and the methods open(), close(), toggle()', async () => {
    const { el, shadow } = await mount({ mode: 'launcher' });
    el.open();
    await el.updateComplete;
    expect(el.isOpen).to.equal(true);
    shadow.querySelector<HTMLButtonElement>('.panel-close')!.click();
    await el.updateComplete;
    expect(el.isOpen).to.equal(false);
    el.toggle();
    await el.updateComplete;
    expect(panel(shadow)!.hidden).to.equal(false);
    el.close();
    await el.updateComplete;
    expect(panel(shadow)!.hidden).to.equal(true);
  });

  it('is remembered open or closed per session-key, across a reload', async () => {
    const first = await mount({ mode: 'launcher' });
    first.el.open();
    await first.el.updateComplete;
    first.el.remove();
    const reloaded = await mount({ mode: 'launcher', keepStorage: true });
    expect(reloaded.el.isOpen).to.equal(true);
    expect(panel(reloaded.shadow)!.hidden).to.equal(false);
    // A restored panel does not take the focus from the page.
    expect(active(reloaded.shadow)).to.equal(null);
    reloaded.el.close();
    await reloaded.el.updateComplete;
    reloaded.el.remove();
    const again = await mount({ mode: 'launcher', keepStorage: true });
    expect(again.el.isOpen).to.equal(false);
    expect(panel(again.shadow)).to.equal(null);
  });

  it('an answer that ends while closed leaves an unread dot, said in the button name; opening clears it', async () => {
    const { el, shadow, frames } = await mount({ mode: 'launcher' });
    await frames(userMessage('Hi'), text('Hello'), answer('a1', 'Hello'));
    expect(shadow.querySelector('.unread')).not.to.equal(null);
    expect(button(shadow).getAttribute('aria-label')).to.equal('Chat (new answer)');
    el.open();
    await el.updateComplete;
    expect(shadow.querySelector('.unread')).to.equal(null);
    // Seen while open: no dot.
    await frames(userMessage('Again'), answer('a2', 'Sure'));
    expect(shadow.querySelector('.unread')).to.equal(null);
  });

  it('takes its title from chat-title and its corner from position', async () => {
    const { el, shadow } = await mount({ mode: 'launcher', position: 'bottom-left' });
    el.chatTitle = 'Lumen & Oak help';
    el.open();
    await el.updateComplete;
    expect(panel(shadow)!.querySelector('h2')!.textContent).to.equal('Lumen & Oak help');
    const rect = button(shadow).getBoundingClientRect();
    expect(rect.left).to.be.below(100);
    expect(rect.width).to.equal(56);
    expect(rect.height).to.equal(56);
  });

  it('on a 375 px phone, the open panel is the whole screen and the button steps aside', async () => {
    await setViewport({ width: 375, height: 667 });
    const { el, shadow } = await mount({ mode: 'launcher' });
    el.open();
    await el.updateComplete;
    const rect = panel(shadow)!.getBoundingClientRect();
    expect([rect.left, rect.top, rect.width, rect.height]).to.deep.equal([0, 0, 375, 667]);
    expect(getComputedStyle(button(shadow)).display).to.equal('none');
    // The way out is the panel's own close button, in reach.
    const close = shadow.querySelector<HTMLElement>('.panel-close')!.getBoundingClientRect();
    expect(close.right).to.be.at.most(375);
    expect(close.width).to.be.at.least(36);
  });

  for (const theme of ['light', 'dark']) {
    it(`passes an axe check closed and open (${theme})`, async () => {
      const { el, frames } = await mount({ mode: 'launcher', theme });
      await frames(userMessage('Hi'), answer('a1', 'Hello **there**'));
      await expect(el).to.be.accessible();
      el.open();
      await el.updateComplete;
      await expect(el).to.be.accessible();
    });
  }
});
