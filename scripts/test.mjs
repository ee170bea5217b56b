// `npm test`: every check, then one summary line `N passed, N failed`.
// Type-check and lint count as one check each; the test runners add their tests.
// Every step runs even after a failure, so one run shows everything that is wrong.
//
// Steps that do not need each other run at the same time (the machine has two cores, and
// much of the time goes to waiting: on apt, on the registry, on streams the tests pace):
//
//   Debian packages (services, Chromium, then Firefox and WebKit), in the background
//   type-check and build  |  lint
//   node tests (after the build and the services)  |  packages (after the build)
//   browser tests (after the node tests, which time what they render)  |  engines (after
//     the node tests and their packages; the three engines at once, one file each: their
//     time is mostly pages waiting on streams the fake model paces)
//
// The log stays in the order of the steps: the step whose turn it is prints as it runs;
// the others' output is held and printed when their turn comes.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { ensureChromium } from './ensure-chromium.mjs';

const results = '.test-results';
rmSync(results, { recursive: true, force: true });
const startedAt = Date.now();
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** Sections of the log, printed in the order they were made. */
const sections = [];
let printing = 0;
function section(title) {
  const s = { title, held: [`\n=== ${title}\n`], done: false };
  sections.push(s);
  flush();
  return {
    write(text) {
      if (sections[printing] === s) process.stdout.write(text);
      else s.held.push(String(text));
    },
    end() {
      s.done = true;
      flush();
    },
  };
}
function flush() {
  while (sections[printing]) {
    const s = sections[printing];
    for (const text of s.held.splice(0)) process.stdout.write(text);
    if (!s.done) return;
    printing++;
  }
}

// Colour, as the tools would give it on this terminal: their output is piped through here.
const colour = process.stdout.isTTY && !process.env.NO_COLOR ? { FORCE_COLOR: '1' } : {};

/** Runs a command, its output into `log`; resolves with whether it exited 0. */
function run(log, command, args, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...colour, ...env },
    });
    child.stdout.on('data', (d) => log.write(d));
    child.stderr.on('data', (d) => log.write(d));
    child.on('error', (error) => {
      log.write(`${command}: ${error.message}\n`);
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
}

/** The first line of a failure's message, cut short (its stack is in the log above). */
const firstLine = (message = '') => message.split('\n')[0].slice(0, 200);

const readCounts = (file, map) => {
  if (!existsSync(file)) return null;
  try {
    return map(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return null;
  }
};

/** A vitest run (`args`: files and options) with its counts read from its JSON report. */
async function vitest(log, report, args = [], env = {}) {
  const file = `${results}/${report}.json`;
  const ok = await run(
    log,
    'npx',
    ['vitest', 'run', ...args, '--reporter=default', '--reporter=json', `--outputFile.json=${file}`],
    env,
  );
  const counts = readCounts(file, (r) => ({
    passed: r.numPassedTests,
    failed: r.numFailedTests + (r.success || r.numFailedTests ? 0 : 1),
    // Named in the summary, which is often all a CI page shows of a long log.
    failures: r.testResults.flatMap((f) =>
      f.assertionResults
        .filter((a) => a.status === 'failed')
        .map((a) => `${relative(process.cwd(), f.name)} > ${a.fullName}: ${firstLine(a.failureMessages[0])}`),
    ),
  }));
  return { ok, counts };
}

/**
 * The Debian packages the tests need, installed by one background process
 * (install-test-needs.mjs): `base` (the services and Chromium) and `engines` (Firefox,
 * WebKit), each a promise that rejects with why it could not be installed.
 */
function startInstalls() {
  const log = section('Debian packages for the tests (installed when missing)');
  const settle = {};
  const promise = (name) => new Promise((resolve, reject) => (settle[name] = { resolve, reject }));
  const installs = { base: promise('base'), engines: promise('engines') };
  // Awaited by the steps that need them; a failure is reported there.
  installs.base.catch(() => {});
  installs.engines.catch(() => {});
  const child = spawn(process.execPath, ['scripts/install-test-needs.mjs'], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, ...colour },
  });
  child.stdout.on('data', (d) => log.write(d));
  child.stderr.on('data', (d) => log.write(d));
  child.on('message', (message) => {
    if (typeof message === 'string') settle[message]?.resolve();
    else settle[message.failed]?.reject(new Error(message.message));
  });
  child.on('close', (code) => {
    for (const { reject } of Object.values(settle))
      reject(new Error(`installing the test packages ended (exit ${code}) before they were in`));
    log.end();
  });
  return installs;
}

/**
 * A step: a check (`counts` undefined: one pass or fail) or a test run (its counts).
 * `after`: promises to wait for first; one that rejects fails the step, saying why.
 */
function step(name, after, body) {
  const log = section(name);
  const result = (async () => {
    try {
      await Promise.all(after);
    } catch (error) {
      log.write(`${error.message}\n`);
      return { ok: false, counts: null };
    }
    const began = Date.now();
    const outcome = await body(log);
    return { ...outcome, ms: Date.now() - began };
  })();
  // A step waits for what it needs, not for whether it passed.
  const done = result.then(() => undefined);
  return { name, result: result.finally(() => log.end()), done };
}

const build = step('type-check and build', [], async (log) => {
  // Also builds the server and the widget: tests run the command and the one-file script
  // as a user would. The type-check reads sources only, so it runs beside the build.
  const [checked, built] = await Promise.all([
    run(log, 'npx', ['tsc', '-p', 'tsconfig.json']),
    run(log, 'npx', ['tsc', '-b', 'server']).then(
      (ok) => ok && run(log, 'npm', ['run', 'build', '--silent', '-w', '@aalis/widget']),
    ),
  ]);
  return { ok: checked && built };
});

const lint = step('lint', [], async (log) => {
  const [eslint, prettier] = await Promise.all([
    run(log, 'npx', ['eslint', '.']),
    run(log, 'npx', ['prettier', '--check', '.']),
  ]);
  return { ok: eslint && prettier };
});

// Started with the two steps above (all three begin at once), printed after them.
const installs = startInstalls();

// Redis, PostgreSQL and nginx: the node tests start real ones (server/test/services/).
// Chromium too, for the end-to-end tests among them. Without coverage: measuring it made
// this, the longest step, about a fifth slower, and `npm run coverage` gives the figures.
const nodeTests = step('node tests (vitest)', [build.done, installs.base], (log) => vitest(log, 'node'));

// Mostly waiting on the registry and the disk: beside the node tests.
const packages = step('packages (npm pack, installed outside the workspace, used)', [build.done], (log) =>
  vitest(log, 'packages', ['demo/test/packages.test.ts'], { AALIS_PACKAGES_TEST: '1' }),
);

const browser = step(
  'browser tests (web-test-runner, Chromium)',
  [nodeTests.done, installs.base],
  async (log) => {
    const chrome = ensureChromium();
    const ok = await run(log, 'npx', ['web-test-runner'], { CHROME_PATH: chrome });
    return { ok, counts: readCounts(`${results}/browser.json`, (r) => r) };
  },
);

// Firefox ESR and WebKitGTK come from Debian, installed in the background meanwhile.
const engines = step(
  'engines (end-to-end smoke suite in Chromium, Firefox and WebKit)',
  [nodeTests.done, installs.engines],
  // The three at once: their time is mostly pages waiting on the streams the fake model
  // paces, so a third browser costs little, and the step is on the longest path of the run.
  (log) => vitest(log, 'engines', ['demo/test/engines-', '--maxWorkers=3'], { AALIS_ENGINES_TEST: '1' }),
);

let passed = 0;
let failed = 0;
const lines = [];
for (const s of [build, lint, nodeTests, packages, browser, engines]) {
  const { ok, counts, ms } = await s.result;
  const took = ms === undefined ? '' : ` (${seconds(ms)})`;
  if (counts === undefined) {
    if (ok) passed++;
    else failed++;
    lines.push(`${ok ? 'ok  ' : 'FAIL'} ${s.name}${took}`);
    continue;
  }
  // A runner that crashed before writing its counts still failed.
  const c = counts ?? { passed: 0, failed: 1 };
  if (!ok && c.failed === 0) c.failed = 1;
  passed += c.passed;
  failed += c.failed;
  lines.push(`${c.failed ? 'FAIL' : 'ok  '} ${s.name}: ${c.passed} passed, ${c.failed} failed${took}`);
  for (const failure of (c.failures ?? []).slice(0, 10)) lines.push(`     ✗ ${failure}`);
  if (s.note) lines.push(`     ${s.note()}`);
}
await Promise.allSettled([installs.base, installs.engines]);
flush();

console.log('\n' + lines.join('\n'));
console.log(`     ${seconds(Date.now() - startedAt)} in all`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
