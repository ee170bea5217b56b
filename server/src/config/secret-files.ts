/**
 * Secrets read from files, the container convention (Docker and Kubernetes mount secrets
 * as files): `AALIS_AUTH_SECRET_FILE=/run/secrets/auth` stands for `AALIS_AUTH_SECRET`
 * set to the file's content, its trailing newline trimmed. The value then never is in the
 * process's environment, which every process of the same user can read from
 * `/proc/<pid>/environ` (an MCP server the server starts among them). `aalis-server`
 * applies it once, to a copy of the environment it loads the configuration from; the
 * values are never written back to `process.env`.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { ConfigError } from '../util/setting-values.js';
import { readFailure } from './config-file.js';
import { PROVIDER_KEY_VARIABLES, isSet } from './file-environment.js';
import { Problems } from './problems.js';
import { SETTINGS } from './settings/index.js';

type Env = Record<string, string | undefined>;

/**
 * Secrets named here as well as by their settings: some are read by code of their own
 * rather than through a setting marked secret (the admin and challenge secrets, being
 * added), and `_FILE` must work for each of them from its first day.
 */
const NAMED_SECRETS = [
  'AALIS_TOKEN',
  'AALIS_AUTH_SECRET',
  'AALIS_METRICS_TOKEN',
  'AALIS_ADMIN_TOKEN',
  'AALIS_CHALLENGE_SECRET',
];

/**
 * Every variable that may come from a file: those of the settings `--check` masks (a
 * secret, or a URL that may carry a password: a database's, Redis's), every provider's
 * key, and the secrets named above.
 */
export const SECRET_VARIABLES: readonly string[] = [
  ...new Set([
    ...SETTINGS.filter((s) => s.mask).flatMap((s) => s.variables.map((v) => v.name)),
    ...Object.values(PROVIDER_KEY_VARIABLES),
    ...NAMED_SECRETS,
  ]),
];

/** A file larger than this is a mistake (a wrong path), not a secret; `/dev/zero` never ends. */
const MAX_SECRET_BYTES = 64 * 1024;

/**
 * A copy of `env` with each `NAME_FILE` of a secret read into `NAME`. Setting both, and a
 * file that cannot be read or is empty, are mistakes: all of them are thrown as one
 * ConfigError, a line each, naming the variable and the path, never the content.
 */
export function withSecretFiles(env: Env): Env {
  const problems = new Problems();
  const resolved: Env = { ...env };
  for (const name of SECRET_VARIABLES) {
    const fileVariable = `${name}_FILE`;
    if (!isSet(env, fileVariable)) continue;
    if (isSet(env, name)) {
      problems.add(`${name} and ${fileVariable} are both set: set only one of them`);
      continue;
    }
    const value = problems.catch(() => readSecretFile(fileVariable, env[fileVariable]!.trim()));
    if (value !== undefined) resolved[name] = value;
  }
  problems.throwFound();
  return resolved;
}

function readSecretFile(variable: string, path: string): string {
  const buffer = Buffer.alloc(MAX_SECRET_BYTES + 1);
  let length = 0;
  try {
    const fd = openSync(path, 'r');
    try {
      let read: number;
      do {
        read = readSync(fd, buffer, length, buffer.length - length, null);
        length += read;
      } while (read > 0 && length < buffer.length);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new ConfigError(`${variable}: ${path} cannot be read (${readFailure(error)})`);
  }
  if (length > MAX_SECRET_BYTES)
    throw new ConfigError(`${variable}: ${path} is larger than 64 KiB: is it the right file?`);
  // `echo secret > file` and editors end it with a newline that is no part of the secret.
  const value = buffer.toString('utf8', 0, length).replace(/(\r?\n)+$/, '');
  if (!value) throw new ConfigError(`${variable}: ${path} is empty`);
  return value;
}
