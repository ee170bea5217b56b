/**
 * `tokenProvider`: asked before every connect and reconnect, its token is what hello
 * carries (a fresh one after a drop), a 4401 makes it asked once more before the widget
 * gives up, and hello waits for a provider that takes its time. The `token` attribute
 * still works without one.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { AalisChat } from '../src/aalis-chat.js';
import type { AalisErrorEvent } from '../src/shared/events.js';
import { SESSION, readyFrame, socketCollector, until } from './harness.js';

/** Mounts a chat; `errors` collects its aalis-error codes from before it connects. */
async function mountWith(tokenProvider: AalisChat['tokenProvider'], token = '', errors: string[] = []) {
  localStorage.clear();
  const { sockets, factory } = socketCollector();
  const el = await fixture<AalisChat>(
    html`<aalis-chat
      server="https://chat.example.com"
      locale="en"
      token=${token}
      .tokenProvider=${tokenProvider}
      .socketFactory=${factory}
      @aalis-error=${(event: AalisErrorEvent) => errors.push(event.detail.code)}
    ></aalis-chat>`,
  );
  return { el, sockets };
}

const ready = readyFrame({ resumed: false });

describe('tokenProvider', () => {
  it('is called before each connect; hello carries its token, a new one after a reconnect', async () => {
    let calls = 0;
    const { el, sockets } = await mountWith(() => `token-${++calls}`);
    await until(() => sockets[0]?.sent.length === 1);
    // Its token is in the first hello: it was called before it, once.
    expect(calls).to.equal(1);
    expect(sockets[0]!.sent[0]).to.include({ type: 'hello', token: 'token-1' });
    sockets[0]!.receive(ready);
    await el.updateComplete;

    sockets[0]!.close(1006, ''); // the network drops
    await until(() => sockets[1]?.sent.length === 1, 5_000);
    expect(calls).to.equal(2);
    expect(sockets[1]!.sent[0]).to.include({ type: 'hello', token: 'token-2', sessionId: SESSION });
  });

  it('hello waits for a provider that takes its time', async () => {
    let give: (token: string) => void = () => {};
    const { sockets } = await mountWith(() => new Promise<string>((resolve) => (give = resolve)));
    await until(() => sockets[0]?.readyState === 1);
    // Real time on purpose: a hello that must not go yet can only be seen not going.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sockets[0]!.sent).to.have.length(0);
    give('late-token');
    await until(() => sockets[0]!.sent.length === 1);
    expect(sockets[0]!.sent[0]).to.include({ token: 'late-token' });
  });

  it('after a 4401 it is asked once more, then the widget gives up and says so', async () => {
    let calls = 0;
    const errors: string[] = [];
    const { sockets } = await mountWith(async () => `token-${++calls}`, '', errors);
    await until(() => sockets[0]?.sent.length === 1);
    sockets[0]!.close(4401, 'a valid visitor token is required');
    await until(() => sockets[1]?.sent.length === 1);
    expect(calls).to.equal(2);
    expect(sockets[1]!.sent[0]).to.include({ token: 'token-2' });
    expect(errors).to.deep.equal([]);

    sockets[1]!.close(4401, 'a valid visitor token is required');
    await until(() => errors.length === 1);
    expect(errors).to.deep.equal(['4401']);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(sockets).to.have.length(2);
    expect(calls).to.equal(2);
  });

  it('a provider that throws is told as aalis-error, and the widget tries again', async () => {
    let calls = 0;
    // Listened to from the start: the provider may be asked before the element first renders.
    const errors: string[] = [];
    const { sockets } = await mountWith(
      () => {
        calls++;
        if (calls === 1) throw new Error('backend down');
        return 'token-ok';
      },
      '',
      errors,
    );
    await until(() => errors.includes('token_provider_failed'));
    expect(sockets[0]!.sent).to.have.length(0); // never anonymous by accident
    await until(() => sockets[1]?.sent.length === 1, 5_000);
    expect(sockets[1]!.sent[0]).to.include({ token: 'token-ok' });
  });

  it('without a provider, the token attribute is sent as before', async () => {
    const { sockets } = await mountWith(undefined, 'shared-token');
    await until(() => sockets[0]?.sent.length === 1);
    expect(sockets[0]!.sent[0]).to.include({ type: 'hello', token: 'shared-token' });
  });
});
