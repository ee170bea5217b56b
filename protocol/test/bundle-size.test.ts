/**
 * The widget's budget for this package: everything `@aalis/protocol/client` exports,
 * minified and gzipped, stays under 3 KB. Measured on the whole entry, so it bounds
 * whatever subset the widget imports.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

const BUDGET = 3 * 1024;

test(`@aalis/protocol/client is under ${BUDGET} bytes gzipped`, async () => {
  const result = await build({
    entryPoints: [new URL('../src/client.ts', import.meta.url).pathname],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  const gzipped = gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
  console.log(`@aalis/protocol/client: ${gzipped} bytes gzipped (budget ${BUDGET})`);
  expect(gzipped).toBeLessThan(BUDGET);
});
