/**
 * A signed visitor's token expires while the page stays open: the server closes the socket
 * with 4401 at its `exp` (PROTOCOL.md, section 2). With a `tokenProvider` that is no
 * refusal: the provider is asked for a fresh token, the widget reconnects with it and the
 * conversation stays on screen. A long session meets many expiries, each one followed by
 * a `ready`; every one of them is handled the same way.
 */
import { expect, fixture, html } from '@open-wc/testing';
import type { AalisChat } from '../src/aalis-chat.js';
import type { AalisConnectionChangeEvent, AalisErrorEvent } from '../src/shared/events.js';
import { SESSION, readyFrame, socketCollector, until } from './harness.js';

const messages = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'What is the capital of Peru?' }], createdAt: 1 },
  {
    id: 'a1',
    role: 'assistant',
    parts: [{ type: 'text', text: 'Lima is the capital of Peru.' }],
    createdAt: 2,
    status: 'complete',
  },
];

/** What the transcript shows, as a reader sees it. */
const transcript = (el: AalisChat) =>
  el.shadowRoot!.querySelector('.transcript')!.textContent!.replace(/\s+/g, ' ').trim();
const statusLine = (el: AalisChat) => el.shadowRoot!.querySelector<HTMLElement>('.status')!;

describe('visitor token expiry (4401 at exp)', () => {
  it('each expiry asks the provider again and reconnects with its token; the transcript stays', async () => {
    localStorage.clear();
    let calls = 0;
    const errors: string[] = [];
    const states: string[] = [];
    const { sockets, factory } = socketCollector();
    const el = await fixture<AalisChat>(
      html`<aalis-chat
        server="https://chat.example.com"
        locale="en"
        .tokenProvider=${async () => `token-${++calls}`}
        .socketFactory=${factory}
        @aalis-error=${(event: AalisErrorEvent) => errors.push(event.detail.code)}
        @aalis-connection-change=${(event: AalisConnectionChangeEvent) => states.push(event.detail.state)}
      ></aalis-chat>`,
    );
    await until(() => sockets[0]?.sent.length === 1);
    expect(sockets[0]!.sent[0]).to.include({ type: 'hello', token: 'token-1' });
    sockets[0]!.receive(readyFrame({ resumed: false, messages }));
    await until(() => transcript(el).includes('Lima is the capital of Peru.'));

    // Two expiries in a row, each after the `ready` of the connection before.
    for (const n of [2, 3]) {
      const expired = sockets.at(-1)!;
      states.length = 0;
      expired.close(4401, 'a valid visitor token is required');
      await until(() => sockets.length === n && sockets[n - 1]!.sent.length === 1);
      expect(calls).to.equal(n);
      expect(sockets[n - 1]!.sent[0]).to.include({ type: 'hello', token: `token-${n}`, sessionId: SESSION });
      // While it reconnects, the conversation is still there, and nothing says it is refused.
      await el.updateComplete;
      expect(transcript(el)).to.contain('Lima is the capital of Peru.');
      expect(statusLine(el).textContent).not.to.contain('Offline');

      sockets[n - 1]!.receive(readyFrame({ messages }));
      await until(() => el.connectionState === 'connected');
      await el.updateComplete;
      expect(statusLine(el).hidden).to.equal(true);
      expect(transcript(el)).to.contain('What is the capital of Peru?');
      expect(transcript(el)).to.contain('Lima is the capital of Peru.');
      // Never "offline" on the way: a page listening to the state saw a reconnect, no more.
      expect(states).not.to.include('offline');
      expect(states.at(-1)).to.equal('connected');
    }
    expect(errors).to.deep.equal([]);
    expect(sockets).to.have.length(3);
  });

  it('a second 4401 before any ready still gives up, as before: the provider cannot help', async () => {
    localStorage.clear();
    let calls = 0;
    const errors: string[] = [];
    const { sockets, factory } = socketCollector();
    const el = await fixture<AalisChat>(
      html`<aalis-chat
        server="https://chat.example.com"
        locale="en"
        .tokenProvider=${async () => `token-${++calls}`}
        .socketFactory=${factory}
        @aalis-error=${(event: AalisErrorEvent) => errors.push(event.detail.code)}
      ></aalis-chat>`,
    );
    await until(() => sockets[0]?.sent.length === 1);
    sockets[0]!.receive(readyFrame({ resumed: false, messages }));
    await until(() => el.connectionState === 'connected');
    sockets[0]!.close(4401, 'a valid visitor token is required');
    await until(() => sockets[1]?.sent.length === 1);
    sockets[1]!.close(4401, 'a valid visitor token is required');
    await until(() => errors.length === 1);
    expect(errors).to.deep.equal(['4401']);
    expect(el.connectionState).to.equal('offline');
    await el.updateComplete;
    expect(statusLine(el).textContent).to.contain('Offline');
    expect(calls).to.equal(2);
  });
});
