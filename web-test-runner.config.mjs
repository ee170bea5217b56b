// Browser tests (*.browser.test.ts, and everything under widget/) in headless Debian
// Chromium. Each option is there for this machine: Debian's Chromium, run as root without a GPU
// (--no-sandbox, --disable-dev-shm-usage, --disable-gpu; scripts/ensure-chromium.mjs), and the
// widget's decorators, which need its tsconfig.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { defaultReporter } from '@web/test-runner';
import { chromeLauncher } from '@web/test-runner-chrome';
import { chromePath, chromiumArgs } from './scripts/ensure-chromium.mjs';
import { countsReporter } from './scripts/wtr-counts-reporter.mjs';

export default {
  files: ['{protocol,widget}/test/**/*.browser.test.ts'],
  nodeResolve: { exportConditions: ['@aalis/source', 'browser'] },
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'widget/tsconfig.json' })],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: chromePath,
        headless: true,
        args: chromiumArgs,
      },
    }),
  ],
  concurrency: 1,
  testFramework: { config: { timeout: 10000 } },
  reporters: [defaultReporter(), countsReporter('.test-results/browser.json')],
};
