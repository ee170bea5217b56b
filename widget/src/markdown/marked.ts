/**
 * The markdown part's own module (`aalis-chat-marked.js` in the script-tag build, named
 * after this file): marked, and the text that warms it up. Only lexer.ts imports it, and
 * lazily, so the warm-up text travels with marked instead of in the file a page waits for.
 */
export { Lexer } from 'marked';

/**
 * A text with every kind of block and span the renderer knows. Lexed once as soon as
 * marked is there, while the socket connects: the first text lexed pays for compiling
 * marked's regular expressions, and that text is a reloaded answer waiting to be painted.
 */
export const WARM_UP =
  '# H\n\nA paragraph, **strong**, _em_, ~~del~~, `code`, [link](https://a.example) <b>html</b>\\\n' +
  'next line https://b.example\n\n- item\n- [x] task\n\n1. one\n2. two\n\n> quote\n\n' +
  '```js\ncode\n```\n\n    indented\n\n| a | b |\n| --- | :-: |\n| 1 | 2 |\n\n---\n\nSetext\n===\n';
