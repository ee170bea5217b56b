// A @web/test-runner reporter that writes how many tests passed and failed to a JSON
// file, so scripts/test.mjs can add them to the other runners' totals.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

function count(suite, totals) {
  for (const test of suite.tests ?? []) {
    if (test.skipped) totals.skipped++;
    else if (test.passed) totals.passed++;
    else totals.failed++;
  }
  for (const child of suite.suites ?? []) count(child, totals);
}

export function countsReporter(outFile) {
  return {
    onTestRunFinished({ sessions }) {
      const totals = { passed: 0, failed: 0, skipped: 0 };
      for (const session of sessions) {
        const own = { passed: 0, failed: 0, skipped: 0 };
        if (session.testResults) count(session.testResults, own);
        // A file that failed to load, or threw outside any test, has no failed test to
        // count; it still failed, and counts as one.
        if (!session.passed && own.failed === 0) own.failed = 1;
        for (const key of Object.keys(totals)) totals[key] += own[key];
      }
      mkdirSync(dirname(outFile), { recursive: true });
      writeFileSync(outFile, JSON.stringify(totals));
    },
  };
}
