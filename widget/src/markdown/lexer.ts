/**
 * marked, loaded apart from the script-tag file. It is more than a third of the widget's
 * weight, so the single file stays small and this arrives as its own file
 * (`aalis-chat-marked.js`, next to it, made from marked.ts); the socket waits for it a
 * moment (chat-connection.ts). Until it is there, text shows as plain text; the element
 * renders again once it is (`loadLexer`).
 */
import type { Token } from 'marked';

export type Lex = (text: string) => Token[];

let lex: Lex | undefined;
let loading: Promise<void> | undefined;

/** Starts loading marked, once; resolves when markdown can be rendered (rejects if it cannot). */
export function loadLexer(): Promise<void> {
  loading ??= import('./marked.js').then(({ Lexer, WARM_UP }) => {
    lex = (text) => Lexer.lex(text, { gfm: true, breaks: true });
    // Lexed once while the socket connects: see WARM_UP.
    setTimeout(() => lex?.(WARM_UP));
  });
  return loading;
}

/** The lexer, once loaded. */
export const lexer = (): Lex | undefined => lex;
