/**
 * The configuration file's JSON Schema, made from the settings' descriptions: each key's
 * type and allowed values, and a description that names the variables that win over it
 * and its default. `npm run schema -w @aalis/server` writes it to
 * `schema/aalis-config.schema.json` (published as `@aalis/server/config.schema.json`); the
 * server checks files against the same object.
 */
import {
  BLOCKS,
  DEFINITIONS,
  SETTINGS,
  fallbackOf,
  keyPath,
  type JsonSchema,
  type Setting,
} from './settings/index.js';

/** `OPENAI_API_KEY (openai, openai-responses), ANTHROPIC_API_KEY (anthropic): the key. Default: x.` */
export function describeSetting(setting: Setting): string {
  const names = setting.variables
    .map((v) => (v.providers ? `${v.name} (${v.providers.join(', ')})` : v.name))
    .join(', ');
  const fallback = fallbackOf(setting);
  return `${names ? `${names}: ` : ''}${setting.description}${fallback ? ` Default: ${fallback}.` : ''}`;
}

export function configSchema(): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    $schema: {
      description:
        "This schema, for editors' completion: ./node_modules/@aalis/server/schema/aalis-config.schema.json",
      type: 'string',
    },
  };
  for (const setting of SETTINGS) {
    if (!setting.key) continue;
    const [first, second] = keyPath(setting.key) as [string, string | undefined];
    const described = { description: describeSetting(setting), ...setting.schema };
    if (second === undefined) {
      properties[first] = described;
      continue;
    }
    const block = BLOCKS[first];
    if (!block) throw new Error(`setting ${setting.key} is in no block`);
    properties[first] ??= {
      description: block.description,
      type: 'object',
      additionalProperties: false,
      properties: {},
      ...block.schema,
    };
    (properties[first].properties as Record<string, JsonSchema>)[second] = described;
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'aalis-server configuration',
    description:
      'The configuration file of aalis-server (aalis-server --config FILE). Every environment variable wins over the setting it names; ${VAR} and ${VAR:-default} in string values read the environment.',
    type: 'object',
    additionalProperties: false,
    properties,
    definitions: DEFINITIONS,
  };
}
