/**
 * Where a markdown text can be cut so that the part after the cut lexes alone to the same
 * blocks as within the whole text: how a long text renders its end first (`MarkdownCache`).
 *
 * Found by lines, without lexing: a line after a blank line, outside any code fence, that
 * cannot continue a list, a quote or an indented block above it. Not tracked: an HTML
 * block with blank lines inside (`<pre>` and the like, rare in a model's answer and shown
 * as text), and references to link definitions on the other side of the cut, which the
 * streaming text never resolved either; a finished message is lexed whole.
 */

/** An opening code fence: three or more backticks or tildes, indented at most three spaces. */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
/** Lines that may continue the block above a blank line (indented code, a list, a quote). */
const CONTINUES = /^(\s|[*+>-]|\d{1,9}[.)])/;

/** Where the last block that starts at or before `offset` begins; 0 when there is none. */
export function blockStartBefore(text: string, offset: number): number {
  let found = 0;
  let fence: string | undefined;
  let afterBlank = false;
  for (let lineStart = 0; lineStart <= offset && lineStart < text.length;) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline < 0 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const marker = FENCE.exec(line)?.[1];
    if (fence) {
      // Closed by a fence of the same character, at least as long, and nothing after it.
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = undefined;
    } else {
      if (afterBlank && line && !CONTINUES.test(line)) found = lineStart;
      fence = marker;
    }
    afterBlank = line.trim() === '';
    lineStart = lineEnd + 1;
  }
  return found;
}
