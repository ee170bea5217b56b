// Makes sure a Chromium for the browser tests exists, installing Debian's package when
// this machine can (root with apt-get). No test tool ever downloads a browser of its own.
// Prints the browser's path; exits 1 with one line saying what to install otherwise.
import { existsSync } from 'node:fs';
import { aptInstall, canAptInstall } from './apt-install.mjs';

export const chromePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';

/**
 * How every tool here starts Chromium: as root it needs --no-sandbox; the rest keep a
 * headless browser that talks only to localhost from trying to reach the network.
 */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function ensureChromium() {
  if (existsSync(chromePath)) return chromePath;
  if (!canAptInstall() || process.env.CHROME_PATH) {
    console.error(
      `Chromium not found at ${chromePath}: install it (Debian: apt-get install chromium) or set CHROME_PATH.`,
    );
    process.exit(1);
  }
  console.log('Chromium is missing: installing Debian package "chromium" (one time).');
  if (!aptInstall(['chromium']) || !existsSync(chromePath)) {
    console.error('Installing Chromium failed: run "apt-get install chromium" by hand, or set CHROME_PATH.');
    process.exit(1);
  }
  return chromePath;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(ensureChromium());
