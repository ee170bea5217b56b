/**
 * Sends the server refuses before any turn (PROTOCOL.md, section 2): `paused`, said
 * calmly with the text given back; and `challenge_required`, a bot check whose provider
 * script is loaded then (only then, once per page), drawn in the chat, and whose token goes
 * in a new `hello` before the message is sent again by itself. The provider is a fake
 * served from fixtures/, with Turnstile's and hCaptcha's explicit-render API.
 */
import { expect } from '@open-wc/testing';
import { SESSION, mount, readyFrame, until, type Mounted } from './harness.js';

const FAKE = new URL('/widget/test/fixtures/fake-challenge.js', location.href).href;

interface FakeProvider {
  rendered: Array<{ id: string; sitekey: string; container: HTMLElement }>;
  removed: string[];
}
const fake = (provider: string) => (window as unknown as Record<string, FakeProvider>)[provider]!;

const challenge = (provider: 'turnstile' | 'hcaptcha' = 'turnstile') => ({
  provider,
  siteKey: `site-key-${provider}`,
  scriptUrl: provider === 'turnstile' ? FAKE : `${FAKE}?provider=hcaptcha`,
});
const refusal = (code: string, fields: object = {}) => ({
  type: 'error',
  code,
  message: `server words for ${code}`,
  ...fields,
});

const textarea = (m: Mounted) => m.shadow.querySelector('textarea')!;
const notice = (m: Mounted) => m.shadow.querySelector('.notice')!;
const sends = (m: Mounted) => m.sockets.flatMap((s) => s.sent.filter((f) => f.type === 'send'));
/** The scripts the page's head loads, by address. */
const headScripts = () => [...document.head.querySelectorAll('script')].map((s) => s.src);
/** Whether the widget's own part that draws a check (challenge-provider) was fetched. */
const challengePartLoaded = () =>
  performance.getEntriesByType('resource').some((e) => e.name.includes('/challenge-provider.'));
const providerScripts = (base: string) =>
  [...document.head.querySelectorAll('script')].filter((s) => s.src.split('?')[0] === base);
/** The check's button, as the provider drew it (in the element's light DOM), once drawn. */
const checkButton = (m: Mounted) =>
  m.el.querySelector<HTMLButtonElement>('[slot="challenge"] .fake-challenge:last-of-type');
const checkLine = (m: Mounted) => m.shadow.querySelector('.challenge [role="status"]')?.textContent?.trim();

/** Types a question and presses Enter; returns the `clientMessageId` it went with. */
async function ask(m: Mounted, words: string): Promise<string> {
  textarea(m).value = words;
  textarea(m).dispatchEvent(new Event('input'));
  textarea(m).dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
  await m.el.updateComplete;
  expect(textarea(m).value).to.equal('');
  return sends(m).at(-1)!.clientMessageId as string;
}

/** A colour as the engine computes it, for comparing a rule's colour with a token's. */
function computed(color: string): string {
  const probe = document.body.appendChild(document.createElement('span'));
  probe.style.color = color;
  const value = getComputedStyle(probe).color;
  probe.remove();
  return value;
}

/** Mounted, with an anonymous key the server issued (every hello carries it). */
async function anonymous(): Promise<Mounted> {
  const m = await mount();
  await m.frames(readyFrame({ anonymousKey: 'anon-key-1' }));
  return m;
}

describe('paused', () => {
  const words: Array<[string, string]> = [
    ['en', 'The chat is paused for a moment. Your message is kept — send it again a little later.'],
    ['zh-CN', '聊天暂时暂停了。您的消息已保留——请稍后再发送。'],
  ];
  for (const [locale, expected] of words) {
    it(`says so calmly, gives the text back and loads nothing (${locale})`, async () => {
      const scripts = headScripts();
      const m = await mount({ locale });
      const codes: string[] = [];
      m.el.addEventListener('aalis-error', (e) => codes.push(e.detail.code));
      const id = await ask(m, 'Is the shop open on Sunday?');
      await m.frames(refusal('paused', { clientMessageId: id }));

      expect(notice(m).textContent).to.equal(expected);
      expect(textarea(m).value).to.equal('Is the shop open on Sunday?');
      expect(codes).to.deep.equal(['paused']);
      // Not an error: no alert, the muted colour of the notice line, never the danger one.
      expect(m.shadow.querySelectorAll('[role="alert"], .error').length).to.equal(0);
      expect(notice(m).getAttribute('role')).to.equal('status');
      const host = getComputedStyle(m.el);
      const color = getComputedStyle(notice(m)).color;
      expect(color).to.equal(computed(host.getPropertyValue('--_muted')));
      expect(color).not.to.equal(computed(host.getPropertyValue('--_danger')));
      // No check asked: no box, and no script of any provider.
      expect(m.shadow.querySelectorAll('.challenge').length).to.equal(0);
      expect(headScripts()).to.deep.equal(scripts);
    });
  }
});

describe('bot challenge', () => {
  it('no script is ever added when no challenge was asked', async () => {
    const scripts = headScripts();
    const m = await anonymous();
    const id = await ask(m, 'hello');
    await m.frames(refusal('busy', { clientMessageId: id }));
    await ask(m, 'hello');
    await m.frames(readyFrame());
    // A challenge_required without a challenge to show is a plain refusal: nothing to load.
    await ask(m, 'hello again');
    await m.frames(refusal('challenge_required', { clientMessageId: sends(m).at(-1)!.clientMessageId }));
    expect(headScripts()).to.deep.equal(scripts);
    expect(m.shadow.querySelectorAll('.challenge').length).to.equal(0);
    expect(m.el.children.length).to.equal(0);
    // Nor the widget's own part that draws one: it is fetched when a check is first shown.
    expect(challengePartLoaded()).to.equal(false);
  });

  it('challenge_required: loads the script, shows the check, says its token in a hello, then sends again', async () => {
    const m = await anonymous();
    const id = await ask(m, 'What is the capital of Peru?');
    await m.frames(refusal('challenge_required', { clientMessageId: id, challenge: challenge() }));

    // The text is back in the box, and the check says what it is for.
    expect(textarea(m).value).to.equal('What is the capital of Peru?');
    expect(checkLine(m)).to.equal('A quick check first: your message is sent as soon as it passes.');
    expect(notice(m).textContent).to.equal('');
    // The provider's script, from the address the server gave, async, asked to render
    // explicitly; added once the widget's part that draws the check has loaded.
    await until(() => providerScripts(FAKE).length > 0);
    expect(challengePartLoaded()).to.equal(true);
    const [script, ...more] = providerScripts(FAKE);
    expect(more).to.have.length(0);
    expect(script!.async).to.equal(true);
    const src = new URL(script!.src);
    expect(src.searchParams.get('render')).to.equal('explicit');
    expect(src.searchParams.get('onload')).to.match(/^aalisChallengeLoaded\d+$/);

    // Its widget, drawn in the chat with the server's site key, where the visitor sees it.
    await until(() => !!checkButton(m));
    const button = checkButton(m)!;
    const slot = m.shadow.querySelector<HTMLSlotElement>('.challenge slot[name="challenge"]')!;
    expect(slot.assignedElements()[0]!.contains(button)).to.equal(true);
    expect(button.getBoundingClientRect().height).to.be.greaterThan(0);
    expect(fake('turnstile').rendered.at(-1)!.sitekey).to.equal('site-key-turnstile');
    const widget = fake('turnstile').rendered.at(-1)!.id;
    const token = `tok-${122 + fake('turnstile').rendered.length}`;

    button.click();
    expect(m.socket.sent.at(-1)).to.deep.equal({
      type: 'hello',
      protocol: 1,
      features: ['operator'],
      sessionId: SESSION,
      anonymousKey: 'anon-key-1',
      challenge: token,
    });
    expect(sends(m)).to.have.length(1);

    await m.frames(readyFrame());
    const again = sends(m);
    expect(again).to.have.length(2);
    expect(again[1]).to.include({ type: 'send', text: 'What is the capital of Peru?' });
    expect(again[1]!.clientMessageId).not.to.equal(id);
    await m.el.updateComplete;
    expect(textarea(m).value).to.equal('');
    // Passed: the check is gone, from the shadow root and the light DOM.
    expect(m.shadow.querySelectorAll('.challenge').length).to.equal(0);
    expect(m.el.querySelectorAll('[slot="challenge"]').length).to.equal(0);
    expect(fake('turnstile').removed).to.include(widget);
    // Later hellos carry no token: the server remembers the pass.
    m.el.newSession();
    expect(m.socket.sent.at(-1)).to.deep.equal({
      type: 'hello',
      protocol: 1,
      anonymousKey: 'anon-key-1',
      features: ['operator'],
    });
  });

  it('challenge_failed: the check again, saying the last try did not pass; nothing is sent until one passes', async () => {
    const m = await anonymous();
    const id = await ask(m, 'Opening hours?');
    await m.frames(refusal('challenge_required', { clientMessageId: id, challenge: challenge() }));
    await until(() => !!checkButton(m));
    const first = checkButton(m)!;
    first.click();
    const firstToken = m.socket.sent.at(-1)!.challenge;

    await m.frames(refusal('challenge_failed', { challenge: challenge() }));
    expect(checkLine(m)).to.equal('That check did not pass — please try again.');
    await until(() => !!checkButton(m) && checkButton(m) !== first);
    expect(first.isConnected).to.equal(false);
    expect(m.el.querySelectorAll('.fake-challenge').length).to.equal(1);
    expect(sends(m)).to.have.length(1);
    expect(textarea(m).value).to.equal('Opening hours?');
    // The script is still the page's one.
    expect(providerScripts(FAKE)).to.have.length(1);

    checkButton(m)!.click();
    const secondToken = m.socket.sent.at(-1)!.challenge;
    expect(m.socket.sent.at(-1)).to.include({ type: 'hello', sessionId: SESSION });
    expect(secondToken).to.be.a('string').and.not.equal(firstToken);
    await m.frames(readyFrame());
    expect(sends(m)).to.have.length(2);
    expect(sends(m).at(-1)).to.include({ type: 'send', text: 'Opening hours?' });
    expect(m.shadow.querySelectorAll('.challenge').length).to.equal(0);
  });

  it('the token goes in every hello until a ready answers one (a reconnect on the way), then in none', async () => {
    const m = await anonymous();
    const id = await ask(m, 'Still there?');
    await m.frames(refusal('challenge_required', { clientMessageId: id, challenge: challenge() }));
    await until(() => !!checkButton(m));
    checkButton(m)!.click();
    const token = m.sockets[0]!.sent.at(-1)!.challenge as string;

    m.sockets[0]!.close(1006); // dropped before the server answered
    await until(() => m.sockets[1]?.sent.length === 1);
    expect(m.sockets[1]!.sent[0]).to.deep.equal({
      type: 'hello',
      protocol: 1,
      features: ['operator'],
      sessionId: SESSION,
      anonymousKey: 'anon-key-1',
      challenge: token,
    });
    await m.frames(readyFrame());
    expect(m.sockets[1]!.sent.at(-1)).to.include({ type: 'send', text: 'Still there?' });

    m.sockets[1]!.close(1006);
    await until(() => m.sockets[2]?.sent.length === 1);
    expect(m.sockets[2]!.sent[0]).not.to.have.property('challenge');
  });

  it('hCaptcha: its script and API, and the message sent again with its image', async () => {
    const real = window.fetch;
    window.fetch = async (input, init) =>
      String(input).endsWith('/images')
        ? new Response(
            JSON.stringify({ id: 'img-1', mimeType: 'image/png', width: 1, height: 1, bytes: 70 }),
            {
              status: 201,
              headers: { 'content-type': 'application/json' },
            },
          )
        : real(input, init);
    try {
      const uploads = {
        ticket: 'session-test.abc.mac',
        expiresAt: Date.now() + 3_600_000,
        maxBytes: 100_000,
        maxCount: 2,
        types: ['image/png'],
      };
      const m = await anonymous();
      await m.frames(readyFrame({ uploads }));
      const canvas = Object.assign(document.createElement('canvas'), { width: 1, height: 1 });
      const blob = await new Promise<Blob>((resolve) => canvas.toBlob((b) => resolve(b!), 'image/png'));
      const files = new DataTransfer();
      files.items.add(new File([blob], 'dot.png', { type: 'image/png' }));
      const input = m.shadow.querySelector<HTMLInputElement>('.attach input[type=file]')!;
      input.files = files.files;
      input.dispatchEvent(new Event('change'));
      await until(() => m.shadow.querySelector('.attachment')?.getAttribute('data-state') === 'ready');

      const id = await ask(m, 'What is in this picture?');
      expect(sends(m).at(-1)).to.deep.include({ images: ['img-1'] });
      await m.frames(
        refusal('challenge_required', { clientMessageId: id, challenge: challenge('hcaptcha') }),
      );
      expect(providerScripts(FAKE).map((s) => new URL(s.src).searchParams.get('provider'))).to.include(
        'hcaptcha',
      );
      // Drawn once the API said it was ready through the `onload` callback.
      await until(() => !!checkButton(m));
      expect(checkButton(m)!.textContent).to.contain('hcaptcha');
      expect(fake('hcaptcha').rendered.at(-1)!.sitekey).to.equal('site-key-hcaptcha');
      checkButton(m)!.click();
      expect(m.socket.sent.at(-1)).to.include({ type: 'hello', challenge: 'tok-123' });

      await m.frames(readyFrame({ uploads }));
      expect(sends(m)).to.have.length(2);
      expect(sends(m).at(-1)).to.deep.include({
        type: 'send',
        text: 'What is in this picture?',
        images: ['img-1'],
      });
      expect(m.shadow.querySelectorAll('.attachment').length).to.equal(0);
    } finally {
      window.fetch = real;
    }
  });
});
