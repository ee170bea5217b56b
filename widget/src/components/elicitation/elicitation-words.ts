/**
 * The words of an elicitation's form and page, in the languages the widget ships. They
 * live in the lazily loaded part, not in ../../i18n/strings.ts, so that the script-tag file
 * does not carry them for the many pages that never see a form. A host words another
 * language, or changes these, with `registerLocale(code, { elicitation: { … } })`.
 */
import type { ElicitationWords } from '../../i18n/elicitation-words.js';

export type { ElicitationWords };

const en: ElicitationWords = {
  submit: 'Submit',
  decline: 'Decline',
  open: 'Open',
  required: 'required',
  noChoice: '—',
  waiting: (host) => `Waiting for you to finish on ${host}…`,
  done: 'Done',
  cannotOpen: 'This address cannot be opened from the chat.',
  missing: 'Fill in this field.',
  tooShort: (n) => `At least ${n} characters.`,
  tooLong: (n) => `At most ${n} characters.`,
  notNumber: 'Enter a number.',
  notInteger: 'Enter a whole number.',
  tooSmall: (n) => `At least ${n}.`,
  tooBig: (n) => `At most ${n}.`,
  email: 'Enter an email address, like name@example.com.',
  url: 'Enter a web address, like https://example.com.',
  date: 'Enter a valid date.',
  notOption: 'Choose one of the options.',
  tooFew: (n) => `Choose at least ${n}.`,
  tooMany: (n) => `Choose at most ${n}.`,
};

const zh: ElicitationWords = {
  submit: '提交',
  decline: '拒绝',
  open: '打开',
  required: '必填',
  noChoice: '—',
  waiting: (host) => `等待您在 ${host} 上完成…`,
  done: '已完成',
  cannotOpen: '无法从聊天中打开此地址。',
  missing: '请填写此项。',
  tooShort: (n) => `至少 ${n} 个字符。`,
  tooLong: (n) => `最多 ${n} 个字符。`,
  notNumber: '请输入数字。',
  notInteger: '请输入整数。',
  tooSmall: (n) => `不能小于 ${n}。`,
  tooBig: (n) => `不能大于 ${n}。`,
  email: '请输入电子邮件地址，例如 name@example.com。',
  url: '请输入网址，例如 https://example.com。',
  date: '请输入有效日期。',
  notOption: '请从选项中选择。',
  tooFew: (n) => `至少选择 ${n} 项。`,
  tooMany: (n) => `最多选择 ${n} 项。`,
};

/** The words for a BCP 47 tag (Chinese for `zh*`, else English), with the host's own over them. */
export const wordsFor = (tag: string, own?: Partial<ElicitationWords>): ElicitationWords => ({
  ...(tag.toLowerCase().startsWith('zh') ? zh : en),
  ...own,
});
