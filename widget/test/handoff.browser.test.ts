/**
 * Handoff to a person (PROTOCOL.md section 8), as the visitor sees it: the button where the
 * site offers a person, the line that says where the conversation stands, a person's replies
 * in a bubble of their own, and the visitor's messages to them, which start no turn.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import {
  SESSION,
  announced,
  answerFrame,
  mount,
  readyFrame,
  text,
  until,
  userMessage,
  type Mounted,
} from './harness.js';

const handoff = (state: 'off' | 'waiting' | 'active', fields: object = {}) => ({
  type: 'handoff',
  sessionId: SESSION,
  state,
  since: Date.now(),
  ...fields,
});
/** A person's reply, as the console's POST makes every tab get it. */
const operatorMessage = (words: string, fields: object = {}) => ({
  type: 'message',
  sessionId: SESSION,
  message: {
    id: `o-${Math.random()}`,
    role: 'operator',
    author: 'Ana',
    parts: [{ type: 'text', text: words }],
    createdAt: Date.now(),
    ...fields,
  },
});

const button = (m: Mounted) => m.shadow.querySelector<HTMLButtonElement>('[part~="handoff-button"]');
const notice = (m: Mounted) => m.shadow.querySelector<HTMLElement>('[part~="handoff-notice"]');
const noticeText = (m: Mounted) => notice(m)?.textContent?.trim() ?? null;
const handoffFrames = (m: Mounted) => m.socket.sent.filter((f) => f.type === 'handoff');
const typing = (m: Mounted) => m.shadow.querySelector('[part~="typing"], .bubble.streaming');

/** A chat whose server offers a person. */
async function offered(fields: object = {}): Promise<Mounted> {
  const m = await mount();
  await m.frames(readyFrame({ handoffOffered: true, ...fields }));
  return m;
}

/** Types in the composer and sends with Enter, as a visitor does. */
async function type(m: Mounted, words: string): Promise<void> {
  m.shadow.querySelector('textarea')!.focus();
  await sendKeys({ type: words });
  await sendKeys({ press: 'Enter' });
  await m.el.updateComplete;
}

describe('handoff to a person', () => {
  it('says in hello that it reads a person’s messages', async () => {
    const m = await mount();
    expect(m.socket.sent[0]).to.include({ type: 'hello' });
    expect(m.socket.sent[0]!.features).to.deep.equal(['operator']);
  });

  it('shows no button, and no line, where the server offers no person', async () => {
    const m = await mount();
    expect(button(m)).to.equal(null);
    expect(notice(m)).to.equal(null);
    expect(m.shadow.querySelector('[part="toolbar"]'), 'no empty toolbar').to.equal(null);
    expect(m.el.requestHandoff()).to.equal(false);
    expect(handoffFrames(m)).to.deep.equal([]);
  });

  it('offered: a real button in the toolbar sends `handoff`, by click or keyboard, and the focus goes to the text box', async () => {
    const m = await offered();
    const b = button(m)!;
    expect(b.tagName).to.equal('BUTTON');
    expect(b.getAttribute('type')).to.equal('button');
    expect(b.textContent!.trim()).to.equal('Talk to a person');
    expect(b.closest('[part="toolbar"]')).to.exist;
    // The line is there, empty, before it has anything to say: a live region must be.
    expect(notice(m)!.getAttribute('role')).to.equal('status');
    expect(noticeText(m)).to.equal('');
    expect(notice(m)!.getBoundingClientRect().height).to.equal(0);

    b.click();
    expect(handoffFrames(m)).to.deep.equal([{ type: 'handoff' }]);
    await until(() => m.shadow.activeElement === m.shadow.querySelector('textarea'));

    b.focus();
    await sendKeys({ press: 'Enter' });
    expect(handoffFrames(m)).to.have.length(2);
  });

  it('requestHandoff(reason) does what the button does, its reason trimmed; not once a person is asked for', async () => {
    const m = await offered();
    expect(m.el.requestHandoff('  my order never came  ')).to.equal(true);
    expect(handoffFrames(m)).to.deep.equal([{ type: 'handoff', reason: 'my order never came' }]);
    expect(m.el.requestHandoff('x'.repeat(600))).to.equal(true);
    expect((handoffFrames(m).at(-1)!.reason as string).length).to.equal(500);
    await m.frames(handoff('waiting'));
    expect(m.el.requestHandoff()).to.equal(false);
    expect(handoffFrames(m)).to.have.length(2);
  });

  it('waiting, then a person answers: the line says each, the button is gone, their reply is a bubble of its own', async () => {
    const m = await offered();
    await m.frames(userMessage('Where is my parcel?'), answerFrame('Let me find a person for you.'));
    const told: unknown[] = [];
    m.el.addEventListener('aalis-message', (e) => told.push(e.detail));

    await m.frames(handoff('waiting', { reason: 'parcel' }));
    expect(button(m)).to.equal(null);
    expect(noticeText(m)).to.equal('A person will join this conversation soon.');
    expect(notice(m)!.dataset.state).to.equal('waiting');
    expect(notice(m)!.getBoundingClientRect().height).to.be.greaterThan(0);

    // A person's words are text, never markup.
    await m.frames(
      operatorMessage('Hi, I am Ana. <b>Checking</b> now.', { id: 'o1' }),
      handoff('active', { operator: 'Ana' }),
    );
    const bubble = m.shadow.querySelector<HTMLElement>('.bubble.operator[data-id="o1"]')!;
    expect(bubble.getAttribute('part')).to.equal('bubble bubble-operator');
    expect(bubble.querySelector('.author')!.textContent).to.equal('Ana');
    expect(bubble.querySelector('.text')!.textContent).to.equal('Hi, I am Ana. <b>Checking</b> now.');
    expect(bubble.querySelector('b')).to.equal(null);
    expect(bubble.previousElementSibling!.matches('.actions'), 'after the answer and its actions').to.equal(
      true,
    );
    // Not the assistant's look, and nothing to rate or ask again.
    const look = getComputedStyle(bubble).backgroundColor;
    expect(look).not.to.equal(getComputedStyle(m.shadow.querySelector('.bubble.assistant')!).backgroundColor);
    expect(m.shadow.querySelector('.actions[data-for="o1"]')).to.equal(null);
    expect(m.shadow.querySelector('[part="action-regenerate"]'), 'a person answers: not the model').to.equal(
      null,
    );
    expect(m.shadow.querySelector('[part="action-edit"]')).to.equal(null);
    expect(announced(m.shadow)).to.equal('Ana replied: Hi, I am Ana. <b>Checking</b> now.');
    expect(told, 'a person’s reply ends no turn').to.deep.equal([]);

    expect(noticeText(m)).to.equal('You are talking with Ana.');
    expect(notice(m)!.dataset.state).to.equal('active');
    expect(button(m)).to.equal(null);
    await expect(m.el).to.be.accessible();
  });

  it('while a person answers, a message to them shows as the visitor’s, with no thinking indicator', async () => {
    const m = await offered({ handoff: { state: 'active', operator: 'Ana', since: Date.now() } });
    expect(noticeText(m)).to.equal('You are talking with Ana.');
    expect(button(m)).to.equal(null);

    await type(m, 'Thank you!');
    const sent = m.socket.sent.at(-1)!;
    expect(sent).to.include({ type: 'send', text: 'Thank you!' });
    await m.frames({
      ...userMessage('Thank you!', { id: 'u9', toOperator: true }),
      clientMessageId: sent.clientMessageId,
    });
    const mine = m.shadow.querySelector('.bubble.user[data-id="u9"]')!;
    expect(mine.getAttribute('part')).to.equal('bubble bubble-user');
    expect(mine.textContent!.trim()).to.equal('Thank you!');
    expect(m.el.view.turn).to.equal(null);
    expect(typing(m)).to.equal(null);
    expect(m.shadow.querySelector('[part="send-button"]'), 'the composer sends, no Stop').to.exist;
    expect(m.shadow.querySelector('[part="stop-button"]')).to.equal(null);
    expect(m.shadow.querySelector('textarea')!.value).to.equal('');
    expect(m.shadow.querySelector('[part="action-edit"]'), 'editing asks the model: not now').to.equal(null);

    await m.frames(operatorMessage('You are welcome.'));
    expect(m.shadow.querySelectorAll('.bubble.operator')).to.have.length(1);
    expect(typing(m)).to.equal(null);
  });

  it('a person’s reply during a running answer leaves the turn running', async () => {
    const m = await offered();
    const told: unknown[] = [];
    m.el.addEventListener('aalis-message', (e) => told.push(e.detail));
    await m.frames(userMessage('Hello?'), text('Let me '), operatorMessage('Ana here.'));
    expect(m.el.view.turn).not.to.equal(null);
    expect(m.shadow.querySelector('.bubble.streaming')!.textContent).to.contain('Let me');
    expect(m.shadow.querySelector('.bubble.operator')!.textContent).to.contain('Ana here.');
    expect(told).to.deep.equal([]);
    // The server stops it: its end is the turn's, as ever.
    await m.frames(answerFrame('Let me', { status: 'aborted' }));
    expect(told).to.have.length(1);
  });

  it('a person the site left unnamed is “Support”', async () => {
    const m = await offered();
    await m.frames(operatorMessage('Hello.', { author: undefined }), handoff('active'));
    expect(m.shadow.querySelector('.bubble.operator .author')!.textContent).to.equal('Support');
    expect(noticeText(m)).to.equal('You are talking with Support.');
  });

  it('back to the model: said until the visitor writes again; the button is back, and a question starts a turn', async () => {
    const m = await offered({ handoff: { state: 'active', operator: 'Ana', since: Date.now() } });
    await m.frames(handoff('off'));
    expect(noticeText(m)).to.equal('You are back with the assistant.');
    expect(notice(m)!.dataset.state).to.equal('off');
    expect(button(m)).to.exist;

    await m.frames(userMessage('And my invoice?'));
    expect(noticeText(m)).to.equal('');
    expect(typing(m), 'the model answers again').to.exist;
  });

  it('a reload in the middle of a handoff shows where it stands; the other language has its words', async () => {
    const m = await mount({ locale: 'zh-CN' });
    await m.frames(readyFrame({ handoffOffered: true }));
    expect(button(m)!.textContent!.trim()).to.equal('转人工客服');
    await m.frames(readyFrame({ handoffOffered: true, handoff: { state: 'waiting', since: Date.now() } }));
    expect(noticeText(m)).to.equal('工作人员很快会加入对话。');
    await m.frames(handoff('active', { operator: 'Ana' }));
    expect(noticeText(m)).to.equal('您正在与 Ana 对话。');
  });

  it('themed from the page: the operator bubble’s tokens and part', async () => {
    const style = document.createElement('style');
    style.textContent = `
      body { --aalis-bubble-operator-background: rgb(1, 2, 3); --aalis-bubble-operator-text: rgb(250, 251, 252); }
      aalis-chat::part(bubble-operator) { letter-spacing: 2px; }
      aalis-chat::part(handoff-notice) { text-decoration: underline; }`;
    document.head.append(style);
    try {
      const m = await offered();
      await m.frames(operatorMessage('Hi.'), handoff('active', { operator: 'Ana' }));
      const bubble = m.shadow.querySelector('.bubble.operator')!;
      expect(getComputedStyle(bubble).backgroundColor).to.equal('rgb(1, 2, 3)');
      expect(getComputedStyle(bubble).color).to.equal('rgb(250, 251, 252)');
      expect(getComputedStyle(bubble).letterSpacing).to.equal('2px');
      expect(getComputedStyle(notice(m)!).textDecorationLine).to.equal('underline');
    } finally {
      style.remove();
    }
  });
});
