/**
 * Secrets from files (`NAME_FILE`), through the real `aalis-server` (built): the secret
 * works (a token signed with it is accepted, a provider key reaches the provider, `--check`
 * masks it) while the process's own environment, which `/proc/<pid>/environ` shows to
 * every process of its user, never holds it. Setting both `NAME` and `NAME_FILE`, and a
 * file that cannot be read, are one line each and exit 2.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, test } from 'vitest';
import { SECRET_VARIABLES, withSecretFiles } from '../src/config/secret-files.js';
import { AALIS_SERVER_BIN, startCli } from './cli-harness.js';
import { startFakeUpstream, textAnswer } from './fake-upstream.js';
import { TestClient } from './ws-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'aalis-secret-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
/** A file holding `content`, readable by its owner only, as a secret should be. */
function secretFile(content: string): string {
  const path = join(dir, `secret-${++count}`);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

function run(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [AALIS_SERVER_BIN, ...args], {
      env: { PATH: process.env.PATH!, HOME: dir, ...env },
      cwd: dir,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

const sign = (secret: string) =>
  new SignJWT({ sub: 'alice' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(secret));

// Each test starts the real command: slow on a busy machine.
const slow = { timeout: 30_000 };
const base = { AALIS_PROVIDER: 'demo', AALIS_DATA_DIR: ':memory:', PORT: '0', LOG_LEVEL: 'warn' };

describe('a secret from a file works, and the environment never holds it', slow, () => {
  test('AALIS_AUTH_SECRET_FILE: identity is on with that secret; /proc/<pid>/environ has only the path', async () => {
    const secret = 'auth-secret-from-a-file-0123456789abcdef';
    const path = secretFile(`${secret}\n`);
    const cli = await startCli({ ...base, AALIS_AUTH: 'required', AALIS_AUTH_SECRET_FILE: path }, dir);
    try {
      const ws = `${cli.base.replace('http', 'ws')}/ws`;
      const signed = await TestClient.open(ws);
      // Signed with the file's content, its newline trimmed: accepted.
      expect(await signed.hello(undefined, await sign(secret))).toMatchObject({ type: 'ready' });
      signed.socket.close();
      const forged = await TestClient.open(ws);
      forged.send({ type: 'hello', protocol: 1, token: await sign(`${secret}\n`) });
      expect((await forged.closed).code).toBe(4401);

      // What a process of the same user (an MCP server it started) can read of it.
      const environ = readFileSync(`/proc/${cli.child.pid}/environ`, 'utf8').split('\0');
      expect(environ).toContain(`AALIS_AUTH_SECRET_FILE=${path}`);
      expect(environ.join('\n')).not.toContain(secret);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  test("a provider's key from a file reaches the provider", async () => {
    const upstream = await startFakeUpstream([{ body: textAnswer('Hello.') }]);
    const key = 'sk-from-a-file-4242';
    const cli = await startCli(
      {
        ...base,
        AALIS_PROVIDER: 'openai',
        OPENAI_API_KEY_FILE: secretFile(`${key}\r\n`),
        OPENAI_BASE_URL: `${upstream.url}/v1`,
      },
      dir,
    );
    try {
      const client = await TestClient.open(`${cli.base.replace('http', 'ws')}/ws`);
      await client.hello();
      client.send({ type: 'send', text: 'hello' });
      expect((await client.turnEnd()).message.status).toBe('complete');
      client.socket.close();
      expect(upstream.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
      expect(readFileSync(`/proc/${cli.child.pid}/environ`, 'utf8')).not.toContain(key);
    } finally {
      cli.child.kill('SIGKILL');
      await upstream.close();
    }
  });

  test('--check sees it, masked; a file\'s "${AALIS_METRICS_TOKEN}" reads it too', async () => {
    const secret = 'check-secret-from-a-file-0123456789abcdef';
    const token = 'metrics-token-from-a-file';
    const config = join(dir, 'check.json');
    writeFileSync(config, JSON.stringify({ metricsToken: '${AALIS_METRICS_TOKEN}' }));
    const { code, out, err } = await run(['--config', config, '--check'], {
      AALIS_PROVIDER: 'demo',
      AALIS_AUTH_SECRET_FILE: secretFile(secret),
      AALIS_METRICS_TOKEN_FILE: secretFile(`${token}\n`),
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    const resolved = JSON.parse(out.slice(out.indexOf('{'), out.indexOf('\n}\n') + 2));
    expect(resolved).toMatchObject({ auth: { secret: '***' }, metricsToken: '***' });
    expect(out).not.toContain(secret);
    expect(out).not.toContain(token);
  });
});

describe(
  'a mistake is one line and exit 2, naming the variable and the path, never the content',
  slow,
  () => {
    const missing = join(dir, 'no-such-secret');
    const both = 'AALIS_AUTH_SECRET and AALIS_AUTH_SECRET_FILE are both set: set only one of them';
    test.concurrent.each([
      [{ AALIS_AUTH_SECRET: 'x'.repeat(40), AALIS_AUTH_SECRET_FILE: 'set-later' }, [both]],
      [
        { AALIS_AUTH_SECRET_FILE: missing },
        [`AALIS_AUTH_SECRET_FILE: ${missing} cannot be read (ENOENT: no such file or directory)`],
      ],
      [{ AALIS_TOKEN_FILE: 'empty' }, ['AALIS_TOKEN_FILE: {empty} is empty']],
      [
        // Every one is said, not only the first.
        { OPENAI_API_KEY: 'sk-in-env', OPENAI_API_KEY_FILE: 'set-later', AALIS_METRICS_TOKEN_FILE: missing },
        [
          'OPENAI_API_KEY and OPENAI_API_KEY_FILE are both set: set only one of them',
          `AALIS_METRICS_TOKEN_FILE: ${missing} cannot be read (ENOENT: no such file or directory)`,
        ],
      ],
    ])('%j', async (given, lines) => {
      const empty = secretFile('\n');
      const env = Object.fromEntries(
        Object.entries(given).map(([name, value]) => [
          name,
          value === 'set-later' ? secretFile('a-secret-in-a-file') : value === 'empty' ? empty : value,
        ]),
      );
      for (const args of [['--check'], []]) {
        const { code, out, err } = await run(args, { AALIS_PROVIDER: 'demo', ...env });
        expect(code).toBe(2);
        expect(out).toBe('');
        expect(err).toBe(lines.map((line) => `aalis-server: ${line.replace('{empty}', empty)}\n`).join(''));
        expect(err).not.toContain('a-secret-in-a-file');
      }
    });
  },
);

describe('the variables, and the copy', () => {
  test('every secret setting, every provider key and the named secrets may come from a file', () => {
    expect(SECRET_VARIABLES).toEqual(
      expect.arrayContaining([
        'OPENAI_API_KEY',
        'ANTHROPIC_API_KEY',
        'DEEPSEEK_API_KEY',
        'AALIS_TOKEN',
        'AALIS_AUTH_SECRET',
        'AALIS_METRICS_TOKEN',
        'AALIS_ADMIN_TOKEN',
        'AALIS_CHALLENGE_SECRET',
        'AALIS_DATABASE_URL',
        'AALIS_REDIS_URL',
      ]),
    );
    expect(SECRET_VARIABLES).not.toContain('PORT');
  });

  test('only the copy holds the value; only newlines at the end are trimmed', () => {
    const path = secretFile(' spaced secret \n\n');
    const env = { AALIS_ADMIN_TOKEN_FILE: path, PORT_FILE: path };
    const resolved = withSecretFiles(env);
    expect(resolved.AALIS_ADMIN_TOKEN).toBe(' spaced secret ');
    // Not a secret: PORT_FILE is nobody's business here.
    expect(resolved.PORT).toBeUndefined();
    expect(env).toEqual({ AALIS_ADMIN_TOKEN_FILE: path, PORT_FILE: path });
  });

  test('a file too large to be a secret is a mistake', () => {
    const path = secretFile('x'.repeat(64 * 1024 + 1));
    expect(() => withSecretFiles({ AALIS_TOKEN_FILE: path })).toThrow(
      `AALIS_TOKEN_FILE: ${path} is larger than 64 KiB: is it the right file?`,
    );
  });

  test('a path that names no readable file is said so', () => {
    // Root reads any file whatever its mode: a directory is what nobody can read as one.
    expect(() => withSecretFiles({ AALIS_TOKEN_FILE: dir })).toThrow(
      `AALIS_TOKEN_FILE: ${dir} cannot be read (EISDIR: illegal operation on a directory)`,
    );
  });
});
