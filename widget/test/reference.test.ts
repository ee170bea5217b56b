/** The reference of tokens, parts, attributes and events is what the sources say. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'prettier';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain script without types.
import { reference, sortModules } from '../scripts/reference.mjs';

const widget = new URL('..', import.meta.url).pathname;

test('custom-elements.json and REFERENCE.md are up to date (npm run docs -w @aalis/widget)', async () => {
  // The analyzer takes --outdir relative to its working directory.
  const out = mkdtempSync(join(widget, '.cem-check-'));
  try {
    execFileSync('npx', ['cem', 'analyze', '--outdir', out.slice(widget.length)], {
      cwd: widget,
      stdio: 'ignore',
    });
    const fresh = (sortModules as (m: unknown) => unknown)(
      JSON.parse(readFileSync(join(out, 'custom-elements.json'), 'utf8')),
    );
    expect(JSON.parse(readFileSync(join(widget, 'custom-elements.json'), 'utf8'))).toEqual(fresh);
    const expected = await format((reference as (m: unknown) => string)(fresh), {
      parser: 'markdown',
      proseWrap: 'preserve',
    });
    expect(readFileSync(join(widget, 'REFERENCE.md'), 'utf8')).toBe(expected);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
  const text = readFileSync(join(widget, 'REFERENCE.md'), 'utf8');
  for (const token of ['--aalis-color-accent', '--aalis-card-background', '--aalis-max-width'])
    expect(text).toContain(token);
  for (const part of ['pending-card', 'tool-call-block', 'composer', 'send-button', 'transcript', 'bubble']) {
    expect(text).toContain(`\`${part}\``);
  }
}, 30_000);
