/**
 * `aalis-server`: runs the protocol server configured by environment variables.
 * Bad configuration prints one line and exits 2.
 */
import { ConfigError, ENVIRONMENT, loadConfig } from './config.js';
import { createAalisServer } from './app.js';
import { listenProblem } from './startup-problems.js';
import { describeHosts } from './transport/host-guard.js';

const HELP = `aalis-server: the Aalis chat protocol server

Usage: aalis-server [--help]

Configured by environment variables:
${ENVIRONMENT.map(([name, fallback, meaning]) => `  ${name.padEnd(22)} ${meaning}${fallback ? ` (default: ${fallback})` : ''}`).join('\n')}

Serves GET /ws (the protocol), GET /healthz, GET /healthz/details (loopback or
AALIS_METRICS_TOKEN), GET /aalis-chat.js (the widget) and GET /origin-check, only to
the host names in AALIS_PUBLIC_HOSTS and loopback names.`;

export async function main(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(HELP);
    return 0;
  }
  let server;
  let config;
  try {
    config = loadConfig(env);
    server = await createAalisServer(config, env);
    await server.app.listen({ port: config.port, host: config.host });
    const { name, model } = server.provider;
    const where = config.dataDir
      ? `history in ${config.dataDir}`
      : 'history in memory (AALIS_DATA_DIR=:memory:): lost on restart';
    console.log(
      `aalis-server: listening on http://${config.host}:${listeningPort(server, config.port)} (provider ${name}, model ${model}, ${where}); ` +
        `answers to ${describeHosts(config.publicHosts)}`,
    );
  } catch (error) {
    const problem = error instanceof ConfigError ? error.message : config && listenProblem(error, config);
    if (!problem) throw error;
    console.error(`aalis-server: ${problem}`);
    await server?.close();
    return 2;
  }
  const stop = async (signal: string) => {
    console.log(`aalis-server: ${signal}, shutting down`);
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  if (!(await server.widgetBuilt())) {
    console.log(
      'aalis-server: the widget is not built, so /aalis-chat.js answers 404: run `npm run build -w @aalis/widget`',
    );
  }
  return -1;
}

/** The port really listened on: PORT=0 asks the system for a free one. */
function listeningPort(server: { app: { server: { address(): unknown } } }, configured: number): number {
  const address = server.app.server.address();
  return typeof address === 'object' && address !== null ? (address as { port: number }).port : configured;
}
