// A build plugin that takes the layout whitespace out of the widget's Lit templates
// (html`…`, svg`…`) and style sheets (css`…`) in the script-tag file. A minifier leaves
// template literals as written, and the source indents them for reading: about 9 KB of
// the file was line breaks, indentation and comments, 1.3 KB of it after gzip.
//
// Only the literal parts change, each on its own (never across a `${…}`, whose neighbours
// may need their space):
// - html and svg: each run of whitespace that holds a line break becomes one line break.
//   Where whitespace renders as a space it still does; where it is kept (`<pre>`,
//   `white-space: pre-wrap`) a line break stays a line break, only the indentation goes.
// - css: comments go, each run of whitespace becomes one space, and none is left next to
//   `{`, `}`, `;`, `,` or after `:`, where CSS never needs one. Quoted strings and `url()`
//   are kept as written.

const TAGS = new Set(['html', 'svg', 'css']);

/** The html or svg part: line breaks kept, the indentation around them dropped. */
export function minifyMarkup(raw) {
  return raw.replace(/[ \t]*\n\s*/g, '\n');
}

/** What css must keep as written: quoted strings and `url(…)`. */
const KEPT = String.raw`'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|url\([^)]*\)`;

/** `raw` cut into what may change (even pieces) and what is kept (odd ones), by `pattern`. */
const pieces = (raw, pattern) => raw.split(new RegExp(`(${pattern})`));

/**
 * The css part. Comments go first: one may hold a quote, which is no string. `first` and
 * `last`: the part begins or ends the sheet, where a space means nothing either.
 */
export function minifyCss(raw, first = true, last = true) {
  const uncommented = pieces(raw, String.raw`/\*[\s\S]*?\*/|${KEPT}`)
    .map((piece, i) => (i % 2 && piece.startsWith('/*') ? ' ' : piece))
    .join('');
  const minified = pieces(uncommented, KEPT)
    .map((piece, i) =>
      i % 2
        ? piece
        : piece
            .replace(/\s+/g, ' ')
            .replace(/ ?([{};,]) ?/g, '$1')
            .replace(/: /g, ':')
            .replace(/;}/g, '}'),
    )
    .join('');
  const started = first ? minified.trimStart() : minified;
  return last ? started.trimEnd() : started;
}

/**
 * `code` with each tagged template whose tag is html, svg or css rewritten in place;
 * undefined when there is nothing to change. `program` is its ESTree, with offsets.
 */
export function minifyTemplates(code, program) {
  const edits = [];
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    if (
      node.type === 'TaggedTemplateExpression' &&
      node.tag.type === 'Identifier' &&
      TAGS.has(node.tag.name)
    ) {
      const minify = node.tag.name === 'css' ? minifyCss : minifyMarkup;
      const { quasis } = node.quasi;
      quasis.forEach((quasi, i) => {
        const raw = code.slice(quasi.start, quasi.end);
        // Offsets that are not exactly the literal's text would cut the code anywhere.
        if (raw !== quasi.value.raw) return;
        const minified = minify(raw, i === 0, i === quasis.length - 1);
        if (minified !== raw) edits.push({ start: quasi.start, end: quasi.end, text: minified });
      });
    }
    for (const key in node) if (key !== 'type') visit(node[key]);
  };
  visit(program);
  if (!edits.length) return undefined;
  let out = '';
  let at = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    out += code.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + code.slice(at);
}

/** The plugin, for the widget's own modules (TypeScript already stripped when it runs). */
export function minifyTemplatesPlugin() {
  return {
    name: 'aalis:minify-templates',
    transform(code, id) {
      if (!/[\\/]widget[\\/]src[\\/].*\.ts$/.test(id) || !/\b(html|svg|css)`/.test(code)) return null;
      const out = minifyTemplates(code, this.parse(code));
      return out === undefined ? null : { code: out, map: null };
    },
  };
}
