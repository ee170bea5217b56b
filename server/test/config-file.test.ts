/**
 * The configuration file read in-process, from real files in a tmp directory: where each
 * setting comes from (the environment wins), `${VAR}`, relative paths, the built-in tools'
 * default, and one clear line for each kind of mistake.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, loadServerConfig } from '../src/config/server-config.js';
import { providerFromEnv } from '../src/providers/from-env.js';
import { builtinTools } from '../src/tools/builtin/index.js';

const dir = mkdtempSync(join(tmpdir(), 'aalis-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
/** Writes `content` (an object as JSON, or text as is) to a new file; its path. */
function configFile(content: unknown, name = `config-${++count}.json`): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

const load = (content: unknown, env: Record<string, string | undefined> = {}) =>
  loadServerConfig({ configPath: configFile(content), env });

/** The one line a mistake is said in, without the file's name that starts it. */
function mistake(content: unknown, env: Record<string, string | undefined> = {}): string {
  const path = configFile(content);
  try {
    loadServerConfig({ configPath: path, env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message.startsWith(`${path}: `)).toBe(true);
    return message.slice(path.length + 2);
  }
  throw new Error('no mistake found');
}

describe('each kind of mistake is one line naming the path', () => {
  test.each([
    [{ sytemPrompt: 'hi' }, 'unknown key "sytemPrompt" (did you mean "systemPrompt"?)'],
    [
      { mcpServers: { files: { args: ['x'] } } },
      'mcpServers.files.command: required: the program to run (npx, node, uvx, a path)',
    ],
    [
      { mcpServers: { files: { command: 'x', comand: 'y' } } },
      'mcpServers.files: unknown key "comand" (did you mean "command"?)',
    ],
    [
      { mcpServers: { web: { url: 'https://x.example', env: {} } } },
      'mcpServers.web: unknown key "env" (allowed here: url, headers, tools)',
    ],
    [
      { mcpServers: { web: { url: 'ftp://x.example' } } },
      'mcpServers.web.url: "ftp://x.example" is not an http:// or https:// URL',
    ],
    [{ mcpServers: { files: { command: 'x', env: { A: 1 } } } }, 'mcpServers.files.env.A: must be a string'],
    [
      { mcpServers: { 'my files': { command: 'x' } } },
      'mcpServers: "my files" is not a valid server name (letters, digits, _ and -, at most 32 characters)',
    ],
    [
      { mcpServers: { ['a'.repeat(33)]: { command: 'x' } } },
      expect.stringMatching(/is not a valid server name/),
    ],
    [
      { approval: { delete_file: 'sometimes' } },
      'approval.delete_file: must be one of always, session, never',
    ],
    [
      { approval: { 'delete file': 'always' } },
      expect.stringMatching(/^approval: "delete file" is not a tool name/),
    ],
    [{ port: 70_000 }, 'port: must be a whole number from 0 to 65535'],
    [{ port: 80.5 }, 'port: must be a whole number from 0 to 65535'],
    [{ port: '8080' }, 'port: must be a whole number from 0 to 65535'],
    [{ logLevel: 'loud' }, 'logLevel: must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ allowedOrigins: 'https://shop.example.com' }, 'allowedOrigins: must be a list'],
    [
      { allowedOrigins: ['https://a.example', 'b.example'] },
      'allowedOrigins[1]: "b.example" is not an origin like https://shop.example.com (no path), or https://*.example.com for its subdomains',
    ],
    [
      { publicHosts: ['https://chat.example.com'] },
      'publicHosts[0]: "https://chat.example.com" is not a host name like chat.example.com or chat.example.com:8443 (no scheme, no path)',
    ],
    [{ builtinTools: ['get_time', 'get_time'] }, 'builtinTools: "get_time" is listed twice'],
    [
      { builtinTools: ['get_time', 'delete_everything'] },
      `builtinTools[1]: must be one of ${builtinTools()
        .map((tool) => tool.name)
        .join(', ')}`,
    ],
    [{ systemPrompt: 42 }, 'systemPrompt: must be a string or an object'],
    [{ systemPrompt: {} }, 'systemPrompt.file: required: a text file, relative to this file'],
    [
      { systemPrompt: { file: 'prompt.md', text: 'x' } },
      'systemPrompt: unknown key "text" (allowed here: file)',
    ],
    [
      { systemPrompt: { file: 'missing.md' } },
      'systemPrompt.file: missing.md cannot be read (ENOENT: no such file or directory)',
    ],
    [
      { provider: { name: 'gemini' } },
      'provider.name: must be one of demo, openai, openai-responses, anthropic, deepseek, ollama',
    ],
    [
      { provider: { apiKey: 'sk-1' } },
      'provider.name: required with apiKey: one of demo, openai, openai-responses, anthropic, deepseek, ollama',
    ],
    [{ provider: { name: 'ollama', apiKey: 'sk-1' } }, 'provider.apiKey: the ollama provider takes no key'],
    [
      { provider: { name: 'openai', apiKey: 'k', baseUrl: 'http://exa mple' } },
      'provider.baseUrl: "http://exa mple" is not a URL',
    ],
    [
      { provider: { name: 'openai', idleTimeoutMs: 0 } },
      'provider.idleTimeoutMs: must be a whole number from 1 to 2147483647',
    ],
    [{ maxToolArgumentChars: -1 }, 'maxToolArgumentChars: must be a whole number from 1 to 100000000'],
    [{ elicitationTimeoutMs: 0 }, 'elicitationTimeoutMs: must be a whole number from 1 to 600000'],
    [{ dataDir: '' }, 'dataDir: must not be empty'],
    [[], 'must be an object'],
    ['', 'empty: it must hold a JSON object'],
    ['{\n  "port": 8787,\n}\n', 'not valid JSON: Expected double-quoted property name at line 3, column 1'],
    ['{\n  "token": s3cret-token\n}', "not valid JSON: Unexpected token 's' at line 2, column 12"],
    ['{ "port": 8787', "not valid JSON: Expected ',' or '}' after property value at line 1, column 15"],
    ['{ "port": ', 'not valid JSON: it ends too early'],
  ])('%j: %s', (content, line) => {
    expect(mistake(content)).toEqual(line);
  });

  test('a JSON mistake never quotes the file (it may hold a secret next to the mistake)', () => {
    expect(mistake('{ "token": sk-live-0123456789 }')).not.toContain('0123456789');
  });

  test('a file that cannot be read', () => {
    const path = join(dir, 'no-such.json');
    expect(() => loadServerConfig({ configPath: path, env: {} })).toThrow(
      new ConfigError(`${path}: cannot be read (ENOENT: no such file or directory)`),
    );
    expect(() => loadServerConfig({ configPath: dir, env: {} })).toThrow(
      new ConfigError(`${dir}: cannot be read (EISDIR: illegal operation on a directory)`),
    );
  });

  test('a misplaced key is said before a variable its value names', () => {
    expect(mistake({ tokne: '${UNSET_VARIABLE}' })).toBe('unknown key "tokne" (did you mean "token"?)');
  });
});

describe('${VAR} reads the environment', () => {
  test('in every string value, with defaults; keys are left alone', () => {
    const { config, env } = load(
      {
        provider: { name: 'openai', apiKey: '${MY_KEY}', baseUrl: 'http://127.0.0.1:${UPSTREAM_PORT:-9}/v1' },
        token: 'a-${TOKEN_PART}-b',
        logLevel: '${LOG:-warn}',
        mcpServers: { files: { command: 'x', env: { '${NOT_EXPANDED}': '${HOME_DIR:-/home/aalis}' } } },
        systemPrompt: 'Literal: $${name}.',
      },
      { MY_KEY: 'sk-from-env', TOKEN_PART: 'tok' },
    );
    expect(env.OPENAI_API_KEY).toBe('sk-from-env');
    expect(env.OPENAI_BASE_URL).toBe('http://127.0.0.1:9/v1');
    expect(config.token).toBe('a-tok-b');
    expect(config.logLevel).toBe('warn');
    expect(config.mcpServers.files).toMatchObject({ env: { '${NOT_EXPANDED}': '/home/aalis' } });
    expect(config.systemPrompt).toBe('Literal: ${name}.');
  });

  test('${VAR:-default} takes the default when the variable is empty, ${VAR} keeps it empty', () => {
    expect(load({ host: '${H:-0.0.0.0}' }, { H: '' }).config.host).toBe('0.0.0.0');
    expect(load({ token: 'x${T}' }, { T: '' }).config.token).toBe('x');
  });

  test('an unset variable without a default names the path and the variable', () => {
    expect(mistake({ provider: { name: 'openai', apiKey: '${OPENAI_KEY_FOR_AALIS}' } })).toBe(
      'provider.apiKey: the environment variable OPENAI_KEY_FOR_AALIS is not set (set it, or write ${OPENAI_KEY_FOR_AALIS:-default})',
    );
    expect(
      mistake({ mcpServers: { gh: { url: 'https://x', headers: { Authorization: 'Bearer ${GH}' } } } }),
    ).toBe(
      'mcpServers.gh.headers.Authorization: the environment variable GH is not set (set it, or write ${GH:-default})',
    );
    expect(mistake({ allowedOrigins: ['https://a', '${ORIGIN}'] })).toMatch(
      /^allowedOrigins\[1\]: the environment variable ORIGIN/,
    );
  });

  test('a reference that is not one is said as such', () => {
    expect(mistake({ token: '${not a name}' })).toBe(
      'token: "${not a name}" is not a variable like ${NAME} or ${NAME:-default} (write $${ for a literal ${)',
    );
    expect(mistake({ token: 'abc${TOKEN' })).toBe(
      'token: "${" without its closing "}" (write $${ for a literal ${)',
    );
  });

  test('a value that becomes invalid once expanded is said after expansion', () => {
    expect(mistake({ logLevel: '${LEVEL}' }, { LEVEL: 'loud' })).toBe(
      'logLevel: must be one of fatal, error, warn, info, debug, trace, silent',
    );
  });
});

describe('a variable that is set wins over the file for what it names', () => {
  const file = {
    provider: { name: 'openai', model: 'gpt-file', apiKey: 'sk-file', baseUrl: 'http://127.0.0.1:9/v1' },
    port: 1234,
    host: '127.0.0.2',
    publicHosts: ['file.example.com'],
    allowedOrigins: ['https://file.example.com'],
    token: 'file-token',
    metricsToken: 'file-metrics',
    dataDir: 'file-data',
    logLevel: 'debug',
    maxToolArgumentChars: 1000,
    elicitationTimeoutMs: 60_000,
  };

  test('the file alone', () => {
    const path = configFile(file, 'alone.json');
    const { config, env } = loadServerConfig({ configPath: path, env: {} });
    expect(config).toMatchObject({
      port: 1234,
      host: '127.0.0.2',
      publicHosts: ['file.example.com'], // 127.0.0.2 is a loopback name: always served
      allowedOrigins: ['https://file.example.com'],
      token: 'file-token',
      metricsToken: 'file-metrics',
      dataDir: join(dir, 'file-data'), // relative to the file, not to where the server runs
      logLevel: 'debug',
      maxToolArgumentChars: 1000,
      elicitationTimeoutMs: 60_000,
    });
    expect(providerFromEnv(env)).toMatchObject({ name: 'openai', model: 'gpt-file' });
    expect(env).toMatchObject({ OPENAI_API_KEY: 'sk-file', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
  });

  test('every variable over it', () => {
    const variables = {
      AALIS_PROVIDER: 'deepseek',
      AALIS_MODEL: 'model-env',
      DEEPSEEK_API_KEY: 'sk-env',
      OPENAI_API_KEY: 'sk-env-openai',
      PORT: '4321',
      HOST: '127.0.0.3',
      AALIS_PUBLIC_HOSTS: 'env.example.com',
      AALIS_ALLOWED_ORIGINS: 'https://env.example.com',
      AALIS_TOKEN: 'env-token',
      AALIS_METRICS_TOKEN: 'env-metrics',
      AALIS_DATA_DIR: ':memory:',
      LOG_LEVEL: 'warn',
      AALIS_MAX_TOOL_ARGUMENT_CHARS: '2000',
      AALIS_ELICITATION_TIMEOUT_MS: '90000',
    };
    const { config, env, overridden } = load(file, variables);
    expect(config).toMatchObject({
      port: 4321,
      host: '127.0.0.3',
      publicHosts: ['env.example.com'],
      allowedOrigins: ['https://env.example.com'],
      token: 'env-token',
      metricsToken: 'env-metrics',
      dataDir: undefined,
      logLevel: 'warn',
      maxToolArgumentChars: 2000,
      elicitationTimeoutMs: 90_000,
    });
    expect(providerFromEnv(env)).toMatchObject({ name: 'deepseek', model: 'model-env' });
    expect(env.OPENAI_API_KEY).toBe('sk-env-openai');
    expect(overridden.sort()).toEqual(
      Object.keys(variables)
        .filter((v) => v !== 'DEEPSEEK_API_KEY')
        .sort(),
    );
  });

  test('a variable set to nothing counts as unset', () => {
    const { config, env } = load(file, { PORT: '', AALIS_TOKEN: '', OPENAI_API_KEY: ' ' });
    expect(config.port).toBe(1234);
    expect(config.token).toBe('file-token');
    expect(env.OPENAI_API_KEY).toBe('sk-file');
  });

  test("a variable's own mistake names the variable", () => {
    expect(() => load(file, { PORT: 'eighty' })).toThrow(
      new ConfigError('PORT must be a number from 0 to 65535; it is "eighty"'),
    );
  });

  test('the provider the file names wins over a key the environment merely has', () => {
    const { env } = load({ provider: { name: 'demo' } }, { OPENAI_API_KEY: 'sk-shell' });
    expect(providerFromEnv(env).name).toBe('demo');
  });

  test('AALIS_CONFIG names the file when --config does not; --config wins', () => {
    const a = configFile({ port: 1111 });
    const b = configFile({ port: 2222 });
    expect(loadServerConfig({ env: { AALIS_CONFIG: a } }).config.port).toBe(1111);
    expect(loadServerConfig({ configPath: b, env: { AALIS_CONFIG: a } }).config.port).toBe(2222);
    expect(loadServerConfig({ env: {} }).file).toBeUndefined();
  });
});

describe('what only the file sets', () => {
  test('systemPrompt from a file, relative to the configuration file', () => {
    mkdirSync(join(dir, 'prompts'), { recursive: true });
    writeFileSync(join(dir, 'prompts', 'shop.md'), '\uFEFFYou answer for the shop.\n');
    mkdirSync(join(dir, 'nested'), { recursive: true });
    const path = configFile({ systemPrompt: { file: '../prompts/shop.md' } }, 'nested/aalis.json');
    expect(loadServerConfig({ configPath: path, env: {} }).config.systemPrompt).toBe(
      'You answer for the shop.',
    );
    expect(load({ systemPrompt: 'Inline.' }).config.systemPrompt).toBe('Inline.');
    expect(load({}).config.systemPrompt).toBeUndefined();
  });

  test('a system prompt file that is a directory is one line', () => {
    expect(mistake({ systemPrompt: { file: '.' } })).toBe(
      'systemPrompt.file: . cannot be read (EISDIR: illegal operation on a directory)',
    );
  });

  test('builtinTools: all with the demo model, none with a real provider, else as listed', () => {
    const all = builtinTools().map((tool) => tool.name);
    expect(loadConfig({}).builtinTools).toEqual(all);
    expect(loadConfig({ OPENAI_API_KEY: 'sk-test' }).builtinTools).toEqual([]);
    expect(load({ provider: { name: 'ollama' } }).config.builtinTools).toEqual([]);
    expect(
      load({ builtinTools: ['calculator', 'get_time'] }, { OPENAI_API_KEY: 'sk' }).config.builtinTools,
    ).toEqual(['calculator', 'get_time']);
    expect(load({ builtinTools: [] }).config.builtinTools).toEqual([]);
  });

  test("mcpServers: a stdio server's cwd is relative to the file, the file's directory by default", () => {
    const { config } = load({
      mcpServers: {
        here: { command: 'node', args: ['server.js'] },
        tools: { command: 'node', cwd: 'tools', tools: ['search'] },
        web: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
      },
    });
    expect(config.mcpServers).toEqual({
      here: { command: 'node', args: ['server.js'], cwd: dir },
      tools: { command: 'node', cwd: join(dir, 'tools'), tools: ['search'] },
      web: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' } },
    });
  });

  test('approval, globs allowed', () => {
    const approval = { delete_file: 'always', 'github_*': 'session', '*': 'never' } as const;
    expect(load({ approval }).config.approval).toEqual(approval);
    expect(loadConfig({}).approval).toEqual({});
    expect(loadConfig({}).mcpServers).toEqual({});
  });
});

describe('every mistake is found, one line each', () => {
  test('in the file: each key that is wrong, each variable it names that is unset', () => {
    const path = configFile({ port: 70_000, sytemPrompt: 'x', approval: { a: 'ask' } });
    expect(() => loadServerConfig({ configPath: path, env: {} })).toThrow(
      new ConfigError(
        [
          `${path}: unknown key "sytemPrompt" (did you mean "systemPrompt"?)`,
          `${path}: port: must be a whole number from 0 to 65535`,
          `${path}: approval.a: must be one of always, session, never`,
        ].join('\n'),
      ),
    );
    const unset = configFile({ token: '${AALIS_TEST_A}', metricsToken: '${AALIS_TEST_B}' });
    expect(() => loadServerConfig({ configPath: unset, env: {} })).toThrow(
      new ConfigError(
        [
          `${unset}: token: the environment variable AALIS_TEST_A is not set (set it, or write \${AALIS_TEST_A:-default})`,
          `${unset}: metricsToken: the environment variable AALIS_TEST_B is not set (set it, or write \${AALIS_TEST_B:-default})`,
        ].join('\n'),
      ),
    );
  });

  test('in the file, the environment and the provider at once: a part with a mistake is left out, the rest still checked', () => {
    const path = configFile({
      sytemPrompt: 'x',
      // One server's mistake does not hide the other's.
      mcpServers: { files: { args: ['.'] }, crm: { url: 'ftp://crm.example' } },
      auth: { secret: 'short', jwksUrl: 'http://keys.example/jwks' },
      provider: { name: 'anthropic', apiKey: '${KEY}' },
    });
    const env = {
      KEY: 'sk-ant',
      PORT: 'x',
      AALIS_IDLE_TIMEOUT_MS: '0',
      AALIS_MAX_OUTPUT_TOKENS: 'lots',
      AALIS_REASONING: 'sometimes',
    };
    expect(() => loadServerConfig({ configPath: path, env })).toThrow(
      new ConfigError(
        [
          `${path}: unknown key "sytemPrompt" (did you mean "systemPrompt"?)`,
          `${path}: mcpServers.files.command: required: the program to run (npx, node, uvx, a path)`,
          `${path}: mcpServers.crm.url: "ftp://crm.example" is not an http:// or https:// URL`,
          'PORT must be a number from 0 to 65535; it is "x"',
          `${path}: auth.secret and ${path}: auth.jwksUrl: set one of them, not both`,
          `${path}: auth.secret must be at least 32 bytes (openssl rand -base64 32 makes one)`,
          `${path}: auth.jwksUrl must be an https:// URL (http:// only on loopback); it is "http://keys.example/jwks"`,
          'AALIS_IDLE_TIMEOUT_MS must be a whole number of milliseconds from 1 to 2147483647; it is "0"',
          'AALIS_MAX_OUTPUT_TOKENS must be a whole number of tokens from 1 to 1000000; it is "lots"',
          'AALIS_REASONING for anthropic must be off, adaptive, or a thinking budget in tokens from 1024 to below AALIS_MAX_OUTPUT_TOKENS (8192); it is "sometimes"',
        ].join('\n'),
      ),
    );
    // A required key that is missing is said, and what comes after it still checked.
    expect(() =>
      loadServerConfig({ env: { AALIS_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://exa mple' } }),
    ).toThrow(
      new ConfigError(
        [
          'OPENAI_BASE_URL must be a URL; it is "http://exa mple"',
          'OPENAI_API_KEY is required when AALIS_PROVIDER is openai',
        ].join('\n'),
      ),
    );
  });

  test('a cluster needs one signing key for all its instances: AALIS_AUTH_SECRET', () => {
    expect(() => loadConfig({ AALIS_REDIS_URL: 'redis://127.0.0.1:6379' })).toThrow(
      new ConfigError(
        'AALIS_REDIS_URL: the instances of a cluster must share one signing key: set AALIS_AUTH_SECRET (openssl rand -base64 32), the same on every instance',
      ),
    );
    const secret = 'a-cluster-secret-of-at-least-32-bytes!!';
    expect(
      loadConfig({ AALIS_REDIS_URL: 'redis://127.0.0.1:6379', AALIS_AUTH_SECRET: secret }).redisUrl,
    ).toBe('redis://127.0.0.1:6379');
  });

  test('in the environment: each variable, each entry of a list', () => {
    expect(() =>
      loadConfig({
        PORT: 'x',
        LOG_LEVEL: 'loud',
        AALIS_ALLOWED_ORIGINS: 'a,https://ok.example,b',
        AALIS_VISITOR_TURNS_PER_HOUR: '-1',
        AALIS_IP_MAX_CONNECTIONS: 'z',
        AALIS_REDIS_URL: 'http://x',
        AALIS_IMAGE_MAX_COUNT: '99',
        AALIS_VISION: 'maybe',
      }),
    ).toThrow(
      new ConfigError(
        [
          'PORT must be a number from 0 to 65535; it is "x"',
          'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; it is "loud"',
          'AALIS_ALLOWED_ORIGINS: "a" is not an origin like https://shop.example.com (no path), or https://*.example.com for its subdomains',
          'AALIS_ALLOWED_ORIGINS: "b" is not an origin like https://shop.example.com (no path), or https://*.example.com for its subdomains',
          'AALIS_VISITOR_TURNS_PER_HOUR must be a whole number (0 for no limit); it is "-1"',
          'AALIS_IP_MAX_CONNECTIONS must be a whole number (0 for no limit); it is "z"',
          'AALIS_REDIS_URL: expected a URL starting redis:// or rediss://',
          'AALIS_IMAGE_MAX_COUNT must be a whole number from 1 to 16; it is "99"',
          'AALIS_VISION must be on or off; it is "maybe"',
        ].join('\n'),
      ),
    );
  });
});
