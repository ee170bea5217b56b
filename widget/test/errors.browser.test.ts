/** Errors in the widget's own words, in its languages, with the id a visitor can quote. */
import { expect } from '@open-wc/testing';
import { ErrorCode } from '@aalis/protocol/client';
import { SESSION, announced, mount, text, userMessage } from './harness.js';

const alerts = (root: ShadowRoot) =>
  [...root.querySelectorAll('.error[role="alert"]')].map((e) => e.textContent!.replace(/\s+/g, ' ').trim());
const note = (root: ShadowRoot, id: string) =>
  root.querySelector(`.bubble[data-id="${id}"] .note`)?.textContent?.trim();
const turnError = (code: string, message: string, errorId?: string) => ({
  type: 'error',
  sessionId: SESSION,
  code,
  message,
  ...(errorId ? { errorId } : {}),
});
const assistant = (id: string, fields: Record<string, unknown>) => ({
  id,
  role: 'assistant',
  parts: [],
  createdAt: 1,
  ...fields,
});

describe('errors', () => {
  const upstream: Array<[string, string, string]> = [
    ['en', 'Error: The model service failed: try again later. (error ID e7f3a1)', 'Partial answer'],
    ['zh-CN', '错误: 模型服务出错：请稍后再试。（错误 ID：e7f3a1）', '部分回答'],
  ];
  for (const [locale, expected, partial] of upstream) {
    it(`a failed turn says why in the widget's words with the error id, once (${locale})`, async () => {
      const { frames, shadow, el } = await mount({ locale });
      let detail: unknown;
      el.addEventListener('aalis-error', (e) => (detail = e.detail));
      await frames(userMessage(), text(partial));
      await frames(turnError('upstream', 'the model provider failed', 'e7f3a1'));
      expect(alerts(shadow)).to.deep.equal([expected]);
      // The host gets the server's words and the id, e.g. to log them.
      expect(detail).to.deep.equal({
        code: 'upstream',
        message: 'the model provider failed',
        errorId: 'e7f3a1',
      });

      const error = { code: 'upstream', message: 'the model provider failed', errorId: 'e7f3a1' };
      await frames({
        type: 'message',
        sessionId: SESSION,
        message: assistant('a1', { parts: [{ type: 'text', text: partial }], status: 'error', error }),
      });
      // The bubble now carries the reason: the alert would only repeat it.
      const words = expected.replace(/^(Error|错误): /, '');
      expect(note(shadow, 'a1')).to.equal(words);
      expect(alerts(shadow)).to.deep.equal([]);
      expect(shadow.querySelector('.column')!.textContent!.split(words)).to.have.length(2);
      expect(announced(shadow)).to.contain(words);
    });
  }

  it('every error code of the protocol has its own words in English and in Chinese', async () => {
    const seen: Record<string, string[]> = {};
    for (const locale of ['en', 'zh-CN']) {
      const { frames, shadow } = await mount({ locale });
      await frames(userMessage());
      const codes = Object.values(ErrorCode);
      await frames(...codes.map((code) => turnError(code, `server words for ${code}`)));
      const shown = alerts(shadow);
      expect(shown).to.have.length(codes.length);
      for (const line of shown) expect(line).not.to.contain('server words');
      seen[locale] = shown;
    }
    const isChinese = /[\u4e00-\u9fff]/;
    for (const line of seen['zh-CN']!) expect(line).to.match(isChinese);
    for (const line of seen.en!) expect(line).not.to.match(isChinese);
  });

  it("a code the widget does not know shows the server's message", async () => {
    const { frames, shadow } = await mount();
    await frames(
      userMessage(),
      turnError('teapot', "I'm a teapot", 'id9'),
      // Not a key of every object: never the text of Object.prototype.constructor.
      turnError('constructor', 'Server words.'),
    );
    expect(alerts(shadow)).to.deep.equal(["Error: I'm a teapot (error ID id9)", 'Error: Server words.']);
  });

  it("errors for the connection alone show next to the composer, in the widget's words", async () => {
    const { frames, shadow } = await mount({ locale: 'zh-CN' });
    const notice = () => shadow.querySelector('.notice')!.textContent;
    await frames({ type: 'error', code: 'busy', message: 'a turn is still running' });
    expect(notice()).to.equal('回答仍在生成：请等待或停止。');
    await frames({ type: 'error', code: 'internal', message: 'internal error', errorId: '5c1d' });
    expect(notice()).to.equal('服务器出了点问题。（错误 ID：5c1d）');
    // A send refused during a restart stopped no answer: it says so, not "stopped this answer".
    await frames({ type: 'error', code: 'shutting_down', message: 'the server is restarting' });
    expect(notice()).to.equal('服务器正在重启：请稍后再发送。');
  });

  it('a stored message with an error says why after a reload, not only "Stopped." or "failed"', async () => {
    const messages = [
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Write a poem' }], createdAt: 0 },
      assistant('a1', {
        parts: [{ type: 'text', text: 'Roses are' }],
        status: 'aborted',
        error: { code: 'shutting_down', message: 'the server is restarting; this turn was stopped' },
      }),
      assistant('a2', {
        parts: [{ type: 'text', text: 'Done.' }],
        status: 'error',
        error: { code: 'storage', message: 'storing the answer failed', errorId: 'ab12cd' },
      }),
      assistant('a3', { status: 'error', error: { code: 'interrupted', message: 'interrupted' } }),
      assistant('a4', {
        status: 'error',
        error: { code: 'brand_new', message: 'Words from a newer server.' },
      }),
      // Without a reason (an older server): the status alone speaks, as before.
      assistant('a5', { parts: [{ type: 'text', text: 'Half' }], status: 'aborted' }),
    ];
    const { shadow } = await mount({ messages });
    expect(note(shadow, 'a1')).to.equal('The server restarted and stopped this answer.');
    expect(note(shadow, 'a2')).to.equal('The server could not save this message. (error ID ab12cd)');
    expect(note(shadow, 'a3')).to.equal('The server stopped before this answer was finished.');
    expect(note(shadow, 'a4')).to.equal('Words from a newer server.');
    expect(note(shadow, 'a5')).to.equal('Stopped.');
    expect(shadow.querySelector('[data-id="a1"]')!.textContent).to.contain('Roses are');

    const zh = await mount({ locale: 'zh-CN', messages });
    expect(note(zh.shadow, 'a1')).to.equal('服务器已重启，这条回答被中止。');
    expect(note(zh.shadow, 'a2')).to.equal('服务器无法保存这条消息。（错误 ID：ab12cd）');
  });
});
