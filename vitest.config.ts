import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources ("source" export
  // condition), so Node tests run against the code as written, without a build.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['{protocol,server,widget,demo}/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', '**/*.browser.test.ts'],
    environment: 'node',
  },
});
