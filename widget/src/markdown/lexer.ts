/**
 * marked, loaded apart from the script-tag file. It is more than a third of the widget's
 * weight, so the single file stays small and this arrives as its own file
 * (`aalis-chat-marked.js`, next to it); the socket waits for it a moment (chat-connection.ts).
 * Until it is there, text shows as plain text; the element renders again once it is
 * (`loadLexer`).
 */
import type { Token } from 'marked';

export type Lex = (text: string) => Token[];

let lex: Lex | undefined;
let loading: Promise<void> | undefined;

/**
 * A text with every kind of block and span the renderer knows. Lexed once as soon as
 * marked is there, while the socket connects: the first text lexed pays for compiling
 * marked's regular expressions, and that text is a reloaded answer waiting to be painted.
 */
const WARM_UP =
  '# H\n\nA paragraph, **strong**, _em_, ~~del~~, `code`, [link](https://a.example) <b>html</b>\\\n' +
  'next line https://b.example\n\n- item\n- [x] task\n\n1. one\n2. two\n\n> quote\n\n' +
  '```js\ncode\n```\n\n    indented\n\n| a | b |\n| --- | :-: |\n| 1 | 2 |\n\n---\n\nSetext\n===\n';

/** Starts loading marked, once; resolves when markdown can be rendered (rejects if it cannot). */
export function loadLexer(): Promise<void> {
  loading ??= import('marked').then(({ Lexer }) => {
    lex = (text) => Lexer.lex(text, { gfm: true, breaks: true });
    setTimeout(() => lex?.(WARM_UP));
  });
  return loading;
}

/** The lexer, once loaded. */
export const lexer = (): Lex | undefined => lex;
