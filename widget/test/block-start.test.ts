/**
 * `blockStartBefore`: a long text renders its end first by lexing only the text after the
 * cut, so the text after the cut must lex alone to exactly the blocks it is within the
 * whole text. Checked with marked itself (the widget's own options) on generated answers
 * made of the blocks a model writes, blank lines inside code fences and lists included.
 */
import fc from 'fast-check';
import { Lexer } from 'marked';
import { describe, expect, it } from 'vitest';
import { blockStartBefore } from '../src/markdown/block-start.js';

const lex = (text: string) => Lexer.lex(text, { gfm: true, breaks: true });

/** The top-level blocks of `text` from `from` on, as [type, raw]; undefined when no block starts there. */
function blocksFrom(text: string, from: number): Array<[string, string]> | undefined {
  let start = 0;
  const tokens = lex(text);
  const index = tokens.findIndex((token) => {
    const here = start === from;
    start += token.raw.length;
    return here;
  });
  if (index < 0) return from === text.length ? [] : undefined;
  return tokens.slice(index).map((token) => [token.type, token.raw]);
}

const word = fc.constantFrom('tool', 'call', 'stream', 'a', 'of', 'the', 'JSON', '`x`', '**bold**', '_it_');
const words = fc.array(word, { minLength: 1, maxLength: 12 }).map((w) => w.join(' '));
const fence = fc.constantFrom('```', '~~~', '````');

/** Blocks as a model writes them, several with blank lines of their own. */
const blockText = fc.oneof(
  words,
  words.map((w) => `# ${w}`),
  fc
    .tuple(fence, fc.array(fc.oneof(words, fc.constant('')), { minLength: 1, maxLength: 6 }))
    .map(([f, lines]) => `${f}js\n${lines.join('\n')}\n${f}`),
  fc.array(words, { minLength: 1, maxLength: 4 }).map((items) => items.map((i) => `- ${i}`).join('\n\n')),
  fc
    .array(words, { minLength: 1, maxLength: 4 })
    .map((items) => items.map((i, n) => `${n + 3}. ${i}`).join('\n')),
  fc.tuple(words, words).map(([a, b]) => `- ${a}\n\n  ${b}`),
  fc.tuple(words, words).map(([a, b]) => `> ${a}\n>\n> ${b}`),
  words.map((w) => `    ${w}\n\n    ${w}`),
  fc.constant('| a | b |\n| --- | --- |\n| 1 | 2 |'),
  fc.constant('---'),
);

const answer = fc
  .array(fc.tuple(blockText, fc.constantFrom('\n\n', '\n', '\n\n\n')), { minLength: 1, maxLength: 14 })
  .map((blocks) => blocks.map(([block, gap]) => block + gap).join(''));

describe('blockStartBefore', () => {
  it('cuts where the rest lexes alone to the same blocks as within the whole text', () => {
    fc.assert(
      fc.property(answer, fc.double({ min: 0, max: 1, noNaN: true }), (text, at) => {
        const offset = Math.floor(at * text.length);
        const cut = blockStartBefore(text, offset);
        expect(cut).toBeLessThanOrEqual(Math.max(offset, 0));
        const alone = lex(text.slice(cut)).map((token) => [token.type, token.raw]);
        expect(alone).toEqual(blocksFrom(text, cut));
      }),
      { numRuns: 500 },
    );
  });

  it('never cuts inside a code fence, whatever its blank lines', () => {
    const code = '```js\nconst a = 1;\n\nconst b = 2;\n\n~~~\n\nconst c = 3;\n```\n\nAfter.';
    const cuts = [...code].map((_, offset) => blockStartBefore(code, offset));
    expect(new Set(cuts)).toEqual(new Set([0, code.indexOf('After.')]));
  });

  it('finds a cut near the end of a long answer', () => {
    const paragraph = 'Streaming text that a reader has been following. '.repeat(8);
    const text = `${paragraph}\n\n`.repeat(100) + 'The end.';
    const cut = blockStartBefore(text, text.length - 8_000);
    expect(text.length - cut).toBeGreaterThanOrEqual(8_000);
    expect(text.length - cut).toBeLessThan(8_000 + paragraph.length + 2);
  });
});
