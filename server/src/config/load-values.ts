/**
 * Reading the settings whose values need more than a type: lists of origins, host names
 * and proxies (each entry checked, a mistake naming the entry), service URLs checked for
 * their scheme, the port, the history's directory and the images' settings.
 */
import { resolve } from 'node:path';
import { ConfigError, wholeNumber } from '../util/setting-values.js';
import type { ImageConfig, ImageFileSettings } from '../images/image-config.js';
import { DEFAULT_IMAGE_SETTINGS, type ImageSettings } from '../images/image-settings.js';
import { parseHost } from '../transport/host-guard.js';
import { parseOriginEntry } from '../transport/origin-pattern.js';
import { parseTrustProxyEntry } from '../transport/client-ip.js';
import type { Problems } from './problems.js';
import { DEFAULT_DATA_DIR, IN_MEMORY, blockVariables, setting, variableOf } from './settings/index.js';

type Env = Record<string, string | undefined>;

/** One entry of a list setting, with what a mistake in it is said to be in. */
export interface Entry {
  entry: string;
  /** `AALIS_ALLOWED_ORIGINS`, or `aalis.config.json: allowedOrigins[1]`. */
  label: string;
}

/** The entries of a comma-separated variable, trimmed, empty ones dropped. */
export function listEntries(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Each entry parsed; every entry's mistake kept in `problems`. */
function parseEach(entries: Entry[], problems: Problems, parse: (entry: Entry) => string): string[] {
  return entries.flatMap((entry) => problems.catch(() => [parse(entry)]) ?? []);
}

export const parseOrigins = (entries: Entry[], problems: Problems): string[] =>
  parseEach(entries, problems, ({ entry, label }) => {
    if (entry === '*') return entry;
    const origin = parseOriginEntry(entry);
    if (origin === undefined)
      throw new ConfigError(
        `${label}: "${entry}" is not an origin like https://shop.example.com (no path), or https://*.example.com for its subdomains`,
      );
    return origin;
  });

export const parsePublicHosts = (entries: Entry[], problems: Problems): string[] =>
  parseEach(entries, problems, ({ entry, label }) => {
    if (entry === '*') return entry;
    const host = parseHost(entry);
    if (!host)
      throw new ConfigError(
        `${label}: "${entry}" is not a host name like chat.example.com or chat.example.com:8443 (no scheme, no path)`,
      );
    return host.port === undefined ? host.hostname : `${host.hostname}:${host.port}`;
  });

export const parseTrustProxy = (entries: Entry[], problems: Problems): string[] =>
  parseEach(entries, problems, ({ entry, label }) => {
    const parsed = parseTrustProxyEntry(entry);
    if (parsed === undefined)
      throw new ConfigError(
        `${label}: "${entry}" is not an IP address like 10.0.0.5 or ::1, or loopback (127.0.0.0/8 and ::1)`,
      );
    return parsed;
  });

/** A service's URL from its variable (or the file's setting), checked for its scheme. */
export function serviceUrl(
  env: Env,
  key: 'redisUrl' | 'databaseUrl',
  fromFile: string | undefined,
): string | undefined {
  const variable = variableOf(key);
  const value = env[variable]?.trim() || fromFile?.trim();
  if (!value) return undefined;
  const schemes = key === 'redisUrl' ? ['redis:', 'rediss:'] : ['postgres:', 'postgresql:'];
  let scheme: string | undefined;
  try {
    scheme = new URL(value).protocol;
  } catch {
    scheme = undefined;
  }
  if (!scheme || !schemes.includes(scheme))
    throw new ConfigError(
      `${variable}: expected a URL starting ${schemes.map((s) => `${s}//`).join(' or ')}`,
    );
  return value;
}

/** PORT over the file's `port`: a whole number from 0 (any free port) to 65535. */
export function portFrom(env: Env, fromFile: number | undefined): number {
  const text = env.PORT?.trim();
  if (!text) return fromFile ?? (setting('port').default as number);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535)
    throw new ConfigError(`PORT must be a number from 0 to 65535; it is "${text}"`);
  return port;
}

/** The history's directory: relative to `base` (where the server runs, or the file's directory). */
export function dataDirFrom(value: string | undefined, base = '.'): string | undefined {
  const named = value?.trim();
  if (named === IN_MEMORY) return undefined;
  return resolve(base, named || DEFAULT_DATA_DIR);
}

/** A whole number from 1 to the setting's largest, its variable over the file's value over its default. */
export function wholeSetting(env: Env, key: string, fromFile: number | undefined): number {
  const { variables, schema, unit } = setting(key);
  return wholeNumber(env, variables[0]!.name, fromFile ?? (setting(key).default as number), {
    max: schema.maximum as number,
    ...(unit ? { unit } : {}),
  });
}

/**
 * A whole number from 0 (no limit) to the setting's largest, its variable over the file's
 * value over its default: for the limits whose schema allows 0.
 */
export function limitSetting(env: Env, key: string, fromFile: number | undefined): number {
  const { variables, schema } = setting(key);
  const name = variables[0]!.name;
  const max = schema.maximum as number;
  const text = env[name]?.trim();
  if (!text) return fromFile ?? (setting(key).default as number);
  if (!/^\d+$/.test(text) || Number(text) > max)
    throw new ConfigError(`${name} must be a whole number from 0 (no limit) to ${max}; it is "${text}"`);
  return Number(text);
}

/** The images' settings: `AALIS_VISION` and the limits over the file's `images` block. */
export function loadImageConfig(env: Env, file: ImageFileSettings = {}, problems: Problems): ImageConfig {
  const settings = { ...DEFAULT_IMAGE_SETTINGS };
  for (const [key] of blockVariables<keyof ImageSettings | 'vision'>('images')) {
    if (key === 'vision') continue;
    const read = setting(`images.${key}`).schema.minimum === 0 ? limitSetting : wholeSetting;
    const value = problems.catch(() => read(env, `images.${key}`, file[key]));
    if (value !== undefined) settings[key] = value;
  }
  const vision = problems.catch(() => onOffSetting(env, 'images.vision')) ?? file.vision;
  return { ...settings, ...(vision === undefined ? {} : { vision }) };
}

/** A setting whose variable says `on` or `off`; undefined when the variable is not set. */
export function onOffSetting(env: Env, key: string): boolean | undefined {
  const variable = variableOf(key);
  const text = env[variable]?.trim();
  if (!text) return undefined;
  if (text === 'on') return true;
  if (text === 'off') return false;
  throw new ConfigError(`${variable} must be on or off; it is "${text}"`);
}
