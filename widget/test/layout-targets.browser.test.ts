/**
 * Layout rough edges, measured in a real browser at a desktop (1280×800, the widget in the
 * demo's 520 px column) and a phone (390×844) viewport: every control is a target of at
 * least 24×24 CSS px (WCAG 2.5.8), and 44×44 under a coarse pointer; the text box grows with
 * its lines up to its maximum; a wide table scrolls inside its bubble; Enter saves an edit
 * as it sends from the composer; the panel's close button is a part.
 */
import { expect } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { SESSION, mount, readyFrame, text, until, userMessage, type Mounted } from './harness.js';

/** Shift+Enter, as a visitor presses it (sendKeys knows no chords). */
async function shiftEnter(): Promise<void> {
  await sendKeys({ down: 'Shift' });
  await sendKeys({ press: 'Enter' });
  await sendKeys({ up: 'Shift' });
}

const VIEWPORTS = [
  { name: 'desktop 1280×800', width: 1280, height: 800, inlineWidth: '520px' },
  { name: 'phone 390×844', width: 390, height: 844, inlineWidth: '100%' },
];

const INTERACTIVE =
  'button, textarea, input, select, summary, a[href], [role="button"], [tabindex]:not([tabindex="-1"])';

const stored = (id: string, role: 'user' | 'assistant', parts: object[], fields: object = {}) => ({
  id,
  role,
  parts,
  createdAt: 1,
  ...(role === 'assistant' ? { status: 'complete' } : {}),
  ...fields,
});
const words = (value: string) => [{ type: 'text', text: value }];
const answer = (message: object) => ({ type: 'message', sessionId: SESSION, message });

/** Every control the page can show at once: versions, actions, code, reasoning, a tool block. */
const HISTORY = [
  stored('u1', 'user', words('Which bulb?')),
  stored('a1', 'assistant', words('E27.')),
  stored('u2', 'user', words('Which bulb, dimmable?'), { replaces: 'u1' }),
  stored('a2', 'assistant', [
    { type: 'reasoning', text: 'The lamp takes E27.' },
    {
      type: 'tool_call',
      callId: 'c1',
      index: 0,
      name: 'search',
      arguments: { q: 'E27 dimmable' },
      status: 'done',
      startedAt: 1,
      endedAt: 2,
      result: 'found',
    },
    { type: 'text', text: 'A dimmable E27:\n\n```sh\norder E27-dim\n```' },
  ]),
];

const SIX_COLUMNS = [
  '| Provider | Model name | Context window | Input price | Output price | Tool calling |',
  '| --- | --- | --- | --- | --- | --- |',
  '| OpenAI | gpt-4o-mini-2024-07-18 | 128000 tokens | 0.15 per million | 0.60 per million | parallel |',
  '| Anthropic | claude-3-5-haiku-latest | 200000 tokens | 0.80 per million | 4.00 per million | parallel |',
].join('\n');

/** The visible controls smaller than `min` CSS px either way, as "what w×h". */
function undersized(shadow: ShadowRoot, min: number): string[] {
  return (
    [...shadow.querySelectorAll<HTMLElement>(INTERACTIVE)]
      .filter((e) => e.checkVisibility({ visibilityProperty: true }) && e.getClientRects().length > 0)
      // WCAG 2.5.8's inline exception: a link in a sentence is sized by the sentence's lines.
      .filter((e) => !(e.tagName === 'A' && getComputedStyle(e).display === 'inline'))
      .map((e) => ({ e, rect: e.getBoundingClientRect() }))
      .filter(({ rect }) => rect.width < min - 0.01 || rect.height < min - 0.01)
      .map(({ e, rect }) => `${name(e)} ${rect.width.toFixed(1)}×${rect.height.toFixed(1)}`)
  );
}

const name = (e: HTMLElement) =>
  [e.tagName.toLowerCase(), e.className && `.${String(e.className).trim().replace(/\s+/g, '.')}`]
    .concat(e.getAttribute('aria-label') ?? e.textContent!.trim().slice(0, 20))
    .join(' ');

/** What `ready` says when visitors may attach images (the attach button shows). */
const uploads = () => ({
  ticket: 't',
  expiresAt: Date.now() + 3_600_000,
  maxBytes: 1e5,
  maxCount: 2,
  types: ['image/png'],
});

/** Every view of the chat with controls in it, each measured: `check` runs in each. */
async function everyView(mounted: Mounted, check: (view: string) => void): Promise<void> {
  const { el, shadow, frames } = mounted;
  // A visitor the server knows (the conversations button), where images may be attached.
  await frames(readyFrame({ messages: HISTORY, anonymousKey: 'k', conversations: true, uploads: uploads() }));
  const details = [...shadow.querySelectorAll('details')];
  check('the transcript, blocks closed');
  for (const d of details) d.open = true;
  check('the transcript, blocks open');
  shadow.querySelector<HTMLButtonElement>('.action.up')!.click();
  await el.updateComplete;
  check('the comment form');
  shadow.querySelector<HTMLButtonElement>('.action.edit')!.click();
  await el.updateComplete;
  check('the edit form');
  await frames(userMessage('Weather?'), {
    type: 'tool_approval_request',
    sessionId: SESSION,
    callId: 'w1',
    index: 0,
    name: 'get_weather',
    arguments: { location: 'Paris' },
    policy: 'session',
    expiresAt: Date.now() + 60_000,
  });
  check('a turn waiting for an approval');
  shadow.querySelector<HTMLButtonElement>('.conversations-button')!.click();
  await frames({
    type: 'sessions',
    sessions: [{ id: SESSION, title: 'Bulbs', lastActivity: Date.now() }],
  });
  check('the conversation list');
  shadow.querySelector<HTMLButtonElement>('.action.rename')!.click();
  await el.updateComplete;
  check('renaming a conversation');
}

/** Mounts inline (at the viewport's width for the widget) or in launcher mode, opened. */
async function mountIn(mode: 'inline' | 'launcher', inlineWidth: string): Promise<Mounted> {
  const mounted = await mount({ mode });
  if (mode === 'inline') mounted.el.style.width = inlineWidth;
  else mounted.el.open();
  await mounted.el.updateComplete;
  return mounted;
}

/** The rules of the stylesheet's `(pointer: coarse)` blocks: what a touch screen gets. */
function coarseRules(shadow: ShadowRoot): CSSStyleRule[] {
  return shadow.adoptedStyleSheets
    .flatMap((sheet) => [...sheet.cssRules])
    .filter((rule): rule is CSSMediaRule => rule instanceof CSSMediaRule)
    .filter((rule) => /\(pointer:\s*coarse\)/.test(rule.conditionText))
    .flatMap((rule) => [...rule.cssRules] as CSSStyleRule[]);
}

afterEach(async () => {
  await setViewport({ width: 800, height: 600 });
});

for (const viewport of VIEWPORTS) {
  describe(`layout at ${viewport.name}`, () => {
    beforeEach(async () => {
      await setViewport({ width: viewport.width, height: viewport.height });
    });

    for (const mode of ['inline', 'launcher'] as const) {
      it(`every visible control is at least 24×24 CSS px (${mode})`, async () => {
        const mounted = await mountIn(mode, viewport.inlineWidth);
        const found: string[] = [];
        await everyView(mounted, (view) =>
          found.push(...undersized(mounted.shadow, 24).map((c) => `${view}: ${c}`)),
        );
        expect(found).to.deep.equal([]);
      });
    }

    it('under a coarse pointer every visible control is at least 44×44 CSS px', async () => {
      // Headless Chromium cannot be told its pointer is coarse from here (emulateMedia knows
      // colour scheme, reduced motion and print only): the stylesheet's own (pointer: coarse)
      // rules are applied as a touch screen would apply them, last, and the result measured.
      const mounted = await mountIn('launcher', viewport.inlineWidth);
      const rules = coarseRules(mounted.shadow);
      expect(rules, 'a (pointer: coarse) block').not.to.be.empty;
      expect(rules.some((r) => r.style.minHeight === '44px' && r.style.minWidth === '44px')).to.equal(true);
      const touch = new CSSStyleSheet();
      touch.replaceSync(rules.map((r) => r.cssText).join('\n'));
      mounted.shadow.adoptedStyleSheets = [...mounted.shadow.adoptedStyleSheets, touch];
      const found: string[] = [];
      await everyView(mounted, (view) =>
        found.push(...undersized(mounted.shadow, 44).map((c) => `${view}: ${c}`)),
      );
      expect(found).to.deep.equal([]);
    });

    it('the text box grows with its lines up to its maximum, then scrolls, and shrinks back once sent', async () => {
      const { shadow, socket } = await mountIn('launcher', viewport.inlineWidth);
      const box = shadow.querySelector('textarea')!;
      const height = () => box.getBoundingClientRect().height;
      const empty = height();
      box.focus();
      await sendKeys({ type: 'one' });
      expect(height(), 'one line').to.equal(empty);
      const heights = [empty];
      for (const line of ['two', 'three', 'four']) {
        await shiftEnter();
        await sendKeys({ type: line });
        heights.push(height());
        // Every line shows: nothing scrolls inside before the maximum.
        expect(box.scrollHeight, line).to.be.at.most(box.clientHeight);
      }
      for (let i = 1; i < heights.length; i++)
        expect(heights[i], `line ${i + 1}`).to.be.above(heights[i - 1]!);
      for (let i = 0; i < 30; i++) await shiftEnter();
      const max = parseFloat(getComputedStyle(box).maxHeight);
      expect(max, 'a maximum height').to.be.above(heights.at(-1)!);
      expect(height()).to.be.closeTo(max, 1);
      expect(box.scrollHeight, 'scrolls inside').to.be.above(box.clientHeight);
      await sendKeys({ type: 'more' });
      expect(height()).to.be.closeTo(max, 1);
      await sendKeys({ press: 'Enter' });
      await until(() => socket.sent.some((f) => f.type === 'send'));
      await until(() => height() === empty);
      expect(box.value).to.equal('');
    });

    it("a long placeholder (the launcher example's) shows whole: on one line in the launcher's panel", async () => {
      for (const mode of ['inline', 'launcher'] as const) {
        const { el, shadow, frames } = await mountIn(mode, viewport.inlineWidth);
        el.placeholder = 'Ask about a lamp or an order…';
        await frames(readyFrame({ uploads: uploads() }));
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const box = shadow.querySelector('textarea')!;
        expect(shadow.querySelector('.attach-button'), mode).to.exist;
        // Chromium counts a placeholder's lines in scrollHeight: more than the box shows are cut.
        expect(box.scrollHeight, `${mode}: placeholder cut`).to.be.at.most(box.clientHeight);
        // The send button's word is still its name, shown or not.
        expect(shadow.querySelector('.send')!.textContent!.trim(), mode).to.equal('Send');
        if (mode === 'inline') continue;
        const style = getComputedStyle(box);
        const context = document.createElement('canvas').getContext('2d')!;
        context.font = `${style.fontSize} ${style.fontFamily}`;
        const room = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        expect(context.measureText(box.placeholder).width, 'one line').to.be.at.most(room);
      }
    });

    it('a six-column table scrolls sideways inside its bubble: every column reachable, none cut', async () => {
      for (const mode of ['inline', 'launcher'] as const) {
        const { shadow, frames } = await mountIn(mode, viewport.inlineWidth);
        await frames(userMessage('Compare'), text(SIX_COLUMNS));
        const bubble = shadow.querySelector<HTMLElement>('.bubble.assistant')!;
        const headers = [...bubble.querySelectorAll('th')];
        expect(headers, mode).to.have.length(6);
        const wrap = headers[0]!.closest<HTMLElement>('.table-wrap')!;
        expect(wrap.scrollWidth, `${mode}: scrolls`).to.be.above(wrap.clientWidth);
        expect(getComputedStyle(wrap).overflowX, mode).to.equal('auto');
        // Reachable by keyboard, and named for it.
        await until(() => wrap.getAttribute('tabindex') === '0');
        expect(wrap.getAttribute('aria-label'), mode).to.be.a('string').and.not.empty;
        const scroller = shadow.querySelector<HTMLElement>('.transcript')!.getBoundingClientRect();
        expect(bubble.getBoundingClientRect().right, `${mode}: bubble inside`).to.be.at.most(scroller.right);
        expect(bubble.getBoundingClientRect().left, mode).to.be.at.least(scroller.left);
        // No column is cut: each header is whole, and the last comes into view by scrolling.
        for (const th of headers) expect(th.scrollWidth, th.textContent!).to.be.at.most(th.clientWidth);
        wrap.scrollLeft = wrap.scrollWidth;
        const last = headers.at(-1)!.getBoundingClientRect();
        const view = wrap.getBoundingClientRect();
        expect(last.right, `${mode}: last column in view`).to.be.at.most(view.right + 1);
        expect(last.left, mode).to.be.at.least(view.left - 1);
        // A table that fits is no stop for Tab.
        await frames(text('\n\n| a | b |\n| --- | --- |\n| 1 | 2 |'));
        const small = shadow.querySelectorAll<HTMLElement>('.table-wrap')[1]!;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        expect(small.hasAttribute('tabindex'), mode).to.equal(false);
        expect(small.hasAttribute('role'), mode).to.equal(false);
      }
    });
  });
}

describe('editing a sent question', () => {
  it('Enter saves the edit and Shift+Enter adds a line, as in the composer; Enter ending an IME composition does not', async () => {
    const { el, shadow, socket, frames } = await mount({
      messages: [stored('u1', 'user', words('Which bulb?')), stored('a1', 'assistant', words('E27.'))],
    });
    shadow.querySelector<HTMLButtonElement>('.action.edit')!.click();
    await el.updateComplete;
    const field = shadow.querySelector<HTMLTextAreaElement>('.edit-form textarea')!;
    field.focus();
    field.setSelectionRange(field.value.length, field.value.length);
    await shiftEnter();
    await sendKeys({ type: 'For a lamp.' });
    expect(field.value).to.equal('Which bulb?\nFor a lamp.');
    const edits = () => socket.sent.filter((f) => f.type === 'edit');
    for (const init of [{ isComposing: true }, { keyCode: 229 }] as KeyboardEventInit[])
      field.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true, ...init }),
      );
    expect(edits()).to.have.length(0);
    await sendKeys({ press: 'Enter' });
    expect(edits()).to.have.length(1);
    expect(edits()[0]).to.include({ messageId: 'u1', text: 'Which bulb?\nFor a lamp.' });
    await el.updateComplete;
    expect(shadow.querySelector('.edit-form')).to.equal(null);
    await frames(
      {
        type: 'user_message',
        sessionId: SESSION,
        message: stored('u2', 'user', words('Which bulb?\nFor a lamp.'), { replaces: 'u1' }),
      },
      answer(stored('a2', 'assistant', words('A warm E27.'))),
    );
    expect(shadow.querySelector('.bubble.user')!.textContent!.trim()).to.equal('Which bulb?\nFor a lamp.');
  });
});

describe("the launcher panel's close button", () => {
  it('is a part a page can style: ::part(close-button)', async () => {
    const style = document.createElement('style');
    style.textContent = 'aalis-chat::part(close-button) { background-color: rgb(1, 2, 3); }';
    document.head.append(style);
    try {
      const { el, shadow } = await mountIn('launcher', '100%');
      const close = shadow.querySelector<HTMLButtonElement>('.panel-close')!;
      expect(close.part.contains('close-button')).to.equal(true);
      expect(getComputedStyle(close).backgroundColor).to.equal('rgb(1, 2, 3)');
      close.click();
      await el.updateComplete;
      expect(el.isOpen).to.equal(false);
    } finally {
      style.remove();
    }
  });
});
