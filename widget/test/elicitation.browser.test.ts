/**
 * An MCP server asks the visitor for input during a tool call (PROTOCOL.md, `elicitation`,
 * `elicitation_answer`, `elicitation_settled`, `elicitation_complete`): a form, or a page
 * to visit, in the card of the call that asked.
 */
import { expect } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import {
  SESSION,
  announced,
  mount,
  readyFrame,
  toolExecute,
  toolStart,
  until,
  userMessage,
} from './harness.js';

const MINUTE = 60_000;

/** Every kind of field the MCP spec allows, in the order a visitor reads them. */
const FORM = {
  type: 'object',
  properties: {
    name: {
      type: 'string',
      title: 'Full name',
      description: 'As on your passport',
      minLength: 2,
      maxLength: 40,
    },
    email: { type: 'string', format: 'email', title: 'Email' },
    site: { type: 'string', format: 'uri' },
    birthday: { type: 'string', format: 'date', title: 'Birthday' },
    meeting: { type: 'string', format: 'date-time', title: 'Meeting' },
    age: { type: 'integer', title: 'Age', minimum: 18, maximum: 120 },
    score: { type: 'number', title: 'Score', default: 2.5 },
    agree: { type: 'boolean', title: 'I agree', description: 'To the terms' },
    color: { type: 'string', title: 'Colour', enum: ['red', 'green'], enumNames: ['Red', 'Green'] },
    hero: {
      type: 'string',
      title: 'Hero',
      oneOf: [
        { const: 'h1', title: 'Superman' },
        { const: 'h2', title: 'Wonder Woman' },
      ],
      default: 'h2',
    },
    tools: {
      type: 'array',
      title: 'Instruments',
      minItems: 1,
      maxItems: 2,
      items: { type: 'string', enum: ['Guitar', 'Piano', 'Drums'] },
    },
    fish: {
      type: 'array',
      title: 'Fish',
      items: {
        anyOf: [
          { const: 'f1', title: 'Tuna' },
          { const: 'f2', title: 'Salmon' },
        ],
      },
    },
  },
  required: ['name', 'email', 'age', 'color', 'tools'],
};

const request = (fields: object = {}) => ({
  elicitationId: 'e1',
  callId: 'c1',
  serverName: 'everything',
  mode: 'form',
  message: 'Tell us about you.',
  requestedSchema: FORM,
  expiresAt: Date.now() + 9.5 * MINUTE,
  ...fields,
});
const asked = (fields: object = {}) => ({ type: 'elicitation', sessionId: SESSION, ...request(fields) });
const settled = (action: string, elicitationId = 'e1') => ({
  type: 'elicitation_settled',
  sessionId: SESSION,
  elicitationId,
  action,
});
const page = (url = 'https://accounts.example.com/oauth/authorize?client=aalis&state=xyz') =>
  asked({ mode: 'url', requestedSchema: undefined, url, message: 'Sign in to continue.' });

const answers = (sent: Array<Record<string, unknown>>) => sent.filter((f) => f.type === 'elicitation_answer');
const words = (el: Element | null | undefined) => el!.textContent!.replace(/\s+/g, ' ').trim();

type ElicitationElement = HTMLElement & {
  updateComplete: Promise<boolean>;
  elicitation?: { elicitationId: string };
};

/** The request's element once its part has loaded and rendered, and its shadow root. */
async function shown(shadow: ShadowRoot, id = 'e1'): Promise<{ host: ElicitationElement; root: ShadowRoot }> {
  const find = () =>
    [...shadow.querySelectorAll<ElicitationElement>('aalis-elicitation')].find(
      (e) => e.elicitation?.elicitationId === id,
    );
  await until(() => !!find()?.shadowRoot?.querySelector('.card'));
  const host = find()!;
  await host.updateComplete;
  return { host, root: host.shadowRoot! };
}

/** The element's next render, after the chat's. */
async function rendered(el: { updateComplete: Promise<boolean> }, host: ElicitationElement): Promise<void> {
  await el.updateComplete;
  await host.updateComplete;
}

const control = <T extends HTMLElement = HTMLInputElement>(root: ShadowRoot, id: string) =>
  root.getElementById(id) as T;
const button = (root: ShadowRoot, part: string) => root.querySelector<HTMLButtonElement>(`[part="${part}"]`);

/** Types into a box as a visitor does: focus, keys, then leaving it (its `change`). */
async function type(root: ShadowRoot, id: string, text: string): Promise<void> {
  const box = control(root, id);
  box.focus();
  box.select?.();
  await sendKeys({ type: text });
  box.dispatchEvent(new Event('change', { bubbles: true }));
}

async function fillValid(root: ShadowRoot): Promise<void> {
  await type(root, 'f0', 'Ada Lovelace');
  await type(root, 'f1', 'ada@example.com');
  control(root, 'f3').value = '1815-12-10';
  control(root, 'f4').value = '2025-03-01T09:30';
  await type(root, 'f5', '36');
  control(root, 'f7').click();
  control<HTMLSelectElement>(root, 'f8').value = 'green';
  control(root, 'f10-0').click();
  control(root, 'f10-2').click();
}

/** A running call c1 whose MCP server asks (`fields` change the request). */
async function mountAsked(fields: object = {}, options: { locale?: string } = {}) {
  const mounted = await mount(options);
  await mounted.frames(userMessage(), toolStart('c1', 'trigger-elicitation-request'), asked(fields));
  return { ...mounted, ...(await shown(mounted.shadow)) };
}

describe('elicitation forms', () => {
  it("show inside the asking call's card, open, with who asks and the server's words", async () => {
    const { shadow, host, root } = await mountAsked();
    const block = shadow.querySelector<HTMLDetailsElement>('.tool-call-block[data-call-id="c1"]')!;
    expect(block.contains(host), "in the call's card").to.equal(true);
    expect(block.open, 'open without a click').to.equal(true);
    // Waiting on the visitor: a screen reader must let them reach the form.
    expect(shadow.querySelector('.bubble.streaming')!.getAttribute('aria-busy')).to.equal('false');
    expect(host.getAttribute('part')).to.equal('elicitation');
    const card = root.querySelector('.card')!;
    expect(card.getAttribute('role')).to.equal('group');
    expect(words(root.getElementById(card.getAttribute('aria-labelledby')!))).to.equal('everything asks:');
    expect(words(root.querySelector('.message'))).to.equal('Tell us about you.');
    expect(words(root.querySelector('.expires'))).to.equal('Expires in 9 min');
    // Stands out as an approval card does: the warning colour (light theme default).
    expect(getComputedStyle(host).borderTopColor).to.equal('rgb(173, 87, 0)');
  });

  it('has a labelled control for every kind of field, in order, with required marks and descriptions', async () => {
    const { root } = await mountAsked();
    const label = (id: string) => words(root.querySelector(`label[for="${id}"]`));
    const input = (id: string) => control(root, id);
    expect([0, 1, 2, 3, 4, 5, 6].map((i) => [label(`f${i}`), input(`f${i}`).type])).to.deep.equal([
      ['Full name*', 'text'],
      ['Email*', 'email'],
      ['site', 'url'],
      ['Birthday', 'date'],
      ['Meeting', 'datetime-local'],
      ['Age*', 'number'],
      ['Score', 'number'],
    ]);
    expect(input('f0').required).to.equal(true);
    expect(input('f0').minLength).to.equal(2);
    expect(input('f0').maxLength).to.equal(40);
    expect(input('f2').required).to.equal(false);
    expect(words(root.getElementById(input('f0').getAttribute('aria-describedby')!))).to.equal(
      'As on your passport',
    );
    expect([input('f5').step, input('f5').min, input('f5').max]).to.deep.equal(['1', '18', '120']);
    expect(input('f6').value, "the schema's default").to.equal('2.5');
    expect(input('f0').value, 'nothing else is filled in').to.equal('');
    // A checkbox, its description tied to it.
    expect([label('f7'), input('f7').type, input('f7').checked]).to.deep.equal([
      'I agree',
      'checkbox',
      false,
    ]);
    expect(words(root.getElementById(input('f7').getAttribute('aria-describedby')!))).to.equal(
      'To the terms',
    );
    // One of a list: enum with its legacy names, oneOf with titles (its default chosen).
    const colour = control<HTMLSelectElement>(root, 'f8');
    expect([label('f8'), colour.required]).to.deep.equal(['Colour*', true]);
    expect([...colour.options].map((o) => [o.value, o.text])).to.deep.equal([
      ['', '—'],
      ['red', 'Red'],
      ['green', 'Green'],
    ]);
    expect(colour.value).to.equal('');
    const hero = control<HTMLSelectElement>(root, 'f9');
    expect([...hero.options].map((o) => o.text)).to.deep.equal(['—', 'Superman', 'Wonder Woman']);
    expect(hero.value).to.equal('h2');
    // Any of a list: a fieldset of checkboxes, its legend the field's name.
    const groups = [...root.querySelectorAll('fieldset')];
    expect(groups.map((g) => words(g.querySelector('legend')))).to.deep.equal([
      'Instruments* required',
      'Fish',
    ]);
    expect(groups.map((g) => [...g.querySelectorAll('label')].map((l) => words(l)))).to.deep.equal([
      ['Guitar', 'Piano', 'Drums'],
      ['Tuna', 'Salmon'],
    ]);
    expect(root.querySelectorAll('.mark').length, 'five required fields, five marks').to.equal(5);
    expect(root.querySelector('form')!.getAttribute('part')).to.equal('elicitation-form');
    expect(words(button(root, 'elicitation-submit'))).to.equal('Submit');
    expect(words(button(root, 'elicitation-decline'))).to.equal('Decline');
  });

  it('an invalid answer is said at each field, the focus goes to the first, and nothing is sent', async () => {
    const { root, socket, el, host } = await mountAsked();
    await type(root, 'f1', 'ada@example');
    await type(root, 'f5', '12');
    control(root, 'f10-0').click();
    control(root, 'f10-1').click();
    control(root, 'f10-2').click();
    button(root, 'elicitation-submit')!.click();
    await rendered(el, host);
    expect(answers(socket.sent)).to.have.length(0);
    const problem = (id: string) => {
      const box = root.getElementById(id)!;
      expect(box.getAttribute('aria-invalid'), id).to.equal('true');
      const described = box.getAttribute('aria-describedby')!.split(' ');
      return words(root.getElementById(described.find((d) => d.endsWith('-problem'))!));
    };
    expect(problem('f0')).to.equal('Fill in this field.');
    expect(problem('f1')).to.equal('Enter an email address, like name@example.com.');
    expect(problem('f5')).to.equal('At least 18.');
    expect(problem('f8')).to.equal('Fill in this field.');
    expect(problem('f10')).to.equal('Choose at most 2.');
    expect(root.getElementById('f3')!.hasAttribute('aria-invalid'), 'an empty optional field').to.equal(
      false,
    );
    expect(root.activeElement?.id, 'the first field to fix has the focus').to.equal('f0');
    // Fixing a field takes its message away.
    await type(root, 'f0', 'Ada');
    await rendered(el, host);
    expect(root.getElementById('f0')!.hasAttribute('aria-invalid')).to.equal(false);
    expect(root.getElementById('f0-problem')).to.equal(null);
  });

  it('a valid answer goes typed (numbers, booleans, lists), empty optional fields left out; Enter submits', async () => {
    const { root, socket, el, host } = await mountAsked();
    await fillValid(root);
    control(root, 'f0').focus();
    await sendKeys({ press: 'Enter' });
    await rendered(el, host);
    expect(answers(socket.sent)).to.deep.equal([
      {
        type: 'elicitation_answer',
        elicitationId: 'e1',
        action: 'accept',
        content: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          birthday: '1815-12-10',
          // The box's local time, as RFC 3339 (UTC).
          meeting: new Date('2025-03-01T09:30').toISOString(),
          age: 36,
          score: 2.5,
          agree: true,
          color: 'green',
          hero: 'h2',
          tools: ['Guitar', 'Drums'],
        },
      },
    ]);
    // Sent once: the buttons wait for the outcome, Enter and clicks do nothing.
    for (const part of ['elicitation-submit', 'elicitation-decline']) {
      expect(button(root, part)!.disabled, part).to.equal(true);
      expect(button(root, part)!.getAttribute('aria-disabled'), part).to.equal('true');
    }
    button(root, 'elicitation-submit')!.click();
    await sendKeys({ press: 'Enter' });
    expect(answers(socket.sent)).to.have.length(1);
    // Settled: the form goes, and the call's card is the tool's record again.
    await el.updateComplete;
    socket.receive(settled('accept'));
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('aalis-elicitation')).to.equal(null);
    expect(el.shadowRoot!.querySelector('.tool-call-block[data-call-id="c1"]')).to.exist;
  });

  it('Decline sends decline, the focus goes to the composer, and the form goes when it is settled', async () => {
    const { root, socket, frames, shadow } = await mountAsked();
    button(root, 'elicitation-decline')!.focus();
    button(root, 'elicitation-decline')!.click();
    expect(answers(socket.sent)).to.deep.equal([
      { type: 'elicitation_answer', elicitationId: 'e1', action: 'decline' },
    ]);
    // Its button is disabled, then goes with the form: the focus must not fall to the page.
    expect(shadow.activeElement).to.equal(shadow.querySelector('textarea'));
    await frames(settled('decline'));
    expect(shadow.querySelector('aalis-elicitation')).to.equal(null);
  });

  it('the server refuses an answer: its words show at the form, and it may be sent again', async () => {
    const { root, socket, el, host, frames, shadow } = await mountAsked();
    const errors: string[] = [];
    el.addEventListener('aalis-error', (e) => errors.push(e.detail.code));
    await fillValid(root);
    button(root, 'elicitation-submit')!.click();
    await rendered(el, host);
    expect(button(root, 'elicitation-submit')!.disabled).to.equal(true);
    await frames({
      type: 'error',
      sessionId: SESSION,
      code: 'invalid_answer',
      message: 'age: must be at most 30',
      elicitationId: 'e1',
    });
    await host.updateComplete;
    expect(words(root.querySelector('[role="alert"]'))).to.equal('age: must be at most 30');
    expect(button(root, 'elicitation-submit')!.disabled).to.equal(false);
    expect(errors).to.deep.equal(['invalid_answer']);
    // Said at the form only: not in the transcript's errors, nor under the text box.
    expect(shadow.querySelector('[role="alert"]')).to.equal(null);
    expect(shadow.querySelector('.notice')!.textContent!.trim()).to.equal('');
    await type(root, 'f5', '30');
    button(root, 'elicitation-submit')!.click();
    expect(answers(socket.sent).map((a) => (a.content as { age: number }).age)).to.deep.equal([36, 30]);
    await rendered(el, host);
    expect(root.querySelector('[role="alert"]'), 'the old words go with the new answer').to.equal(null);
  });

  it('a request answered elsewhere (not_pending) says so in the chat’s words, and stays disabled', async () => {
    const { root, el, host, frames } = await mountAsked();
    button(root, 'elicitation-decline')!.click();
    await frames({
      type: 'error',
      sessionId: SESSION,
      code: 'not_pending',
      message: 'not pending',
      elicitationId: 'e1',
    });
    await rendered(el, host);
    expect(words(root.querySelector('[role="alert"]'))).to.equal('This request is no longer open.');
    expect(button(root, 'elicitation-decline')!.disabled).to.equal(true);
  });

  it('a reload: stream_resume with elicitations shows the form again in a new element, and events it', async () => {
    const serverNow = Date.now() + 3 * 3_600_000;
    const { frames, shadow, el } = await mount({ serverTime: serverNow });
    const seen: unknown[] = [];
    el.addEventListener('aalis-elicitation', (e) => seen.push(e.detail));
    await frames({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: serverNow,
      parts: [
        {
          type: 'tool_call',
          callId: 'c1',
          index: 0,
          name: 'trigger-elicitation-request',
          arguments: {},
          status: 'running',
          startedAt: serverNow - 5_000,
        },
      ],
      toolCallsProgress: [],
      elicitations: [request({ expiresAt: serverNow + 4.5 * MINUTE })],
    });
    const { root } = await shown(shadow);
    expect(words(root.querySelector('.who'))).to.equal('everything asks:');
    expect(words(root.querySelector('.expires')), 'on the server clock').to.equal('Expires in 4 min');
    expect(root.querySelectorAll('input, select').length).to.be.greaterThan(10);
    expect(seen).to.deep.equal([
      {
        elicitationId: 'e1',
        callId: 'c1',
        serverName: 'everything',
        mode: 'form',
        message: 'Tell us about you.',
      },
    ]);
    expect(announced(shadow)).to.equal('everything asks: Tell us about you.');
    // A reconnect brings the same request again: no second event.
    await frames(readyFrame(), {
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: serverNow,
      parts: [],
      toolCallsProgress: [],
      elicitations: [request()],
    });
    expect(seen).to.have.length(1);
  });

  it("the call's end takes its forms away", async () => {
    const { frames, shadow } = await mountAsked();
    await frames(toolExecute('end', 'c1', 'trigger-elicitation-request', { result: 'cancelled' }));
    expect(shadow.querySelector('aalis-elicitation')).to.equal(null);
  });

  it('answerElicitation() answers from script, once, and refuses what is not open', async () => {
    const { el, socket } = await mountAsked();
    expect(el.answerElicitation('nope', 'decline')).to.equal(false);
    expect(el.answerElicitation('e1', 'cancel')).to.equal(true);
    expect(el.answerElicitation('e1', 'decline')).to.equal(false);
    expect(answers(socket.sent)).to.deep.equal([
      { type: 'elicitation_answer', elicitationId: 'e1', action: 'cancel' },
    ]);
  });

  it('a page styles the request through its parts', async () => {
    const style = document.createElement('style');
    style.textContent = `aalis-chat::part(elicitation) { border-top-color: rgb(1, 2, 3); }
      aalis-chat::part(elicitation-submit) { color: rgb(4, 5, 6); }
      aalis-chat::part(elicitation-form) { gap: 17px; }`;
    document.head.append(style);
    try {
      const { host, root } = await mountAsked();
      expect(getComputedStyle(host).borderTopColor).to.equal('rgb(1, 2, 3)');
      expect(getComputedStyle(button(root, 'elicitation-submit')!).color).to.equal('rgb(4, 5, 6)');
      expect(getComputedStyle(root.querySelector('form')!).rowGap).to.equal('17px');
    } finally {
      style.remove();
    }
  });

  it('speaks the chat’s language', async () => {
    const { root } = await mountAsked({}, { locale: 'zh-CN' });
    expect(words(root.querySelector('.who'))).to.equal('everything 询问：');
    expect(words(button(root, 'elicitation-submit'))).to.equal('提交');
  });
});

describe('elicitation pages (url mode)', () => {
  let opened: unknown[][];
  let realOpen: typeof window.open;
  beforeEach(() => {
    // The browser's window.open, recorded instead of opening a tab.
    opened = [];
    realOpen = window.open;
    window.open = (...args: unknown[]) => {
      opened.push(args);
      return null;
    };
  });
  afterEach(() => (window.open = realOpen));

  async function mountPage(url?: string) {
    const mounted = await mount();
    await mounted.frames(userMessage(), toolStart('c1', 'trigger-url-elicitation'), page(url));
    return { ...mounted, ...(await shown(mounted.shadow)) };
  }

  it('show the host in bold and the whole address, and open a window only on the click', async () => {
    const url = 'https://accounts.example.com/oauth/authorize?client=aalis&state=xyz';
    const { root, socket, frames, el, host } = await mountPage(url);
    expect(words(root.querySelector('strong.host'))).to.equal('accounts.example.com');
    expect(words(root.querySelector('.url'))).to.equal(url);
    expect(words(root.querySelector('.message'))).to.equal('Sign in to continue.');
    expect(opened, 'never by itself').to.deep.equal([]);
    const open = button(root, 'elicitation-open')!;
    expect(words(open)).to.equal('Open');
    open.click();
    expect(opened).to.deep.equal([[url, '_blank', 'noopener,noreferrer']]);
    expect(answers(socket.sent)).to.deep.equal([
      { type: 'elicitation_answer', elicitationId: 'e1', action: 'accept' },
    ]);
    await frames(settled('accept'));
    await rendered(el, host);
    expect(words(root.querySelector('.status'))).to.equal(
      'Waiting for you to finish on accounts.example.com…',
    );
    expect(button(root, 'elicitation-decline'), 'answered: no Decline').to.equal(null);
    // Open again (a closed tab) opens it, and sends nothing.
    button(root, 'elicitation-open')!.click();
    expect(opened).to.have.length(2);
    expect(answers(socket.sent)).to.have.length(1);
    await frames({ type: 'elicitation_complete', sessionId: SESSION, elicitationId: 'e1' });
    await rendered(el, host);
    expect(words(root.querySelector('.status'))).to.equal('Done');
    expect(button(root, 'elicitation-open')).to.equal(null);
  });

  it('the host is the real one: a user name before it does not pass for it', async () => {
    const { root } = await mountPage('https://accounts.example.com@evil.example.net/login');
    expect(words(root.querySelector('strong.host'))).to.equal('evil.example.net');
  });

  it('an address that is not http or https is shown, never opened; Decline still answers', async () => {
    const { root, socket } = await mountPage('javascript:alert(1)');
    expect(words(root.querySelector('.url'))).to.equal('javascript:alert(1)');
    expect(root.querySelector('strong.host')).to.equal(null);
    expect(button(root, 'elicitation-open')).to.equal(null);
    button(root, 'elicitation-decline')!.click();
    expect(opened).to.deep.equal([]);
    expect(answers(socket.sent)).to.deep.equal([
      { type: 'elicitation_answer', elicitationId: 'e1', action: 'decline' },
    ]);
  });
});
