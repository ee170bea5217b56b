/**
 * A stdio MCP server run as another user (`"user"`, and optionally `"group"`, in its
 * entry). A child running as the server's own user can read `/proc/<server pid>/environ`,
 * the server's memory where ptrace allows it, and every file the server can read, secret
 * files included; as another user it reads none of them.
 *
 * The SDK's transport spawns without passing `uid`/`gid` through, so the command is started
 * through util-linux's `setpriv`, which switches user and group and then execs it: the
 * process keeps its pid, and the SDK's stdin, signals and exit code reach the server itself.
 * It also gets SIGTERM when the server dies (`--pdeathsig`), so that it is never left behind.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { ConfigError } from '../../util/setting-values.js';

export interface RunAs {
  uid: number;
  gid: number;
  /** Its entry in the user database, when it has one: its groups, HOME and USER come from it. */
  account?: { name: string; home: string };
}

/** A `user` or `group` that cannot be used; `key` is which of the two is wrong. */
export class RunAsError extends ConfigError {
  constructor(
    readonly key: 'user' | 'group',
    message: string,
  ) {
    super(message);
  }
}

const NUMBER = /^\d+$/;

/**
 * The ids `user` and `group` name (a name or a number each; the group defaults to the
 * user's own), or undefined when no user is named. Throws RunAsError when one is unknown,
 * or when the server cannot switch to them.
 */
export function resolveRunAs(user: string | undefined, group?: string): RunAs | undefined {
  if (user === undefined) return undefined;
  const passwd = lookUp('passwd', user);
  if (!passwd && !NUMBER.test(user))
    throw new RunAsError('user', `there is no user "${user}" on this system`);
  const uid = passwd ? Number(passwd[2]) : Number(user);
  let gid: number;
  if (group !== undefined) {
    const entry = lookUp('group', group);
    if (!entry && !NUMBER.test(group))
      throw new RunAsError('group', `there is no group "${group}" on this system`);
    gid = entry ? Number(entry[2]) : Number(group);
  } else if (passwd) gid = Number(passwd[3]);
  // Guessing (the same number, nogroup) could hand it a group that can read too much.
  else throw new RunAsError('user', `uid ${user} has no entry in the user database: name its "group" too`);
  const runAs: RunAs = { uid, gid, ...(passwd ? { account: { name: passwd[0]!, home: passwd[5]! } } : {}) };
  checkCanSwitch(runAs, user);
  return runAs;
}

/** Whether starting a process as `runAs` needs a switch (it is not already who we are). */
const needsSwitch = ({ uid, gid }: RunAs): boolean =>
  uid !== process.getuid?.() || gid !== process.getgid?.();

function checkCanSwitch(runAs: RunAs, user: string): void {
  const own = process.getuid?.();
  if (own === undefined)
    throw new RunAsError('user', 'running an MCP server as another user needs Linux or another POSIX system');
  if (!needsSwitch(runAs)) return;
  // Only root may switch to any user (a capability-only setup is rare enough to say the same).
  if (own !== 0)
    throw new RunAsError(
      'user',
      `running it as "${user}" needs aalis-server to run as root, and it runs as uid ${own}: start it as root, or remove "user"`,
    );
  if (!setpriv())
    throw new RunAsError(
      'user',
      'running it as another user needs setpriv (util-linux), which is not installed: apt-get install util-linux',
    );
}

/** The command and arguments that start `command` as `runAs` (unchanged when no switch is needed). */
export function launchAs(
  runAs: RunAs | undefined,
  command: string,
  args: readonly string[],
): { command: string; args: string[] } {
  if (!runAs || !needsSwitch(runAs)) return { command, args: [...args] };
  // Root's supplementary groups (0 among them) must not come along: the user's own, or none.
  const groups = runAs.account ? '--init-groups' : '--clear-groups';
  // Stopped with the server even when the server dies without closing it (a crash,
  // SIGKILL): it may ignore its stdin's end. setpriv sets the signal after it switches
  // user, as it must: the kernel clears one set before a change of user.
  const deathSignal = setprivKnowsDeathSignal() ? ['--pdeathsig=SIGTERM'] : [];
  return {
    command: setpriv()!,
    args: [`--reuid=${runAs.uid}`, `--regid=${runAs.gid}`, groups, ...deathSignal, '--', command, ...args],
  };
}

/** HOME, USER and LOGNAME of the user it runs as: the server's own would point at its home. */
export function accountVariables(runAs: RunAs | undefined): Record<string, string> | undefined {
  if (!runAs || !needsSwitch(runAs)) return undefined;
  const { account } = runAs;
  return account ? { HOME: account.home, USER: account.name, LOGNAME: account.name } : {};
}

/** The fields of `key`'s entry (a name or a number) in the user or group database. */
function lookUp(database: 'passwd' | 'group', key: string): string[] | undefined {
  try {
    // getent asks NSS, so users from LDAP or systemd are found as well as /etc's.
    const line = execFileSync('getent', [database, key], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return line.split('\n')[0]!.split(':');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return undefined; // exit 2: not found
  }
  // Without getent (macOS, a slim image), the file itself.
  const lines = readOptional(`/etc/${database}`).split('\n');
  const fields = lines.map((line) => line.split(':')).filter((f) => f.length > 3 && !f[0]!.startsWith('#'));
  return (
    fields.find((f) => f[0] === key) ?? (NUMBER.test(key) ? fields.find((f) => f[2] === key) : undefined)
  );
}

function readOptional(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

let setprivPath: string | null | undefined;

/** Where setpriv is (the server's PATH, then /usr/bin and /bin), or undefined. */
function setpriv(): string | undefined {
  if (setprivPath === undefined) {
    const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(isAbsolute), '/usr/bin', '/bin'];
    setprivPath = dirs.map((dir) => join(dir, 'setpriv')).find(isExecutable) ?? null;
  }
  return setprivPath ?? undefined;
}

let deathSignalKnown: boolean | undefined;

/** Whether this setpriv has --pdeathsig (util-linux 2.33 and later; older ones refuse it). */
function setprivKnowsDeathSignal(): boolean {
  if (deathSignalKnown === undefined) {
    try {
      const help = execFileSync(setpriv()!, ['--help'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      deathSignalKnown = help.includes('--pdeathsig');
    } catch {
      deathSignalKnown = false;
    }
  }
  return deathSignalKnown;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
