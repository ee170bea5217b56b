/**
 * The owner's console page: `GET /admin`, an HTML shell holding `<aalis-console>`, and
 * `GET /admin/aalis-console.js`, the element's script (the widget package's
 * dist/aalis-console.js). The page is a shell only: what it shows comes from the console
 * API (`/admin/api/*`) once the owner has logged in, so the shell itself needs no login.
 *
 * Nothing inline, under the policy of the server's other pages (pagePolicy): its own
 * script and API only, never framed. Never stored by a cache either: it is the door to
 * every visitor's conversations.
 */
import { createRequire } from 'node:module';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { setPageHeaders } from '../transport/chat-page.js';
import { sendScript } from '../transport/script-reply.js';
import type { WidgetFile } from '../transport/widget-file.js';

export const CONSOLE_PATH = '/admin';
export const CONSOLE_SCRIPT_PATH = '/admin/aalis-console.js';

export interface ConsolePageOptions {
  /** The console's script (defaultConsoleFile(), wrapped). */
  consoleFile: WidgetFile;
  /** The host guard and the security headers, as every route of the plugin has them. */
  guarded: onRequestHookHandler[];
}

/** Where `npm run build -w @aalis/widget` puts the console's script, when the widget is installed. */
export function defaultConsoleFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@aalis/widget/aalis-console.js');
  } catch {
    return undefined;
  }
}

export const CONSOLE_PAGE_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <meta name="robots" content="noindex" />
    <title>Aalis console</title>
    <link rel="icon" href="data:," />
    <script type="module" src="${CONSOLE_SCRIPT_PATH}"></script>
  </head>
  <body>
    <aalis-console></aalis-console>
  </body>
</html>
`;

export function registerConsolePage(app: FastifyInstance, options: ConsolePageOptions): void {
  const { consoleFile, guarded } = options;
  app.get(CONSOLE_PATH, { onRequest: guarded }, (request, reply) => {
    setPageHeaders(request, reply);
    void reply.header('cache-control', 'no-store');
    return reply.type('text/html; charset=utf-8').send(CONSOLE_PAGE_HTML);
  });
  app.get(CONSOLE_SCRIPT_PATH, { onRequest: guarded }, async (request, reply) => {
    const asset = await consoleFile.load();
    if (!asset) {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build -w @aalis/widget` (npm start does it).');
    }
    // Always revalidated (a 304 by ETag): after an upgrade the console is the new one at once.
    return sendScript(request, reply, asset, 'no-cache');
  });
}
