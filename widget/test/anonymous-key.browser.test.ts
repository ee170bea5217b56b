/**
 * The anonymous visitor key: what `ready` issues is kept in localStorage
 * (`<sessionKey>:visitor`) and sent in every later hello, after a reconnect, after
 * `newSession()` (the same browser is the same visitor) and after a reload.
 */
import { expect } from '@open-wc/testing';
import { SESSION, mount, readyFrame, until } from './harness.js';

const KEY = 'AAAAAAAAAAAAAAAAAAAAAA.c2lnbmF0dXJlLW9mLXRoZS1zZXJ2ZXI';
const STORED = 'aalis-chat-session:visitor';

describe('anonymous visitor key', () => {
  it('is stored from ready and sent in the next hello, after a reconnect and after newSession()', async () => {
    const { el, sockets, frames } = await mount();
    // The first hello had none to send.
    expect(sockets[0]!.sent[0]).to.not.have.property('anonymousKey');
    expect(localStorage.getItem(STORED)).to.equal(null);

    await frames(readyFrame({ anonymousKey: KEY }));
    expect(localStorage.getItem(STORED)).to.equal(KEY);

    sockets[0]!.close(1006, ''); // the network drops
    await until(() => sockets[1]?.sent.length === 1, 5_000);
    expect(sockets[1]!.sent[0]).to.deep.equal({
      type: 'hello',
      protocol: 1,
      features: ['operator'],
      sessionId: SESSION,
      anonymousKey: KEY,
    });

    // A ready without a key (the server knew it) leaves it as it is.
    sockets[1]!.receive(readyFrame());
    await el.updateComplete;
    expect(localStorage.getItem(STORED)).to.equal(KEY);

    el.newSession();
    await until(() => sockets[1]!.sent.length === 2);
    expect(sockets[1]!.sent[1]).to.deep.equal({
      type: 'hello',
      protocol: 1,
      anonymousKey: KEY,
      features: ['operator'],
    });
    expect(localStorage.getItem(STORED)).to.equal(KEY);
  });

  it('a newly issued key replaces the stored one', async () => {
    const { el, sockets, frames } = await mount();
    await frames(readyFrame({ resumed: false, anonymousKey: KEY }));
    await frames(readyFrame({ resumed: false, anonymousKey: 'new.key' }));
    expect(localStorage.getItem(STORED)).to.equal('new.key');
    el.newSession();
    await until(() => sockets[0]!.sent.length === 2);
    expect(sockets[0]!.sent[1]).to.include({ anonymousKey: 'new.key' });
  });
});
