/**
 * The build's template minifier (scripts/minify-templates.mjs) takes out only whitespace
 * and comments that cannot change what a template renders or a style sheet means.
 */
import { parseAst } from 'vite';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain script without types.
import { minifyCss, minifyMarkup, minifyTemplates } from '../scripts/minify-templates.mjs';

const templates = (code: string): string | undefined => minifyTemplates(code, parseAst(code));

test('css: comments and layout whitespace go; strings, url() and the spaces CSS reads stay', () => {
  const sheet = `
  /* Don't break a "word": */
  .a :is(.b, .c) > .d,
  .e::part(x) {
    width: calc(100% - 2 * var(--gap));
    content: ' · ';
    background: url(data:image/svg+xml;utf8,<svg a="1 2"/>);
    font: 12px/1.5 "Segoe UI", sans-serif;
  }
  @media (max-width: 480px) and (hover: none) {
    .a { margin: 0 auto; }
  }`;
  expect(minifyCss(sheet)).toBe(
    ".a :is(.b,.c) > .d,.e::part(x){width:calc(100% - 2 * var(--gap));content:' · ';" +
      'background:url(data:image/svg+xml;utf8,<svg a="1 2"/>);font:12px/1.5 "Segoe UI",sans-serif}' +
      '@media (max-width:480px) and (hover:none){.a{margin:0 auto}}',
  );
});

test('html: the indentation after a line break goes, the break stays; spaces on a line stay', () => {
  expect(minifyMarkup('<div class="a">\n    <p>one  two</p>\n  </div>\n')).toBe(
    '<div class="a">\n<p>one  two</p>\n</div>\n',
  );
  expect(minifyMarkup('<pre>${x}</pre>')).toBe('<pre>${x}</pre>');
});

test('only html, svg and css templates change, and never across an expression', () => {
  const code = [
    'const style = css`\n  .a ${selector} .b {\n    color: red;\n  }\n`;',
    'const view = html`<p>\n    ${name} ${count}\n  </p>`;',
    'const icon = svg`<svg>\n  <path d="M0 0"/>\n</svg>`;',
    'const other = sql`SELECT\n    1`;',
    "const plain = '  a:  b ;  ';",
  ].join('\n');
  expect(templates(code)).toBe(
    [
      'const style = css`.a ${selector} .b{color:red}`;',
      'const view = html`<p>\n${name} ${count}\n</p>`;',
      'const icon = svg`<svg>\n<path d="M0 0"/>\n</svg>`;',
      'const other = sql`SELECT\n    1`;',
      "const plain = '  a:  b ;  ';",
    ].join('\n'),
  );
  expect(templates('const nothingToDo = html`<b>${x}</b>`;')).toBeUndefined();
});
