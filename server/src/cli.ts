/**
 * `aalis-server`: runs the protocol server configured by environment variables and,
 * optionally, a configuration file (`--config`, or `AALIS_CONFIG`; a variable that is set
 * wins over the file); a secret's variable may name a file that holds it instead
 * (`NAME_FILE`). `--check` validates and describes the configuration, then exits. Bad
 * configuration prints one line and exits 2.
 */
import { formatSeconds } from './util/format-seconds.js';
import { maskUrl } from './util/secrets.js';
import type { AalisServer } from './app.js';
import { ConfigError, loadServerConfig, type LoadedConfig } from './config/server-config.js';
import { CONFIG_SCHEMA_FILE } from './config/file-schema.js';
import { environmentHelp } from './config/environment-help.js';
import { SETTINGS } from './config/settings/index.js';
import { listenProblem } from './config/startup-problems.js';
import { withSecretFiles } from './config/secret-files.js';
import { describeHosts } from './transport/host-guard.js';
import { ADMIN_COMMANDS, runAdminCommand } from './admin/pause-command.js';

const HELP = `aalis-server: the Aalis chat protocol server

Usage: aalis-server [--config FILE] [--check] [--help]
       aalis-server pause|resume|status [--url URL] [--token TOKEN] [--reason TEXT]

  --config FILE   read the configuration file FILE (JSON); AALIS_CONFIG=FILE does the same.
                  Each variable below that is set wins over the file for what it names;
                  "\${VAR}" and "\${VAR:-default}" in its strings read the environment.
                  Its JSON Schema, for editors ("$schema"): ${CONFIG_SCHEMA_FILE}
                  (in the package: @aalis/server/config.schema.json)
  --check         validate the configuration, print it resolved (secrets masked) with each
                  MCP server's tools, and exit: 0 valid, 1 an MCP server failed, 2 invalid
  --help, -h      this text

Configured by environment variables:
${environmentHelp()}
Each secret above (keys, tokens, secrets, service URLs) may come from a file: NAME_FILE=/run/secrets/name.

The file also sets what only it can: ${SETTINGS.filter((s) => s.key && !s.variables.length)
  .map((s) => s.key)
  .join(', ')}
(see the server's README, "Configuration file").

Serves GET /ws (the protocol), GET /healthz (liveness), GET /healthz/ready (readiness:
503 while draining), GET /healthz/details (loopback or AALIS_METRICS_TOKEN),
GET /aalis-chat.js (the widget) and GET /origin-check, only to the host names in
AALIS_PUBLIC_HOSTS and loopback names (the two health probes to any).

SIGTERM or SIGINT drains: readiness fails at once, new connections and turns are
refused, running turns finish for up to AALIS_DRAIN_MS, then the server exits; with
AALIS_REDIS_URL its tabs move to another instance at once (close code 1012). A second
signal stops the running turns at once.`;

interface Arguments {
  help: boolean;
  check: boolean;
  configPath?: string;
}

/** The command line; a mistake in it is a ConfigError (one line, exit 2). */
function parseArguments(argv: readonly string[]): Arguments {
  const parsed: Arguments = { help: false, check: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') parsed.help = true;
    else if (arg === '--check') parsed.check = true;
    else if (arg === '--config' || arg.startsWith('--config=')) {
      const value = arg === '--config' ? argv[++i] : arg.slice('--config='.length);
      if (!value || value.startsWith('--'))
        throw new ConfigError('--config needs the path of a configuration file: --config aalis.config.json');
      parsed.configPath = value;
    } else throw new ConfigError(`unknown argument "${arg}" (aalis-server --help lists them)`);
  }
  return parsed;
}

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  // The owner's switch of a running server (its own small client): `aalis-server pause ...`.
  const command = ADMIN_COMMANDS.find((name) => name === argv[0]);
  if (command) {
    try {
      return await runAdminCommand(command, argv.slice(1), withSecretFiles(env));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(`aalis-server ${command}: ${error.message}`);
      return 2;
    }
  }
  let args: Arguments;
  let loaded: LoadedConfig;
  try {
    args = parseArguments(argv);
    if (args.help) {
      console.log(HELP);
      return 0;
    }
    // Secrets named by NAME_FILE are read into this copy only, never into process.env:
    // /proc/<pid>/environ shows the process's environment to every process of its user.
    loaded = loadServerConfig({
      ...(args.configPath ? { configPath: args.configPath } : {}),
      env: withSecretFiles(env),
    });
    // The server and the MCP client load only when used: --help and mistakes answer at once.
    if (args.check) return await (await import('./config/check.js')).checkConfiguration(loaded);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Every mistake found, a line each.
    for (const line of error.message.split('\n')) console.error(`aalis-server: ${line}`);
    return 2;
  }
  const { config, file } = loaded;
  const { createAalisServer } = await import('./app.js');
  let server;
  try {
    server = await createAalisServer(config, loaded.env);
    await server.app.listen({ port: config.port, host: config.host });
    const answers = server.agent
      ? `agent ${server.agent.protocol} at ${maskUrl(server.agent.url)}`
      : `provider ${server.provider!.name}, model ${server.provider!.model}`;
    const history = config.databaseUrl
      ? `history in PostgreSQL at ${maskUrl(config.databaseUrl)}`
      : config.dataDir
        ? `history in ${config.dataDir}`
        : `history in memory (AALIS_DATA_DIR=:memory:): lost on restart${config.auth?.secret ? '' : ", and so are visitors' keys"}`;
    const where = config.redisUrl
      ? `${history}, live sessions shared through ${maskUrl(config.redisUrl)}`
      : history;
    const configured = file ? `, configured by ${file.absolutePath}` : '';
    console.log(
      `aalis-server: listening on http://${config.host}:${listeningPort(server, config.port)} (${answers}, ${where})${configured}; ` +
        `answers to ${describeHosts(config.publicHosts)}`,
    );
  } catch (error) {
    const problem = error instanceof ConfigError ? error.message : listenProblem(error, config);
    if (!problem) throw error;
    console.error(`aalis-server: ${problem}`);
    await server?.close();
    return 2;
  }
  handleSignals(server, config.drainMs);
  if (!(await server.widgetBuilt())) {
    console.log(
      'aalis-server: the widget is not built, so /aalis-chat.js answers 404: run `npm run build -w @aalis/widget`',
    );
  }
  return -1;
}

/**
 * SIGTERM or SIGINT drains, then closes and exits 0: the load balancer sees readiness
 * fail at once and sends no one new, running turns finish (up to `drainMs`), and the MCP
 * servers' processes are stopped with the server. A second signal ends the drain at once;
 * a third exits without waiting for anything (what is left then is a stuck close).
 */
function handleSignals(server: AalisServer, drainMs: number): void {
  let signals = 0;
  const stop = async (signal: string) => {
    if (drainMs > 0)
      console.log(
        `aalis-server: ${signal}, draining for up to ${formatSeconds(drainMs)}: new connections and turns refused, /healthz/ready 503, running turns finish (${signal} again stops them now)`,
      );
    else console.log(`aalis-server: ${signal}, shutting down`);
    await server.drain();
    await server.close();
    process.exit(0);
  };
  const heard = (signal: string) => {
    signals++;
    if (signals === 1) {
      stop(signal).catch((error: unknown) => {
        console.error('aalis-server: shutting down failed:', error);
        process.exit(1);
      });
    } else if (signals === 2) {
      console.log(`aalis-server: ${signal} again, stopping the running turns now`);
      server.endDrain();
    } else process.exit(1);
  };
  process.on('SIGINT', () => heard('SIGINT'));
  process.on('SIGTERM', () => heard('SIGTERM'));
}

/** The port really listened on: PORT=0 asks the system for a free one. */
function listeningPort(server: { app: { server: { address(): unknown } } }, configured: number): number {
  const address = server.app.server.address();
  return typeof address === 'object' && address !== null ? (address as { port: number }).port : configured;
}
