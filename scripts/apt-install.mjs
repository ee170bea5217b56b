// Installs Debian packages for the tests (Chromium, the other engines, the services), the
// one way every ensure-*.mjs script does it: only as root with apt-get, non-interactive,
// without recommended packages, and with the package lists refreshed once per process
// (a fresh machine may have none; `npm test` may install for three steps).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** True where this process may install Debian packages. */
export const canAptInstall = () =>
  process.platform === 'linux' && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get');

let listsFresh = false;

/** Installs `packages`; `env` adds to the environment. Returns whether apt-get succeeded. */
export function aptInstall(packages, env = {}) {
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', ...env };
  if (!listsFresh) {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env: environment });
    listsFresh = true;
  }
  const install = spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
    stdio: 'inherit',
    env: environment,
  });
  return install.status === 0;
}
