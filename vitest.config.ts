import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources ("source" export
  // condition), so Node tests run against the code as written, without a build.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['{protocol,server,widget,demo}/test/**/*.test.ts'],
    // The packages test installs from the registry and builds SQLite: `npm test` runs it
    // alone, after the others, so its load never skews their timings.
    exclude: [
      '**/node_modules/**',
      '**/*.browser.test.ts',
      ...(process.env.AALIS_PACKAGES_TEST ? [] : ['demo/test/packages.test.ts']),
    ],
    environment: 'node',
  },
});
