/**
 * The visitor's conversations: listed from the server's `sessions`, opened, started anew,
 * renamed and deleted (asked twice); only shown to a visitor the server knows.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { SESSION, mount, readyFrame } from './harness.js';

const sessions = (list: Array<[string, string, number]>) => ({
  type: 'sessions',
  sessions: list.map(([id, title, minutesAgo]) => ({
    id,
    title,
    lastActivity: Date.now() - minutesAgo * 60_000,
  })),
});

async function visitorMount(options: { locale?: string; theme?: string } = {}) {
  const mounted = await mount(options);
  // An anonymous visitor's key, as a ready once gave it: this browser is a visitor the
  // server knows, and says so.
  await mounted.frames(readyFrame({ anonymousKey: 'anon-key-1', conversations: true }));
  return mounted;
}

describe('the conversation list', () => {
  it('is not offered unless the server says the visitor has conversations (a shared token is no visitor)', async () => {
    const { el, shadow, frames } = await mount();
    expect(shadow.querySelector('.conversations-button')).to.equal(null);
    el.token = 'the-sites-shared-token';
    await frames(readyFrame());
    expect(shadow.querySelector('.conversations-button')).to.equal(null);
  });

  it('a conversation deleted in another tab is left here for a new one', async () => {
    const { el, shadow, frames, socket } = await visitorMount();
    await frames({
      type: 'user_message',
      sessionId: SESSION,
      message: { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }], createdAt: Date.now() },
    });
    expect(shadow.querySelector('.bubble.user')).to.exist;
    await frames({ type: 'session_deleted', sessionId: SESSION });
    await el.updateComplete;
    expect(shadow.querySelector('.bubble.user')).to.equal(null);
    const hello = socket.sent.at(-1)!;
    expect(hello).to.include({ type: 'hello', anonymousKey: 'anon-key-1' });
    expect(hello).not.to.have.property('sessionId');
  });

  it("lists the server's sessions newest first, and opens one with a new hello", async () => {
    const { el, shadow, frames, socket } = await visitorMount();
    shadow.querySelector<HTMLButtonElement>('.conversations-button')!.click();
    expect(socket.sent.at(-1)).to.deep.equal({ type: 'list_sessions' });
    await frames(
      sessions([
        [SESSION, 'Lamp order', 2],
        ['s-older', 'Shipping to Norway', 60 * 30],
      ]),
    );
    const items = [...shadow.querySelectorAll('.open-conversation')].map((b) =>
      b.textContent!.replace(/\s+/g, ' ').trim(),
    );
    expect(items).to.deep.equal(['Lamp order 2 minutes ago', 'Shipping to Norway yesterday']);
    expect(shadow.querySelector('.open-conversation')!.getAttribute('aria-current')).to.equal('true');
    shadow.querySelectorAll<HTMLButtonElement>('.open-conversation')[1]!.click();
    await el.updateComplete;
    expect(shadow.querySelector('.conversations')).to.equal(null);
    expect(socket.sent.at(-1)).to.include({
      type: 'hello',
      sessionId: 's-older',
      anonymousKey: 'anon-key-1',
    });
  });

  it('renames by keyboard (Enter saves) and deletes only when asked twice', async () => {
    const { el, shadow, frames, socket } = await visitorMount();
    shadow.querySelector<HTMLButtonElement>('.conversations-button')!.click();
    await frames(
      sessions([
        ['s-a', 'First', 5],
        ['s-b', 'Second', 10],
      ]),
    );
    shadow.querySelector<HTMLButtonElement>('.action.rename')!.click();
    await el.updateComplete;
    const input = shadow.querySelector<HTMLInputElement>('.rename-form input')!;
    input.focus();
    input.select();
    await sendKeys({ type: 'Lamp order' });
    await sendKeys({ press: 'Enter' });
    expect(socket.sent.at(-1)).to.deep.equal({
      type: 'rename_session',
      sessionId: 's-a',
      title: 'Lamp order',
    });
    await frames(
      sessions([
        ['s-a', 'Lamp order', 5],
        ['s-b', 'Second', 10],
      ]),
    );
    const remove = () => shadow.querySelectorAll<HTMLButtonElement>('.action.delete')[1]!;
    remove().click();
    await el.updateComplete;
    expect(remove().textContent!.trim()).to.equal('Delete?');
    expect(socket.sent.at(-1)).to.include({ type: 'rename_session' });
    remove().click();
    expect(socket.sent.at(-1)).to.deep.equal({ type: 'delete_session', sessionId: 's-b' });
  });

  it('deleting the open conversation leaves it only once the server has deleted it', async () => {
    const { el, shadow, frames, socket } = await visitorMount();
    shadow.querySelector<HTMLButtonElement>('.conversations-button')!.click();
    await frames(sessions([[SESSION, 'Open one', 1]]));
    const remove = () => shadow.querySelector<HTMLButtonElement>('.action.delete')!;
    remove().click();
    await el.updateComplete;
    remove().click();
    expect(socket.sent.at(-1)).to.deep.equal({ type: 'delete_session', sessionId: SESSION });
    const sent = socket.sent.length;
    // Refused (it is answering): nothing changes here.
    await frames({ type: 'error', code: 'busy', message: 'answering' }, sessions([[SESSION, 'Open one', 1]]));
    expect(socket.sent.length).to.equal(sent);
    remove().click();
    await el.updateComplete;
    remove().click();
    await frames(sessions([]));
    // Gone: a new conversation is asked for.
    const hello = socket.sent.at(-1)!;
    expect(hello).to.include({ type: 'hello' });
    expect(hello).not.to.have.property('sessionId');
  });

  it('New conversation starts one: the list closes and a hello without a session id goes out', async () => {
    const { el, shadow, frames, socket } = await visitorMount();
    shadow.querySelector<HTMLButtonElement>('.conversations-button')!.click();
    await frames(sessions([]));
    expect(shadow.querySelector('.conversations .note')!.textContent).to.equal('No conversations yet.');
    shadow.querySelector<HTMLButtonElement>('.new-conversation')!.click();
    await el.updateComplete;
    const hello = socket.sent.at(-1)!;
    expect(hello).to.include({ type: 'hello' });
    expect(hello).not.to.have.property('sessionId');
  });

  for (const theme of ['light', 'dark']) {
    it(`passes an axe check (${theme}, zh-CN)`, async () => {
      const { el, shadow, frames } = await visitorMount({ theme, locale: 'zh-CN' });
      shadow.querySelector<HTMLButtonElement>('.conversations-button')!.click();
      await frames(
        sessions([
          ['s-a', '灯具订单', 5],
          ['s-b', 'Second', 10],
        ]),
      );
      await expect(el).to.be.accessible();
    });
  }
});
