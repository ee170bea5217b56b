// `npm test`: every check, in order, then one summary line `N passed, N failed`.
// Type-check and lint count as one check each; the test runners add their tests.
// Every step runs even after a failure, so one run shows everything that is wrong.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { ensureChromium } from './ensure-chromium.mjs';
import { ensureEngines } from './ensure-engines.mjs';
import { ensureServices } from './ensure-services.mjs';

const results = '.test-results';
rmSync(results, { recursive: true, force: true });

const run = (command, args, env = {}) =>
  spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status === 0;

const readCounts = (file, map) => {
  if (!existsSync(file)) return null;
  try {
    return map(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
};

/** A vitest run (`args`: files and options) with its counts read from its JSON report. */
function vitest(report, args = [], env = {}) {
  const file = `${results}/${report}.json`;
  const ok = run(
    'npx',
    ['vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${file}`],
    env,
  );
  const counts = readCounts(file, (r) => ({
    passed: r.numPassedTests,
    failed: r.numFailedTests + (r.success || r.numFailedTests ? 0 : 1),
  }));
  return { ok, counts };
}

/** A step that needs `ensure` (an install) first: when that fails, the step fails, saying why. */
const afterInstalling = (ensure, step) => () => {
  try {
    ensure();
  } catch (error) {
    console.error(error.message);
    return { ok: false, counts: null };
  }
  return step();
};

const steps = [
  {
    // Also builds the server and the widget: tests run the command and the one-file
    // script as a user would.
    name: 'type-check and build',
    run: () => ({
      ok:
        run('npx', ['tsc', '-p', 'tsconfig.json']) &&
        run('npx', ['tsc', '-b', 'server']) &&
        run('npm', ['run', 'build', '--silent', '-w', '@aalis/widget']),
    }),
  },
  {
    name: 'lint',
    run: () => ({ ok: run('npx', ['eslint', '.']) && run('npx', ['prettier', '--check', '.']) }),
  },
  {
    // Redis, PostgreSQL and nginx: the node tests start real ones (server/test/services/).
    // Chromium too, for the end-to-end tests among them: installed here, once, not from
    // inside a test worker.
    name: 'node tests (vitest)',
    run: afterInstalling(
      () => {
        ensureServices();
        ensureChromium();
      },
      () => vitest('node', ['--coverage']),
    ),
    // The totals of the coverage vitest.config.ts sets up (protocol, server and widget
    // sources; the widget's own tests run in Chromium, where nothing is measured).
    note: () =>
      'coverage: ' +
      (readCounts(`${results}/coverage/coverage-summary.json`, ({ total }) =>
        ['statements', 'branches', 'functions', 'lines'].map((k) => `${k} ${total[k].pct}%`).join(', '),
      ) ?? 'no report written'),
  },
  {
    name: 'packages (npm pack, installed outside the workspace, used)',
    run: () => vitest('packages', ['demo/test/packages.test.ts'], { AALIS_PACKAGES_TEST: '1' }),
  },
  {
    name: 'browser tests (web-test-runner, Chromium)',
    run: () => {
      const chrome = ensureChromium();
      const ok = run('npx', ['web-test-runner'], { CHROME_PATH: chrome });
      return { ok, counts: readCounts(`${results}/browser.json`, (r) => r) };
    },
  },
  {
    // Firefox ESR and WebKitGTK come from Debian, installed here when missing.
    name: 'engines (end-to-end smoke suite in Chromium, Firefox and WebKit)',
    run: afterInstalling(ensureEngines, () =>
      vitest('engines', ['demo/test/engines.test.ts'], { AALIS_ENGINES_TEST: '1' }),
    ),
  },
];

let passed = 0;
let failed = 0;
const lines = [];
for (const step of steps) {
  console.log(`\n=== ${step.name}`);
  const { ok, counts } = step.run();
  if (counts === undefined) {
    if (ok) passed++;
    else failed++;
    lines.push(`${ok ? 'ok  ' : 'FAIL'} ${step.name}`);
    continue;
  }
  // A runner that crashed before writing its counts still failed.
  const c = counts ?? { passed: 0, failed: 1 };
  if (!ok && c.failed === 0) c.failed = 1;
  passed += c.passed;
  failed += c.failed;
  lines.push(`${c.failed ? 'FAIL' : 'ok  '} ${step.name}: ${c.passed} passed, ${c.failed} failed`);
  if (step.note) lines.push(`     ${step.note()}`);
}

console.log('\n' + lines.join('\n'));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
