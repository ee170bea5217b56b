/**
 * The published JSON Schema of the configuration file: valid for any JSON Schema tool
 * (checked here with a plain Ajv), true to the server (the built-in tools' names, every
 * variable a setting stands for), shipped in the package, and met by the example.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, test } from 'vitest';
import { ENVIRONMENT, loadServerConfig } from '../src/config/server-config.js';
import { CONFIG_SCHEMA_FILE } from '../src/config/file-schema.js';
import { builtinTools } from '../src/tools/builtin/index.js';
import { SETTINGS } from '../src/config/settings/index.js';

const serverDir = fileURLToPath(new URL('../', import.meta.url));
const example = join(serverDir, '..', 'examples', 'aalis.config.json');
const read = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const schema = read(join(serverDir, 'schema', 'aalis-config.schema.json'));

/** A plain Ajv, as an editor or another tool would use the schema: every warning fails. */
function plainValidator() {
  const warnings: unknown[] = [];
  const logger = { log: () => {}, warn: (...args: unknown[]) => warnings.push(args), error: () => {} };
  const validate = new Ajv({ allErrors: true, logger }).compile(schema);
  return { validate, warnings };
}

/** Every key the file may hold, each once. */
const complete = {
  $schema: './node_modules/@aalis/server/schema/aalis-config.schema.json',
  provider: {
    name: 'anthropic',
    model: 'claude-haiku-4-5',
    apiKey: '${ANTHROPIC_API_KEY}',
    baseUrl: 'https://api.anthropic.com',
    maxOutputTokens: 16_000,
    reasoning: 4_096,
    firstByteTimeoutMs: 30_000,
    idleTimeoutMs: 90_000,
    retryAfterMaxMs: 30_000,
  },
  port: 8787,
  host: '0.0.0.0',
  publicHosts: ['chat.example.com'],
  allowedOrigins: ['https://shop.example.com'],
  token: '${AALIS_TOKEN}',
  metricsToken: '${AALIS_METRICS_TOKEN:-}',
  dataDir: './aalis-data',
  redisUrl: 'redis://127.0.0.1:6379',
  databaseUrl: '${AALIS_DATABASE_URL}',
  turnLeaseMs: 10_000,
  logLevel: 'info',
  maxToolArgumentChars: 256_000,
  systemPrompt: { file: 'prompt.md' },
  welcome: 'Hello! Ask about your order.',
  starters: ['Where is my order?'],
  builtinTools: ['get_time', 'calculator'],
  mcpServers: {
    files: {
      command: 'npx',
      args: ['-y', 'some-mcp-server'],
      env: { ROOT: '/srv' },
      cwd: '.',
      tools: ['read'],
    },
    remote: {
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer ${MCP_TOKEN}' },
      tools: ['x'],
    },
  },
  approval: { delete_file: 'always', 'github_*': 'session', get_time: 'never' },
  elicitationTimeoutMs: 300_000,
};

describe('the published schema', () => {
  test('is where the server reads it, and compiles without a warning', () => {
    expect(CONFIG_SCHEMA_FILE).toBe(join(serverDir, 'schema', 'aalis-config.schema.json'));
    const { warnings } = plainValidator();
    expect(warnings).toEqual([]);
  });

  test('accepts the example and a file with every key', () => {
    const { validate } = plainValidator();
    for (const config of [read(example), complete]) {
      expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  test.each([
    [{ sytemPrompt: 'x' }, 'additionalProperties'],
    [{ provider: { name: 'openai', key: 'x' } }, 'additionalProperties'],
    [{ mcpServers: { files: { args: [] } } }, 'required'],
    [{ mcpServers: { files: { url: 'https://x', command: 'y' } } }, 'additionalProperties'],
    [{ mcpServers: { 'a b': { command: 'y' } } }, 'pattern'],
    [{ approval: { x: 'sometimes' } }, 'enum'],
    [{ builtinTools: ['nope'] }, 'enum'],
    [{ port: 65_536 }, 'maximum'],
    [{ elicitationTimeoutMs: 600_001 }, 'maximum'],
    [{ systemPrompt: { path: 'x' } }, 'required'],
    [{ starters: Array.from({ length: 9 }, (_, i) => `prompt ${i}`) }, 'maxItems'],
    [{ starters: [''] }, 'minLength'],
  ])('refuses %j (%s)', (config, keyword) => {
    const { validate } = plainValidator();
    expect(validate(config)).toBe(false);
    expect(validate.errors!.map((error) => error.keyword)).toContain(keyword);
  });

  test('lists the built-in tools by their real names (editors complete them from here)', () => {
    expect(schema.properties.builtinTools.items.enum).toEqual(builtinTools().map((tool) => tool.name));
  });

  test('names the variable of every setting the environment also makes', () => {
    const text = JSON.stringify(schema);
    for (const setting of SETTINGS.filter((setting) => setting.key))
      for (const { name } of setting.variables) expect(text).toContain(name);
  });

  test('ships in the package, as @aalis/server/config.schema.json', () => {
    const pkg = read(join(serverDir, 'package.json'));
    expect(pkg.files).toContain('schema');
    expect(pkg.exports['./config.schema.json']).toBe('./schema/aalis-config.schema.json');
  });

  test('every top-level key is in the README, in the "Configuration file" section', () => {
    const readme = readFileSync(join(serverDir, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Configuration file'));
    expect(section.length).toBeLessThan(readme.length);
    for (const key of Object.keys(schema.properties).filter((key) => key !== '$schema'))
      expect(section).toMatch(new RegExp(`\`${key}[.\`]`));
    for (const [variable] of ENVIRONMENT) expect(section).toContain(`\`${variable}\``);
  });
});

describe('examples/aalis.config.json', () => {
  test('points editors at the schema, and loads as --check would (no MCP server started)', () => {
    const config = read(example);
    expect(join(dirname(example), config.$schema)).toBe(CONFIG_SCHEMA_FILE);
    const loaded = loadServerConfig({ configPath: example, env: {} });
    expect(loaded.config.systemPrompt).toMatch(/\w/);
    expect(loaded.config.mcpServers).toEqual({
      everything: {
        command: 'npx',
        args: ['--no-install', 'mcp-server-everything'],
        cwd: dirname(example),
      },
      // The ext-apps example server: its clock is an MCP App.
      apps: {
        command: 'npx',
        args: ['--no-install', 'mcp-server-basic-vanillajs', '--stdio'],
        cwd: dirname(example),
      },
    });
    expect(loaded.config.approval).toEqual({
      'trigger-long-running-operation': 'session',
      'get-env': 'always',
    });
    expect(loaded.config.builtinTools).toEqual(builtinTools().map((tool) => tool.name)); // the demo model
  });
});
