import { expect } from '@open-wc/testing';
import { Limits } from '@aalis/protocol/client';
import { SESSION, mount, readyFrame, text, until, userMessage, type Mounted } from './harness.js';

const textarea = (shadow: ShadowRoot) => shadow.querySelector('textarea')!;
const type = async (shadow: ShadowRoot, value: string) => {
  const t = textarea(shadow);
  t.value = value;
  t.dispatchEvent(new Event('input'));
};
const key = (shadow: ShadowRoot, init: KeyboardEventInit) =>
  textarea(shadow).dispatchEvent(
    new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...init }),
  );
const sends = (sent: Array<Record<string, unknown>>) => sent.filter((f) => f.type === 'send');

describe('the composer', () => {
  it('Enter sends; Shift+Enter does not; Enter during IME composition never sends', async () => {
    const { shadow, socket, el } = await mount();
    await type(shadow, '你好');
    textarea(shadow).dispatchEvent(new CompositionEvent('compositionstart'));
    key(shadow, { isComposing: true });
    key(shadow, { keyCode: 229 } as KeyboardEventInit);
    textarea(shadow).dispatchEvent(new CompositionEvent('compositionend'));
    key(shadow, { shiftKey: true });
    expect(sends(socket.sent)).to.have.length(0);
    let sentEvent = '';
    el.addEventListener('aalis-send', (e) => (sentEvent = e.detail.text));
    key(shadow, {});
    expect(sends(socket.sent)).to.deep.equal([
      { type: 'send', text: '你好', clientMessageId: sends(socket.sent)[0]!.clientMessageId },
    ]);
    expect(sentEvent).to.equal('你好');
    await el.updateComplete;
    expect(textarea(shadow).value).to.equal('');
  });

  it('a refused send gives its text back to the composer, unless something new was typed', async () => {
    const { shadow, socket, frames, el } = await mount();
    await type(shadow, 'my long question');
    key(shadow, {});
    await el.updateComplete;
    expect(textarea(shadow).value).to.equal('');
    const [sent] = sends(socket.sent);
    // The disk was full: the server could not keep it.
    await frames({
      type: 'error',
      code: 'storage',
      message: 'not saved',
      errorId: 'ab12cd34',
      clientMessageId: sent!.clientMessageId,
    });
    expect(textarea(shadow).value).to.equal('my long question');
    expect(shadow.textContent).to.contain('(error ID ab12cd34)');

    key(shadow, {});
    await type(shadow, 'something else');
    await frames({
      type: 'error',
      code: 'busy',
      message: 'busy',
      clientMessageId: sends(socket.sent)[1]!.clientMessageId,
    });
    expect(textarea(shadow).value).to.equal('something else');
  });

  it('shows Stop while a turn runs, and Stop sends abort', async () => {
    const { shadow, socket, frames } = await mount();
    await frames(userMessage(), text('Working'));
    const stop = shadow.querySelector<HTMLButtonElement>('[part~="stop-button"]')!;
    expect(stop).to.exist;
    stop.click();
    expect(socket.sent.at(-1)).to.deep.equal({ type: 'abort' });
    await frames({
      type: 'message',
      sessionId: SESSION,
      message: { id: 'a', role: 'assistant', parts: [], createdAt: 1, status: 'aborted' },
    });
    expect(shadow.querySelector('[part~="send-button"]')).to.exist;
  });

  it('counts characters near the limit and refuses past it', async () => {
    const { shadow, el } = await mount();
    await type(shadow, 'x'.repeat(Limits.messageText + 1));
    await el.updateComplete;
    expect(shadow.querySelector('.counter.over')!.textContent).to.equal(
      `${Limits.messageText + 1} / ${Limits.messageText}`,
    );
    expect(shadow.querySelector<HTMLButtonElement>('.send')!.disabled).to.equal(true);
  });

  it('sending while disconnected is refused visibly and the text is kept', async () => {
    const { shadow, socket, el } = await mount();
    socket.close(1006);
    await el.updateComplete;
    await type(shadow, 'keep me');
    key(shadow, {});
    await el.updateComplete;
    expect(shadow.querySelector('.notice')!.textContent).to.match(/Not connected/);
    expect(textarea(shadow).value).to.equal('keep me');
  });

  it("a busy or rate-limited answer shows next to the composer, in the widget's words", async () => {
    const { shadow, frames } = await mount();
    await frames({ type: 'error', code: 'rate_limited', message: 'too many messages: try again in 12 s' });
    expect(shadow.querySelector('.notice')!.textContent).to.equal('Too many messages: wait a moment.');
    // When the server says when, the widget says it too, in its own words.
    await frames({
      type: 'error',
      code: 'rate_limited',
      message: 'too many messages: try again in 12 s',
      retryInMs: 11_200,
    });
    expect(shadow.querySelector('.notice')!.textContent).to.equal(
      'Too many messages: wait a moment. Try again in 12 s.',
    );
  });

  it('says when to try again in Chinese too', async () => {
    const { shadow, frames } = await mount({ locale: 'zh-CN' });
    await frames({ type: 'error', code: 'rate_limited', message: 'too many messages', retryInMs: 30_000 });
    expect(shadow.querySelector('.notice')!.textContent).to.equal('消息太多：请稍等片刻。（30 秒后再试）');
  });
});

/** The reconnect after a drop: a second socket, hello with the session, ready, connected. */
async function resumesOnASecondSocket({ sockets, el }: Mounted, states: string[]) {
  await until(() => sockets.length === 2, 2_000);
  await until(() => sockets[1]!.sent.length === 1);
  expect(sockets[1]!.sent[0]).to.deep.equal({
    type: 'hello',
    protocol: 1,
    sessionId: SESSION,
    features: ['operator'],
  });
  sockets[1]!.receive(readyFrame());
  await el.updateComplete;
  expect(states).to.deep.equal(['reconnecting', 'reconnecting', 'connected']);
}

describe('the connection', () => {
  it('says hello with the remembered session, and reconnects after a drop with backoff', async () => {
    const mounted = await mount();
    const { sockets, socket, el, shadow } = mounted;
    expect(sockets[0]!.url).to.equal('wss://chat.example.com/ws');
    expect(sockets[0]!.sent[0]).to.deep.equal({ type: 'hello', protocol: 1, features: ['operator'] });
    const states: string[] = [];
    el.addEventListener('aalis-connection-change', (e) => states.push(e.detail.state));
    socket.close(1006);
    await el.updateComplete;
    expect(shadow.querySelector('.status')!.getAttribute('data-state')).to.equal('reconnecting');
    expect(shadow.querySelector('.status')!.textContent).to.match(/Reconnecting in \d+s/);
    await resumesOnASecondSocket(mounted, states);
    expect(shadow.querySelector('.status')!.hasAttribute('hidden')).to.equal(true);
  });

  it('1013 (try again later) is not final: after a pause it reconnects and resumes the session', async () => {
    const mounted = await mount();
    const { sockets, socket, el, shadow, frames } = mounted;
    const states: string[] = [];
    el.addEventListener('aalis-connection-change', (e) => states.push(e.detail.state));
    // What a server whose storage failed does with a hello: says so, then closes with 1013.
    await frames({ type: 'error', code: 'storage', message: 'storage failed' });
    // The jitter at its least: any pause left is the one 1013 asks for.
    const random = Math.random;
    Math.random = () => 0;
    try {
      socket.close(1013, 'try again later');
    } finally {
      Math.random = random;
    }
    await el.updateComplete;
    const status = shadow.querySelector('.status')!;
    expect(status.getAttribute('data-state')).to.equal('reconnecting');
    expect(status.textContent).to.match(/Reconnecting in \ds/);
    expect(status.textContent).not.to.contain('try again later');
    expect(shadow.querySelector('.notice')!.textContent).to.equal('The server could not save this message.');
    // A pause, not an instant retry: the backoff's base delay (500 ms) at least. Real time
    // on purpose: a retry that does not happen can only be seen by waiting.
    await new Promise((r) => setTimeout(r, 300));
    expect(sockets).to.have.length(1);
    await resumesOnASecondSocket(mounted, states);
    expect(status.hasAttribute('hidden')).to.equal(true);
    expect(shadow.querySelector('.notice')!.textContent).to.equal('');
  });

  it('a wrong token is final: offline with the reason, no retry', async () => {
    const { socket, sockets, el, shadow } = await mount();
    let error = '';
    el.addEventListener('aalis-error', (e) => (error = e.detail.message));
    socket.close(4401, 'wrong or missing token');
    await el.updateComplete;
    // Real time on purpose: no retry can only be seen by waiting past the first backoff (500 ms).
    await new Promise((r) => setTimeout(r, 700));
    expect(sockets).to.have.length(1);
    expect(shadow.querySelector('.status')!.textContent).to.contain('wrong or missing token');
    expect(error).to.equal('wrong or missing token');
  });

  it('loading the script-tag build twice does not throw', async () => {
    // The one-file build, twice, as two script tags would load it (npm test builds it first).
    const errors: string[] = [];
    const onError = (e: ErrorEvent) => errors.push(e.message);
    window.addEventListener('error', onError);
    for (const copy of ['first', 'second']) {
      const url = `/widget/dist/aalis-chat.js?${copy}`;
      await import(url);
    }
    window.removeEventListener('error', onError);
    expect(errors).to.deep.equal([]);
    expect(customElements.get('aalis-chat')).to.exist;
  });
});
