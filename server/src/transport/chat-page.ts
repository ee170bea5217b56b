/**
 * The page at `/`: somewhere to chat for whoever opens the server, whatever started it
 * (`aalis-server`, with or without a configuration file). It holds one `<aalis-chat>`
 * wired to this server, which shows the configured welcome and starters (they come in
 * `ready`), and says how to embed the chat elsewhere. `AALIS_PAGE=off` leaves it out.
 *
 * Nothing inline: the page's style is its own file (`/aalis-page.css`), so the policy
 * allows only the server's own scripts, styles and socket (pagePolicy).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const PAGE_PATH = '/';
export const PAGE_STYLE_PATH = '/aalis-page.css';

/**
 * The policy of a page this server serves: its own scripts, styles, socket and app frames,
 * nothing inline, nothing else. The widget's styles are constructed stylesheets
 * (`adoptedStyleSheets`), which `style-src` does not govern. The socket is named with its
 * scheme because older Safari does not count ws: as 'self'; `host` has passed the
 * server's host check, so it is one of the server's own names.
 */
export function pagePolicy(host: string | undefined, challengeOrigins: readonly string[] = []): string {
  // A bot challenge's provider (AALIS_CHALLENGE) draws its check with its own script, in
  // its own frame: allowed only when one is configured.
  const extra = challengeOrigins.length ? ` ${challengeOrigins.join(' ')}` : '';
  return [
    "default-src 'none'",
    `script-src 'self'${extra}`,
    `style-src 'self'${extra}`,
    (host ? `connect-src 'self' ws://${host} wss://${host}` : "connect-src 'self'") + extra,
    // 'self' for the MCP Apps a tool's card shows: /mcp-apps on this server, sandboxed by
    // its own policy.
    `frame-src 'self'${extra}`,
    // blob: for the thumbnails of images attached before they are sent.
    "img-src 'self' data: blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A page's headers: its policy, and framing refused twice (X-Frame-Options for old browsers). */
export function setPageHeaders(
  request: FastifyRequest,
  reply: FastifyReply,
  challengeOrigins: readonly string[] = [],
): void {
  void reply.headers({
    'content-security-policy': pagePolicy(request.headers.host, challengeOrigins),
    'x-frame-options': 'DENY',
    'cache-control': 'no-cache',
  });
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page, for a visitor who reached the server as `origin` (its scheme and Host). */
export function chatPageHtml(origin: string): string {
  const snippet = `<script type="module" src="${origin}/aalis-chat.js"></script>\n<aalis-chat server="${origin}"></aalis-chat>`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Aalis Chat</title>
    <link rel="stylesheet" href="${PAGE_STYLE_PATH}" />
    <link rel="icon" href="data:," />
    <script type="module" src="/aalis-chat.js"></script>
  </head>
  <body>
    <main>
      <aalis-chat></aalis-chat>
    </main>
    <footer>
      <p>This page is served by <strong>aalis-server</strong> (<code>AALIS_PAGE=off</code> turns it off). To put the chat on your own site, add:</p>
      <pre>${escapeHtml(snippet)}</pre>
      <p>and allow your site's origin with <code>AALIS_ALLOWED_ORIGINS</code>.</p>
    </footer>
  </body>
</html>
`;
}

/**
 * The chat fills the window on a phone and sits in a centred column on a wide screen;
 * the footer below it is reached by scrolling, so the composer is always on the first screen.
 */
export const CHAT_PAGE_CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; background: Canvas; color: CanvasText; }
main { box-sizing: border-box; height: 100vh; height: 100dvh; padding: 16px; display: flex; justify-content: center; }
aalis-chat { display: block; width: 100%; max-width: 760px; height: 100%; }
footer { max-width: 760px; margin: 0 auto; padding: 0 16px 32px; font-size: 14px; line-height: 1.5; }
pre { white-space: pre; overflow-x: auto; background: color-mix(in srgb, CanvasText 6%, Canvas); padding: 12px; border-radius: 6px; }
@media (max-width: 480px) { main { padding: 8px; } }
`;

/** Registers `/` and its style on `app` (a whole server: the host guard is already on every route). */
export function registerChatPage(app: FastifyInstance, challengeOrigins: readonly string[] = []): void {
  app.get(PAGE_PATH, (request, reply) => {
    setPageHeaders(request, reply, challengeOrigins);
    const origin = `${request.protocol}://${request.headers.host ?? request.hostname}`;
    return reply.type('text/html; charset=utf-8').send(chatPageHtml(origin));
  });
  app.get(PAGE_STYLE_PATH, (_request, reply) =>
    reply.header('cache-control', 'no-cache').type('text/css; charset=utf-8').send(CHAT_PAGE_CSS),
  );
}
