/**
 * The views in files of their own (src/shared/lazy-view.ts), the first time a page shows
 * each: nothing in their place until the file has come, then the view, its rules applied,
 * and the focus where it goes once it shows. The other tests load them before they mount
 * (harness.ts); each view loads once a page, so each test here is the first to show its own.
 */
import { expect } from '@open-wc/testing';
import { LAZY_VIEWS, SESSION, mount, readyFrame, until, userMessage } from './harness.js';

const MINUTE = 60_000;
const lazy = { lazyViews: true };

describe('views loaded when first shown', () => {
  before(() => {
    // Each test below is the first to show its view: none may have loaded yet.
    expect(LAZY_VIEWS.map((view) => view.ready)).to.deep.equal(LAZY_VIEWS.map(() => false));
  });

  it('a reload mid-approval: the card shows once its file has come, and Approve takes the focus from an empty composer', async () => {
    const { el, shadow, frames } = await mount({ ...lazy, serverTime: Date.now() });
    const seen: string[] = [];
    el.addEventListener('aalis-tool-approval', (e) => seen.push(e.detail.callId));
    shadow.querySelector('textarea')!.focus();
    await frames({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: Date.now(),
      parts: [{ type: 'text', text: 'Checking.' }],
      toolCallsProgress: [],
      approvals: [
        {
          callId: 'w1',
          index: 0,
          name: 'get_weather',
          arguments: { location: 'Paris' },
          policy: 'always',
          expiresAt: Date.now() + 5.5 * MINUTE,
        },
      ],
    });
    // Evented and announced at once: only the card waits for its file.
    expect(seen).to.deep.equal(['w1']);
    const card = () => shadow.querySelector<HTMLElement>('.approval-card[data-call-id="w1"]');
    await until(() => !!card());
    expect(card()!.querySelector('.approval-expires')!.textContent!.trim()).to.equal('Expires in 5 min');
    expect(getComputedStyle(card()!).borderTopColor, 'its rules apply').to.equal('rgb(173, 87, 0)');
    await until(() => shadow.activeElement === card()!.querySelector('.approve-button'));
  });

  it('a site that offers a person: the button and the empty line show once their file has come', async () => {
    const { shadow, frames } = await mount(lazy);
    await frames(readyFrame({ handoffOffered: true }));
    await until(() => !!shadow.querySelector('[part~="handoff-button"]'));
    const notice = shadow.querySelector<HTMLElement>('[part~="handoff-notice"]')!;
    expect(notice.textContent!.trim()).to.equal('');
    expect(notice.getAttribute('role')).to.equal('status');
  });

  it('the conversation list shows once its file has come', async () => {
    const { shadow, frames } = await mount(lazy);
    await frames(readyFrame({ anonymousKey: 'anon-key-1', conversations: true }));
    shadow.querySelector<HTMLButtonElement>('.conversations-button')!.click();
    await frames({
      type: 'sessions',
      sessions: [{ id: SESSION, title: 'Lamp order', lastActivity: Date.now() }],
    });
    await until(() => !!shadow.querySelector('.open-conversation'));
    expect(shadow.querySelector('.conversation-title')!.textContent).to.equal('Lamp order');
    expect(getComputedStyle(shadow.querySelector('.conversations ul')!).listStyleType).to.equal('none');
  });

  it("a history holding versions: the switcher shows once its file has come, though the history's inputs did not change", async () => {
    const stored = (id: string, role: string, text: string, replaces?: string) => ({
      id,
      role,
      parts: [{ type: 'text', text }],
      createdAt: 1,
      ...(role === 'assistant' ? { status: 'complete' } : {}),
      ...(replaces ? { replaces } : {}),
    });
    const { shadow } = await mount({
      ...lazy,
      messages: [
        stored('u1', 'user', 'Which bulb?'),
        stored('a1', 'assistant', 'E27.'),
        stored('u2', 'user', 'Which bulb, dimmable?', 'u1'),
        stored('a2', 'assistant', 'A dimmable E27.'),
      ],
    });
    await until(() => !!shadow.querySelector('.versions'));
    expect(shadow.querySelector('.version-count')!.textContent!.trim()).to.equal('2 / 2');
  });

  it('a thumb: the comment form shows once its file has come, and takes the focus', async () => {
    const { el, shadow, frames, socket } = await mount(lazy);
    await frames(userMessage('Which bulbs?'), {
      type: 'message',
      sessionId: SESSION,
      message: {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'text', text: 'E27.' }],
        createdAt: 1,
        status: 'complete',
      },
    });
    shadow.querySelector<HTMLButtonElement>('.action.up')!.click();
    expect(socket.sent.at(-1)).to.deep.equal({ type: 'feedback', messageId: 'a1', rating: 'up' });
    await el.updateComplete;
    const input = () => shadow.querySelector('.feedback-form input');
    await until(() => !!input() && shadow.activeElement === input());
    expect(LAZY_VIEWS.map((view) => view.ready)).to.deep.equal(LAZY_VIEWS.map(() => true));
  });
});
