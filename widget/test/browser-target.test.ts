/**
 * The browsers the widget README promises are the ones the build targets, and the build
 * emits its syntax as written for them (that it parses and runs in today's engines is
 * demo/test/engines/smoke-suite.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
// @ts-expect-error: a plain script without types.
import { BROWSER_TARGET } from '../scripts/browser-target.mjs';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const built = new URL('../dist/aalis-chat.js', import.meta.url);

const NAMES: Record<string, string> = {
  chrome: 'Chrome',
  edge: 'Edge',
  firefox: 'Firefox',
  safari: 'Safari',
};

test('the README lists exactly the browsers and versions the build targets', () => {
  const promised = /built files are for \*\*(.+?)\*\* or later/s.exec(readme)?.[1]?.replace(/\s+/g, ' ');
  const targeted = (BROWSER_TARGET as string[]).map((target) => {
    const [, name, version] = /^([a-z]+)([\d.]+)$/.exec(target)!;
    return `${NAMES[name!]} ${version}`;
  });
  expect(promised?.split(/, | and /)).toEqual(targeted);
});

test.skipIf(!existsSync(built))(
  'the one-file build is its file and its nine parts, nothing lowered into helpers of its own',
  () => {
    // Syntax lowered for an older target brings helper functions, which the bundler puts in
    // a file of their own: a page would have to be served it too.
    const files = readdirSync(new URL('../dist/', import.meta.url)).filter((f) =>
      /^aalis-chat.*\.js$/.test(f),
    );
    expect(files.sort()).toEqual([
      'aalis-chat-approval-cards.js',
      'aalis-chat-challenge-provider.js',
      'aalis-chat-conversations-view.js',
      'aalis-chat-elicitation-element.js',
      'aalis-chat-feedback-form.js',
      'aalis-chat-handoff-view.js',
      'aalis-chat-marked.js',
      'aalis-chat-mcp-app-element.js',
      'aalis-chat-versions-view.js',
      'aalis-chat.js',
    ]);
    expect(readFileSync(built, 'utf8')).not.toMatch(/Private element is not present/);
  },
);
