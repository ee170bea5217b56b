/**
 * `GET /mcp-apps?server=<name>&uri=<ui://...>`: the page of an MCP App, for the widget's
 * `<iframe sandbox="allow-scripts">` in the tool's card. Only a page one of that server's
 * tools declares is served. Its Content-Security-Policy is built from the domains the
 * resource declares (`_meta.ui.csp`) and nothing more, and carries `sandbox allow-scripts`
 * itself: even opened on its own, outside the widget's frame, the page runs in an opaque
 * origin, with no access to this server's cookies or storage. It may be framed only by the
 * pages allowed to open the chat.
 */
import type { FastifyInstance } from 'fastify';
import type { AppResource } from '../tools/mcp/mcp-apps.js';
import type { RouteHooks } from './http-routes.js';

export const MCP_APPS_PATH = '/mcp-apps';

/** What the route needs of the MCP servers' apps (McpApps). */
export interface AppPages {
  resource(serverName: string, uri: string): Promise<AppResource | undefined>;
}

export interface McpAppRoutesOptions {
  apps: AppPages;
  hooks: RouteHooks;
  /** The origins allowed to open the chat (`*` any): only their pages may frame an app. */
  allowedOrigins: readonly string[];
}

export function registerMcpAppRoutes(app: FastifyInstance, options: McpAppRoutesOptions): void {
  const { apps, hooks, allowedOrigins } = options;
  app.get<{ Querystring: { server?: unknown; uri?: unknown } }>(
    MCP_APPS_PATH,
    { onRequest: hooks.guarded },
    async (request, reply) => {
      const { server, uri } = request.query;
      if (typeof server !== 'string' || typeof uri !== 'string' || !uri.startsWith('ui://'))
        return reply.code(400).type('text/plain; charset=utf-8').send('server and a ui:// uri are needed\n');
      const page = await apps.resource(server, uri);
      if (!page) return reply.code(404).type('text/plain; charset=utf-8').send('no such app\n');
      return reply
        .headers({
          'content-security-policy': appPolicy(page, allowedOrigins),
          // A page embedded across origins (the widget on the site's own pages).
          'cross-origin-resource-policy': 'cross-origin',
          // Read again after a server restart, not kept for long.
          'cache-control': 'private, max-age=60',
        })
        .type('text/html; charset=utf-8')
        .send(page.html);
    },
  );
}

/** The app's policy: its own inline code, the domains it declared, nothing else. */
export function appPolicy(page: AppResource, allowedOrigins: readonly string[]): string {
  const { connectDomains, resourceDomains, frameDomains } = page.csp;
  const from = (sources: string[], fallback: string) => (sources.length ? sources.join(' ') : fallback);
  const ancestors = allowedOrigins.includes('*') ? '*' : ["'self'", ...allowedOrigins].join(' ');
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${from(resourceDomains, '')}`.trim(),
    `style-src 'unsafe-inline' ${from(resourceDomains, '')}`.trim(),
    `img-src data: blob: ${from(resourceDomains, '')}`.trim(),
    `font-src data: ${from(resourceDomains, '')}`.trim(),
    `media-src data: blob: ${from(resourceDomains, '')}`.trim(),
    `connect-src ${from(connectDomains, "'none'")}`,
    `frame-src ${from(frameDomains, "'none'")}`,
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${ancestors}`,
    'sandbox allow-scripts',
  ].join('; ');
}
