/**
 * The configuration as `--check` prints it, made from the settings' descriptions: every
 * setting that has a value, by its key in the file and in the settings' order, secrets
 * masked as their description says (`secret`: the whole value, `url`: a URL's password and
 * secret query values).
 */
import { MASK, maskUrl } from '../util/secrets.js';
import { SETTINGS, keyPath } from './settings/index.js';

type Tree = Record<string, unknown>;

/**
 * `values` (the resolved settings, by the file's keys) in the settings' order, masked;
 * `shown` turns a key's value into what is printed (a long prompt's start, MCP servers'
 * secrets masked).
 */
export function settingsReport(values: Tree, shown: Record<string, (value: never) => unknown> = {}): Tree {
  const report: Tree = {};
  for (const setting of SETTINGS) {
    if (!setting.key) continue;
    const path = keyPath(setting.key);
    let value: unknown = values;
    for (const step of path) value = (value as Tree | undefined)?.[step];
    if (value === undefined) continue;
    if (setting.mask === 'secret') value = MASK;
    else if (setting.mask === 'url') value = maskUrl(String(value));
    else if (shown[setting.key]) value = shown[setting.key]!(value as never);
    let node = report;
    for (const step of path.slice(0, -1)) node = (node[step] ??= {}) as Tree;
    node[path.at(-1)!] = value;
  }
  return report;
}
