/**
 * The words of an MCP App's frame and link question, in the languages the widget ships.
 * They live in the lazily loaded part, not in ../../i18n/strings.ts, so that the script-tag
 * file does not carry them for the many pages that never show an app. A host words another
 * language, or changes these, with `registerLocale(code, { apps: { … } })`.
 */
import type { AppWords } from '../../i18n/app-words.js';

const en: AppWords = {
  frameTitle: (name, server) => `${name} app from ${server}`,
  openLink: (host) => `Open ${host}?`,
  openLinkButton: 'Open',
};

const zh: AppWords = {
  frameTitle: (name, server) => `${server} 的 ${name} 应用`,
  openLink: (host) => `打开 ${host}？`,
  openLinkButton: '打开',
};

/** The words for a BCP 47 tag (Chinese for `zh*`, else English), with the host's own over them. */
export const appWordsFor = (tag: string, own?: Partial<AppWords>): AppWords => ({
  ...(tag.toLowerCase().startsWith('zh') ? zh : en),
  ...own,
});
