// Makes sure the real servers the tests start for themselves exist: redis-server,
// PostgreSQL 15 and nginx (server/test/services/). Missing ones are installed from Debian's
// packages when this machine can (root with apt-get), in one apt-get run. Installing
// them must not leave Debian's own services running: they would hold 6379, 5432 and 80,
// and keep running after the tests. Run directly, prints what it found or installed;
// exits 1 with one line saying what to install otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { aptInstall, canAptInstall } from './apt-install.mjs';

/** Each service: the binary the tests run, and the Debian package and init script that provide it. */
export const services = [
  {
    name: 'redis-server',
    binary: '/usr/bin/redis-server',
    aptPackage: 'redis-server',
    initScript: 'redis-server',
  },
  {
    name: 'PostgreSQL 15',
    binary: '/usr/lib/postgresql/15/bin/postgres',
    aptPackage: 'postgresql',
    initScript: 'postgresql',
  },
  { name: 'nginx', binary: '/usr/sbin/nginx', aptPackage: 'nginx', initScript: 'nginx' },
];

// invoke-rc.d asks this before starting any service; 101 means "not allowed". Docker's
// Debian images ship one already: it is left as it is.
const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/**
 * Installs what is missing; returns `{ present, installed }` (service names). Throws
 * with one line saying what to do when something is missing and cannot be installed here.
 */
export function ensureServices() {
  const present = services.filter((service) => existsSync(service.binary));
  const missing = services.filter((service) => !existsSync(service.binary));
  if (missing.length === 0) return { present: present.map(nameOf), installed: [] };

  const packages = missing.map((service) => service.aptPackage);
  if (!canAptInstall()) {
    throw new Error(
      `${missing.map(nameOf).join(', ')} not installed: install them (Debian: apt-get install ${packages.join(' ')}).`,
    );
  }

  console.log(`Installing Debian packages for the test services (one time): ${packages.join(' ')}`);
  // RUNLEVEL=1 as well: invoke-rc.d starts nothing in single-user mode, even where the
  // policy file cannot be written.
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', RUNLEVEL: '1' };
  const ownPolicy = !existsSync(POLICY_RC_D);
  if (ownPolicy)
    writeFileSync(
      POLICY_RC_D,
      '#!/bin/sh\n# Written by scripts/ensure-services.mjs for one install.\nexit 101\n',
      { mode: 0o755 },
    );
  let installed;
  try {
    installed = aptInstall(packages, { RUNLEVEL: '1' });
  } finally {
    if (ownPolicy) rmSync(POLICY_RC_D, { force: true });
  }
  // Where something started one anyway (systemd ignores the policy file), stop it.
  for (const service of missing) {
    spawnSync('service', [service.initScript, 'stop'], { stdio: 'ignore', env });
  }

  const stillMissing = missing.filter((service) => !existsSync(service.binary));
  if (!installed || stillMissing.length > 0) {
    throw new Error(
      `Installing ${packages.join(' ')} failed: run "apt-get install ${packages.join(' ')}" by hand.`,
    );
  }
  return { present: present.map(nameOf), installed: missing.map(nameOf) };
}

const nameOf = (service) => service.name;

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { present, installed } = ensureServices();
    if (installed.length > 0) console.log(`Installed: ${installed.join(', ')}.`);
    if (present.length > 0) console.log(`Already installed: ${present.join(', ')}.`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
