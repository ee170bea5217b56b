/**
 * A markdown answer as words to be read aloud: what a screen reader's live region says.
 * "## Streaming… | provider | --- |" would be read as symbols; the words are what matter.
 * With marked loaded (lexer.ts) its tokens give the text; before, a rougher strip of the
 * syntax does.
 */
import type { Token } from 'marked';
import { lexer } from './lexer.js';
import { decode } from './render.js';

export function plainTextOf(markdown: string): string {
  const lex = lexer();
  const text = lex ? lex(markdown).map(words).join(' ') : stripped(markdown);
  return text.replace(/\s+/g, ' ').trim();
}

function words(token: Token): string {
  switch (token.type) {
    case 'space':
    case 'hr':
    case 'def':
      return ' ';
    case 'code':
    case 'codespan':
    case 'escape':
      return decode(token.text as string);
    case 'table': {
      const cells = (row: Array<{ tokens: Token[] }>) =>
        row.map((cell) => cell.tokens.map(words).join('')).join(', ');
      return (
        [cells(token.header), ...(token.rows as Array<Array<{ tokens: Token[] }>>).map(cells)].join('. ') +
        '.'
      );
    }
    case 'list':
      return (token.items as Token[]).map(words).join('. ');
    case 'html':
      return token.raw;
    default: {
      const inner =
        'tokens' in token && token.tokens
          ? token.tokens.map(words).join('')
          : decode((token as { text?: string }).text ?? '');
      // Blocks end a sentence where the markdown did not say so.
      return token.type === 'heading' || token.type === 'paragraph'
        ? `${inner}. `.replace(/([.!?:。！？：])\. $/, '$1 ')
        : inner;
    }
  }
}

/** Without marked: headings, emphasis, code fences, table rules and link syntax taken out. */
const stripped = (markdown: string): string =>
  markdown
    .replace(/^```.*$/gm, '')
    .replace(/^\s{0,3}(#{1,6}|>)\s*/gm, '')
    .replace(/^\s*\|?\s*:?-{3,}.*$/gm, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\|/g, ' ')
    .replace(/\*\*|~~|`|(^|\s)\*(?=\S)|(?<=\S)\*(?=\s|$)/g, '$1');
