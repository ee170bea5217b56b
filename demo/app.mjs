// The demo: the Aalis server (the real one, as `aalis-server` runs it) plus the demo page
// at `/`. `npm start` runs it; the end-to-end tests start it the same way.
import { readFile, readdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAalisServer, loadConfig } from '@aalis/server';

const publicDir = fileURLToPath(new URL('./public/', import.meta.url));
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Starts the demo; `env` configures it like `aalis-server` (PORT, AALIS_PROVIDER, keys...). */
export async function startDemo(env = process.env) {
  const config = loadConfig(env);
  const server = await createAalisServer(config, env);
  // Only the files that ship in public/ are served, by exact name.
  const files = new Set(await readdir(publicDir));
  server.app.get('/', (_request, reply) => send(reply, 'index.html'));
  server.app.get('/:file', (request, reply) => {
    const { file } = request.params;
    if (!files.has(file)) return reply.code(404).type('text/plain').send('not found');
    return send(reply, file);
  });
  await server.app.listen({ port: config.port, host: config.host });
  const address = server.app.server.address();
  const url = `http://${config.host}:${typeof address === 'object' && address ? address.port : config.port}`;
  return { ...server, url, config };
}

async function send(reply, file) {
  const body = await readFile(join(publicDir, file));
  return reply
    .type(TYPES[extname(file)] ?? 'application/octet-stream')
    .header('cache-control', 'no-cache')
    .send(body);
}
