/**
 * The widget's budget for this package: what `<aalis-chat>` imports from
 * `@aalis/protocol/client`, minified and gzipped, stays under 6 KB. The import list is
 * read from the widget's sources, so the check follows the widget as it changes.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

// Raised from 3 KB when `turn_status`, message errors and argument-free `end` frames came in
// (issue 11), and from 3.5 KB for tool progress and approvals (issue 13): the frame checks grow
// with every frame and field, and the widget's own budget holds the total. Raised to 5 KB
// for issue 17's frames and fields (feedback, versions, the greeting, writing times). Raised to
// 6 KB for issue 34's (elicitations, MCP Apps): 5,605 B, and 5,391 B once the checks left out
// what the envelope or another keyword already says and wrote each once-used definition in place.
const BUDGET = 6 * 1024;
const clientEntry = new URL('../src/client.ts', import.meta.url).pathname;
const widgetSources = new URL('../../widget/src', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** The values (not types) the widget imports from the protocol package. */
function widgetImports(): string[] {
  const names = new Set<string>();
  for (const file of sourceFiles(widgetSources)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /import\s+(type\s+)?\{([^}]*)\}\s+from\s+'@aalis\/protocol\/client'/g,
    )) {
      if (match[1]) continue;
      for (const spec of match[2]!.split(',').map((s) => s.trim())) {
        if (spec && !spec.startsWith('type ')) names.add(spec.split(/\s+as\s+/)[0]!);
      }
    }
  }
  return [...names].sort();
}

async function gzippedSize(source: string): Promise<number> {
  const result = await build({
    stdin: { contents: source, resolveDir: new URL('.', import.meta.url).pathname, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

test(`what the widget imports from @aalis/protocol/client is under ${BUDGET} bytes gzipped`, async () => {
  const names = widgetImports();
  expect(names).toContain('reduce');
  expect(names).toContain('decodeServerFrame');
  const imported = await gzippedSize(`export { ${names.join(', ')} } from ${JSON.stringify(clientEntry)};`);
  const whole = await gzippedSize(`export * from ${JSON.stringify(clientEntry)};`);
  console.log(
    `widget's protocol imports (${names.join(', ')}): ${imported} B gzipped; whole client entry: ${whole} B`,
  );
  expect(imported).toBeLessThan(BUDGET);
});
