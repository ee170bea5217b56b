/**
 * What a visitor sees when the server runs as several instances behind a load balancer
 * (PROTOCOL.md, sections 2 and 3): a tool call whose instance died may have completed
 * (status `unknown`), and a send refused because the shared state is unreachable
 * (`unavailable`) is given back.
 */
import { expect } from '@open-wc/testing';
import { SESSION, mount, toolStart, userMessage } from './harness.js';

const args = { to: 'ada@example.com', subject: 'Invoice' };
const unknownCall = {
  type: 'tool_call',
  callId: 'm1',
  index: 0,
  name: 'send_mail',
  status: 'unknown',
  startedAt: 1_000,
  endedAt: 13_000,
};
/** The message another instance ends the dead one's turn with (its calls without arguments). */
const interrupted = (parts: unknown[]) => ({
  id: 'a1',
  role: 'assistant',
  parts,
  createdAt: 1,
  status: 'error',
  error: { code: 'interrupted', message: 'the server running this answer stopped before it was finished' },
});
const started = toolStart('m1', 'send_mail', args);

const block = (root: ShadowRoot) =>
  root.querySelector<HTMLDetailsElement>('.tool-call-block[data-call-id="m1"]')!;
const words = (el: Element | null) => el!.textContent!.replace(/\s+/g, ' ').trim();

describe('a tool call of unknown outcome', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['en', 'send_mail may have completed', /done|failed|running/],
    ['zh-CN', 'send_mail 可能已完成', /完成 ·|失败|运行中/],
  ];
  for (const [locale, expected, notSaid] of cases) {
    it(`says it may have completed, neither done nor failed, without a duration (${locale})`, async () => {
      const { shadow } = await mount({
        locale,
        messages: [interrupted([{ ...unknownCall, arguments: args }])],
      });
      const b = block(shadow);
      expect(b.getAttribute('data-status')).to.equal('unknown');
      expect(b.getAttribute('part')).to.equal('tool-call-block');
      expect(words(b.querySelector('summary'))).to.equal(expected);
      expect(b.textContent).not.to.match(notSaid);
      // No result came back: opened, it shows the arguments and nothing more.
      b.open = true;
      expect(b.querySelectorAll('h6')).to.have.length(1);
      expect(b.textContent).to.contain('"to": "ada@example.com"');
    });
  }

  it('live: the running block turns unknown in place when another instance ends the turn', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage('Send the invoice'), started);
    expect(block(shadow).getAttribute('data-status')).to.equal('running');
    await frames({ type: 'message', sessionId: SESSION, message: interrupted([unknownCall]) });
    const b = block(shadow);
    expect(b.closest('.bubble[data-id="a1"]'), 'in the final bubble').to.exist;
    expect(words(b.querySelector('summary'))).to.equal('send_mail may have completed');
    // The message omits the arguments: the ones from `tool_execute` start are kept.
    expect(b.textContent).to.contain('"subject": "Invoice"');
    expect(shadow.querySelector('.bubble[data-id="a1"] .note')!.textContent!.trim()).to.equal(
      'The server stopped before this answer was finished.',
    );
  });

  for (const [theme, warning] of [
    ['light', 'rgb(173, 87, 0)'],
    ['dark', 'rgb(255, 160, 87)'],
  ]) {
    it(`has its own look, the warning colour, not a success's or a failure's (${theme})`, async () => {
      const failed = { ...unknownCall, callId: 'f1', status: 'error', result: 'no such mailbox' };
      const done = { ...unknownCall, callId: 'd1', status: 'done', result: 'sent' };
      const { shadow } = await mount({ theme, messages: [interrupted([unknownCall, failed, done])] });
      const colour = (callId: string) =>
        getComputedStyle(shadow.querySelector(`[data-call-id="${callId}"] .tool-status`)!).color;
      expect(colour('m1')).to.equal(warning);
      expect(colour('m1')).not.to.equal(colour('f1'));
      expect(colour('m1')).not.to.equal(colour('d1'));
      const style = getComputedStyle(block(shadow));
      expect(style.borderTopStyle).to.equal('dashed');
      expect(style.borderTopColor).to.equal(warning);
    });
  }

  it('opens from the keyboard like any tool block, and passes an axe check (light and dark)', async () => {
    for (const theme of ['light', 'dark']) {
      const { el, shadow } = await mount({
        theme,
        messages: [interrupted([{ ...unknownCall, arguments: args }])],
      });
      const summary = block(shadow).querySelector('summary')!;
      summary.focus();
      expect(shadow.activeElement).to.equal(summary);
      await expect(el).to.be.accessible();
      summary.click();
      await el.updateComplete;
      expect(block(shadow).open).to.equal(true);
      await expect(el).to.be.accessible();
    }
  });
});

describe('a send refused while the shared state is unreachable', () => {
  const cases: Array<[string, string]> = [
    ['en', 'The assistant cannot start an answer right now: send again in a moment. (error ID e42)'],
    ['zh-CN', '助手暂时无法开始回答：请稍后再发送。（错误 ID：e42）'],
  ];
  for (const [locale, expected] of cases) {
    it(`says to send again in a moment and gives the text back (${locale})`, async () => {
      const { el, shadow, socket, frames } = await mount({ locale });
      const textarea = shadow.querySelector('textarea')!;
      textarea.value = 'my carefully typed question';
      textarea.dispatchEvent(new Event('input'));
      textarea.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }));
      await el.updateComplete;
      expect(textarea.value).to.equal('');
      const clientMessageId = socket.sent.find((f) => f.type === 'send')!.clientMessageId;
      let code = '';
      el.addEventListener('aalis-error', (e) => (code = e.detail.code));
      await frames({
        type: 'error',
        code: 'unavailable',
        message: 'the server cannot start an answer right now: send again in a moment',
        errorId: 'e42',
        clientMessageId,
      });
      expect(shadow.querySelector('.notice')!.textContent).to.equal(expected);
      expect(textarea.value).to.equal('my carefully typed question');
      expect(code).to.equal('unavailable');
    });
  }
});
