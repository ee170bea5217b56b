// Serves the examples from their own origin, http://127.0.0.1:EXAMPLES_PORT (5173 by
// default), pointing them at the chat server in AALIS_SERVER (http://127.0.0.1:8787 by
// default). How to run them, and which origin the chat server must allow: README.md.
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleClient } from './ag-ui/build-client.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const vue = createRequire(import.meta.url).resolve('vue/dist/vue.esm-browser.prod.js');
const DEFAULT_SERVER = 'http://127.0.0.1:8787';

const routes = {
  '/': { file: `${here}plain-html/index.html`, type: 'text/html; charset=utf-8', rewrite: true },
  '/vue/': { file: `${here}vue/index.html`, type: 'text/html; charset=utf-8', rewrite: true },
  '/launcher/': { file: `${here}launcher/index.html`, type: 'text/html; charset=utf-8', rewrite: true },
  '/ag-ui/': { file: `${here}ag-ui/index.html`, type: 'text/html; charset=utf-8', rewrite: true },
  '/ag-ui/httpagent.html': {
    file: `${here}ag-ui/httpagent.html`,
    type: 'text/html; charset=utf-8',
    rewrite: true,
  },
  // @ag-ui/client bundled with the page's code on request (esbuild, offline): no build step.
  '/ag-ui/httpagent-client.js': { build: bundleClient, type: 'text/javascript; charset=utf-8' },
  '/vendor/vue.esm-browser.prod.js': { file: vue, type: 'text/javascript; charset=utf-8' },
};

/** Starts the examples server; resolves with its URL. */
export function serveExamples({ port = 5173, host = '127.0.0.1', chatServer = DEFAULT_SERVER } = {}) {
  const server = createServer(async (req, res) => {
    const route = routes[new URL(req.url ?? '/', 'http://x').pathname];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let body = route.build ? await route.build() : await readFile(route.file, 'utf8');
    if (route.rewrite) body = body.replaceAll(DEFAULT_SERVER, chatServer);
    res.writeHead(200, { 'content-type': route.type }).end(body);
  });
  return new Promise((resolve) =>
    server.listen(port, host, () => {
      const address = server.address();
      resolve({ url: `http://${host}:${address.port}`, close: () => new Promise((r) => server.close(r)) });
    }),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { url } = await serveExamples({
    port: Number(process.env.EXAMPLES_PORT ?? 5173),
    chatServer: process.env.AALIS_SERVER ?? DEFAULT_SERVER,
  });
  console.log(
    `examples: ${url}/ (plain HTML), ${url}/vue/ (Vue), ${url}/launcher/, ${url}/ag-ui/ and ${url}/ag-ui/httpagent.html, using the chat server at ${process.env.AALIS_SERVER ?? DEFAULT_SERVER}`,
  );
}
