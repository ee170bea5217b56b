/**
 * A send refused for a budget (`quota_exceeded`, `overloaded`): the widget says, in the
 * visitor's language, what ran out and when it comes back, and gives the text back.
 */
import { expect } from '@open-wc/testing';
import { mount } from './harness.js';

const textarea = (shadow: ShadowRoot) => shadow.querySelector('textarea')!;
const notice = (shadow: ShadowRoot) => shadow.querySelector('.notice')!.textContent;

/** Types and sends a message; returns the `clientMessageId` it went with. */
async function send(mounted: Awaited<ReturnType<typeof mount>>, words: string): Promise<string> {
  const { shadow, socket, el } = mounted;
  textarea(shadow).value = words;
  textarea(shadow).dispatchEvent(new Event('input'));
  textarea(shadow).dispatchEvent(
    new KeyboardEvent('keydown', { key: 'Enter', bubbles: true, cancelable: true }),
  );
  await el.updateComplete;
  expect(textarea(shadow).value).to.equal('');
  return socket.sent.filter((f) => f.type === 'send').at(-1)!.clientMessageId as string;
}

const refused = (clientMessageId: string, fields: Record<string, unknown>) => ({
  type: 'error',
  message: 'server words',
  clientMessageId,
  ...fields,
});

const cases: Array<[locale: string, fields: Record<string, unknown>, words: string]> = [
  [
    'en',
    { code: 'quota_exceeded', limit: 'visitor_turns', retryInMs: 23 * 60_000 - 500 },
    "You have reached this chat's limit of messages per hour. Try again in 23 min.",
  ],
  [
    'zh-CN',
    { code: 'quota_exceeded', limit: 'visitor_turns', retryInMs: 23 * 60_000 },
    '您已达到本聊天每小时的消息上限。（23 分钟后再试）',
  ],
  [
    'en',
    { code: 'quota_exceeded', limit: 'visitor_tokens', retryInMs: (5 * 60 + 12) * 60_000 },
    "You have reached this chat's daily limit for answers. Try again in 5 h 12 min.",
  ],
  [
    'zh-CN',
    { code: 'quota_exceeded', limit: 'visitor_tokens', retryInMs: 2 * 3_600_000 },
    '您已达到本聊天今天的回答上限。（2 小时后再试）',
  ],
  [
    'en',
    { code: 'overloaded', limit: 'server_tokens', retryInMs: 45_000 },
    'This chat has used all its answers for today. Try again in 45 s.',
  ],
  [
    'zh-CN',
    { code: 'overloaded', limit: 'server_tokens', retryInMs: 90 * 60_000 },
    '本聊天今天的回答额度已用完。（1 小时 30 分钟后再试）',
  ],
  [
    'en',
    { code: 'overloaded', limit: 'concurrent_turns' },
    'The assistant is answering too many people right now: try again in a moment.',
  ],
  ['zh-CN', { code: 'overloaded', limit: 'concurrent_turns' }, '助手正在同时回答太多人：请稍后再试。'],
  // A limit this widget does not know: the code's own words.
  [
    'en',
    { code: 'quota_exceeded', limit: 'visitor_images', retryInMs: 60_000 },
    "You have reached this chat's limit. Try again in 1 min.",
  ],
  ['zh-CN', { code: 'overloaded' }, '助手现在太忙了。'],
];

describe('budgets', () => {
  for (const [locale, fields, words] of cases) {
    it(`${String(fields.code)} ${String(fields.limit ?? '')} says what ran out and when it comes back, and gives the text back (${locale})`, async () => {
      const mounted = await mount({ locale });
      const id = await send(mounted, 'my carefully typed question');
      let code = '';
      mounted.el.addEventListener('aalis-error', (e) => (code = e.detail.code));
      await mounted.frames(refused(id, fields));
      expect(notice(mounted.shadow)).to.equal(words);
      expect(textarea(mounted.shadow).value).to.equal('my carefully typed question');
      expect(code).to.equal(fields.code);
    });
  }

  it('nothing newly typed is overwritten by the refused text', async () => {
    const mounted = await mount();
    const id = await send(mounted, 'first');
    textarea(mounted.shadow).value = 'second thoughts';
    textarea(mounted.shadow).dispatchEvent(new Event('input'));
    await mounted.frames(refused(id, { code: 'quota_exceeded', limit: 'visitor_turns', retryInMs: 60_000 }));
    expect(textarea(mounted.shadow).value).to.equal('second thoughts');
    expect(notice(mounted.shadow)).to.contain('messages per hour');
  });
});
