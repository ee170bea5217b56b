import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources (the "@aalis/source" export
  // condition), so Node tests run against the code as written, without a build. A
  // condition of our own: some published packages export TypeScript under a plain
  // "source" condition, which Node cannot load.
  resolve: { conditions: ['@aalis/source'] },
  ssr: { resolve: { conditions: ['@aalis/source'] } },
  test: {
    include: ['{protocol,server,widget,demo}/test/**/*.test.ts', 'test/**/*.test.ts'],
    // The packages test installs from the registry and builds SQLite: `npm test` runs it
    // alone, after the others, so its load never skews their timings.
    exclude: [
      '**/node_modules/**',
      '**/*.browser.test.ts',
      ...(process.env.AALIS_PACKAGES_TEST ? [] : ['demo/test/packages.test.ts']),
      // Likewise the smoke suite in the three engines: its own step, Firefox and WebKit installed first.
      ...(process.env.AALIS_ENGINES_TEST ? [] : ['demo/test/engines-*.test.ts']),
    ],
    environment: 'node',
    // Many tests start processes (the built aalis-server, MCP servers, Redis, PostgreSQL):
    // a start that takes a second alone has taken over 5 s (vitest's default) while
    // `npm test` runs its packages and browser steps beside. A test that needs more says so.
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Most files spend their time waiting (on streams they pace, on the processes and
    // servers they start), not computing: two at a time on a two-core machine, where
    // vitest's default (one fewer than the cores) runs them one by one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // On with `--coverage` (as `npm test` runs the Node tests). The widget is left out: its
    // tests run in Chromium (web-test-runner), which this does not measure, and its 0%
    // would only hide the figures of the code these tests do run. No thresholds: the
    // figures are reported, not enforced.
    coverage: {
      provider: 'v8',
      include: ['protocol/src/**/*.ts', 'server/src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: '.test-results/coverage',
      // A failing test still leaves the figures for the summary of `npm test`.
      reportOnFailure: true,
    },
  },
});
