/**
 * Regenerate the last answer, edit the last question, and switch between the versions
 * of an exchange; after a reload and in a second tab the versions are all there.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { SESSION, mount } from './harness.js';

type Message = { id: string; role: 'user' | 'assistant'; text: string; replaces?: string };
const stored = ({ id, role, text, replaces }: Message) => ({
  id,
  role,
  parts: [{ type: 'text', text }],
  createdAt: 1,
  ...(role === 'assistant' ? { status: 'complete' } : {}),
  ...(replaces ? { replaces } : {}),
});
const userFrame = (message: Message, clientMessageId?: string) => ({
  type: 'user_message',
  sessionId: SESSION,
  message: stored(message),
  ...(clientMessageId ? { clientMessageId } : {}),
});
const answerFrame = (message: Message) => ({ type: 'message', sessionId: SESSION, message: stored(message) });
const HISTORY: Message[] = [
  { id: 'u1', role: 'user', text: 'Which bulb?' },
  { id: 'a1', role: 'assistant', text: 'E27.' },
];
const shownTexts = (shadow: ShadowRoot) =>
  [...shadow.querySelectorAll('.bubble[data-id]')].map((b) => b.textContent!.replace(/\s+/g, ' ').trim());
const counter = (shadow: ShadowRoot) => shadow.querySelector('.version-count')?.textContent?.trim();

describe('versions of an exchange', () => {
  it('regenerate: the last answer has the button; the new answer shows, 2 / 2, and ‹ goes back to 1 / 2', async () => {
    const { el, shadow, frames, socket } = await mount({ messages: HISTORY.map(stored) });
    const regenerate = shadow.querySelectorAll<HTMLButtonElement>('.action.regenerate');
    expect(regenerate).to.have.length(1);
    regenerate[0]!.click();
    const sent = socket.sent.at(-1)!;
    expect(sent).to.include({ type: 'regenerate', messageId: 'a1' });
    await frames(
      userFrame(
        { id: 'u2', role: 'user', text: 'Which bulb?', replaces: 'u1' },
        sent.clientMessageId as string,
      ),
    );
    // While the new answer is written, no version can be switched to, and nothing asked again.
    expect(shadow.querySelector<HTMLButtonElement>('.versions button')!.disabled).to.equal(true);
    expect(shadow.querySelector('.action.regenerate')).to.equal(null);
    await frames(answerFrame({ id: 'a2', role: 'assistant', text: 'GU10.' }));
    expect(shownTexts(shadow)).to.deep.equal(['Which bulb?', 'GU10.']);
    expect(counter(shadow)).to.equal('2 / 2');
    shadow.querySelector<HTMLButtonElement>('.versions button[aria-label="Previous version"]')!.click();
    await el.updateComplete;
    expect(shownTexts(shadow)).to.deep.equal(['Which bulb?', 'E27.']);
    expect(counter(shadow)).to.equal('1 / 2');
    // An earlier version is not the one to ask again.
    expect(shadow.querySelector('.action.regenerate')).to.equal(null);
  });

  it('edit: the last question becomes a form; Save sends it, Escape leaves it as it was', async () => {
    const { el, shadow, frames, socket } = await mount({ messages: HISTORY.map(stored) });
    shadow.querySelector<HTMLButtonElement>('.action.edit')!.click();
    await el.updateComplete;
    const field = shadow.querySelector<HTMLTextAreaElement>('.edit-form textarea')!;
    expect(field.value).to.equal('Which bulb?');
    field.focus();
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    expect(shadow.querySelector('.edit-form')).to.equal(null);
    expect(shownTexts(shadow)).to.deep.equal(['Which bulb?', 'E27.']);

    shadow.querySelector<HTMLButtonElement>('.action.edit')!.click();
    await el.updateComplete;
    shadow.querySelector<HTMLTextAreaElement>('.edit-form textarea')!.value =
      'Which bulb for a reading lamp?';
    shadow.querySelector<HTMLButtonElement>('.edit-save')!.click();
    expect(socket.sent.at(-1)).to.include({
      type: 'edit',
      messageId: 'u1',
      text: 'Which bulb for a reading lamp?',
    });
    await frames(
      userFrame({ id: 'u2', role: 'user', text: 'Which bulb for a reading lamp?', replaces: 'u1' }),
      answerFrame({ id: 'a2', role: 'assistant', text: 'A warm E27.' }),
    );
    expect(shownTexts(shadow)).to.deep.equal(['Which bulb for a reading lamp?', 'A warm E27.']);
    expect(counter(shadow)).to.equal('2 / 2');
  });

  // That a reload and a second tab get every version from the server is tested on real
  // sockets (server/test/versions.test.ts); here, what a history holding them shows.
  it('a history holding versions shows the latest (3 / 3), and the switcher steps back', async () => {
    const history = [
      ...HISTORY,
      { id: 'u2', role: 'user', text: 'Which bulb?', replaces: 'u1' },
      { id: 'a2', role: 'assistant', text: 'GU10.' },
      { id: 'u3', role: 'user', text: 'Which bulb, dimmable?', replaces: 'u2' },
      { id: 'a3', role: 'assistant', text: 'A dimmable E27.' },
    ] as Message[];
    const { el, shadow } = await mount({ messages: history.map(stored) });
    expect(shownTexts(shadow)).to.deep.equal(['Which bulb, dimmable?', 'A dimmable E27.']);
    expect(counter(shadow)).to.equal('3 / 3');
    shadow.querySelector<HTMLButtonElement>('.versions button')!.click();
    await el.updateComplete;
    expect(shownTexts(shadow)).to.deep.equal(['Which bulb?', 'GU10.']);
    expect(counter(shadow)).to.equal('2 / 3');
  });

  for (const theme of ['light', 'dark']) {
    it(`passes an axe check with a switcher and an edit form (${theme})`, async () => {
      const { el, shadow, frames } = await mount({ theme, messages: HISTORY.map(stored) });
      await frames(
        userFrame({ id: 'u2', role: 'user', text: 'Which bulb?', replaces: 'u1' }),
        answerFrame({ id: 'a2', role: 'assistant', text: 'GU10.' }),
      );
      shadow.querySelector<HTMLButtonElement>('.action.edit')!.click();
      await el.updateComplete;
      await expect(el).to.be.accessible();
    });
  }
});
