// The demo: the Aalis server (the real one, as `aalis-server` runs it) plus the demo page
// at `/`. `npm start` runs it; the end-to-end tests start it the same way.
import { readFile, readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DemoProvider,
  challengeOrigins,
  createAalisServer,
  loadServerConfig,
  setPageHeaders,
} from '@aalis/server';

const publicDir = fileURLToPath(new URL('./public/', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * Starts the demo; `env` configures it like `aalis-server` (PORT, AALIS_PROVIDER, keys...,
 * and AALIS_CONFIG naming a configuration file).
 */
export async function startDemo(env = process.env) {
  const { config, env: resolved } = loadServerConfig({ env });
  // The demo page is this server's page: the plain one aalis-server serves stays off.
  const server = await createAalisServer({ ...config, page: false }, resolved);
  // A bot challenge (AALIS_CHALLENGE) draws its check with the provider's script and frame.
  const challenge = config.challenge ? challengeOrigins(config.challenge) : [];
  // Only the files that ship in public/ are served, by exact name.
  const files = new Set(await readdir(publicDir));
  server.app.get('/', (request, reply) => send(request, reply, 'index.html', challenge));
  // The scenario buttons come from the demo model's own list, whatever model answers.
  server.app.get('/scenarios.json', (request, reply) =>
    reply.header('cache-control', 'no-cache').send(DemoProvider.scenarios),
  );
  server.app.get('/:file', (request, reply) => {
    const { file } = request.params;
    if (!files.has(file)) return reply.code(404).type('text/plain').send('not found');
    return send(request, reply, file, challenge);
  });
  try {
    await server.app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Closed so that the history is released; the caller says what went wrong.
    await server.close();
    throw Object.assign(error, { config });
  }
  const address = server.app.server.address();
  // A wildcard listen address is not a name a browser can use, nor one the server answers to.
  const host = ['0.0.0.0', '::'].includes(config.host) ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${typeof address === 'object' && address ? address.port : config.port}`;
  return { ...server, url, config };
}

async function send(request, reply, file, challenge) {
  const body = await readFile(join(publicDir, file));
  // The policy of every page the server serves: its own scripts, styles and socket only.
  if (extname(file) === '.html') setPageHeaders(request, reply, challenge);
  return reply
    .type(TYPES[extname(file)] ?? 'application/octet-stream')
    .header('cache-control', 'no-cache')
    .send(body);
}
