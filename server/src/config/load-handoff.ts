/**
 * The handoff settings (settings/handoff.ts): on with `AALIS_HANDOFF=on` or a `handoff`
 * block (unless it says `enabled: false`), each value its variable over the file's.
 */
import type { HandoffFileSettings } from './config-file.js';
import { jwksAddressAllowed } from './load-access.js';
import { onOffSetting } from './load-values.js';
import type { Problems } from './problems.js';
import { variableOf } from './settings/index.js';

type Env = Record<string, string | undefined>;

export interface HandoffConfig {
  webhook?: string;
  webhookSecret?: string;
  operatorName?: string;
  consoleUrl?: string;
}

export function loadHandoff(
  env: Env,
  file: HandoffFileSettings | undefined,
  adminToken: string | undefined,
  problems: Problems,
): HandoffConfig | undefined {
  const enabled =
    problems.catch(() => onOffSetting(env, 'handoff.enabled')) ?? file?.enabled ?? file !== undefined;
  if (!enabled) return undefined;
  const value = (key: keyof HandoffConfig) =>
    env[variableOf(`handoff.${key}`)]?.trim() || file?.[key]?.trim() || undefined;
  const config: HandoffConfig = {};
  for (const key of ['webhook', 'webhookSecret', 'operatorName', 'consoleUrl'] as const) {
    const found = value(key);
    if (found) config[key] = found;
  }
  if (!adminToken)
    problems.add('AALIS_HANDOFF needs AALIS_ADMIN_TOKEN: a person answers from the console, /admin');
  if (config.webhook && !jwksAddressAllowed(config.webhook))
    problems.add(
      `AALIS_HANDOFF_WEBHOOK must be an https:// URL (http:// only on loopback); it is "${config.webhook}"`,
    );
  if (config.webhookSecret && config.webhookSecret.length < 16)
    problems.add('AALIS_HANDOFF_WEBHOOK_SECRET must be at least 16 characters');
  return config;
}
