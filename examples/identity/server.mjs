// A site's backend that signs visitor tokens for Aalis Chat: plain node:http and jose.
// It serves a page with <aalis-chat> whose tokenProvider fetches a token from this
// backend's own /token, signed with the secret the chat server shares
// (AALIS_AUTH_SECRET). How to run it next to the chat server: ../README.md.
//
//   AALIS_AUTH_SECRET=... node examples/identity/server.mjs   # http://127.0.0.1:5174
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { SignJWT } from 'jose';

const secret = process.env.AALIS_AUTH_SECRET ?? '';
if (Buffer.byteLength(secret) < 32) {
  console.error('examples/identity: set AALIS_AUTH_SECRET (at least 32 bytes), the same as the chat server');
  process.exit(2);
}
const key = new TextEncoder().encode(secret);
const port = Number(process.env.EXAMPLES_PORT ?? 5174);
const chatServer = process.env.AALIS_SERVER ?? 'http://127.0.0.1:8787';

/**
 * The few lines a backend needs: who the visitor is (your own login decides; here, one
 * made-up user per browser, from a cookie), signed for 15 minutes.
 */
async function mintToken(visitorId) {
  return new SignJWT({ name: 'Example visitor' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(visitorId)
    .setIssuedAt()
    .setExpirationTime('15m')
    .sign(key);
}

const page = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Aalis Chat: signed visitors</title>
    <link rel="icon" href="data:," />
    <style>body { font-family: system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; } aalis-chat { --aalis-height: 70vh; }</style>
  </head>
  <body>
    <h1>Signed visitors</h1>
    <p>The widget asks this page's backend for a token before every connect.</p>
    <script type="module">
      import '${chatServer}/aalis-chat.js';
      const chat = document.createElement('aalis-chat');
      chat.setAttribute('server', '${chatServer}');
      // Before the element is on the page, so that its first hello carries a token.
      chat.tokenProvider = async () => {
        const response = await fetch('/token', { method: 'POST' });
        if (!response.ok) throw new Error('/token answered ' + response.status);
        return response.text();
      };
      document.body.append(chat);
    </script>
  </body>
</html>
`;

const server = createServer(async (request, response) => {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  if (path === '/' && request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    return;
  }
  if (path === '/token' && request.method === 'POST') {
    const cookie = /(?:^|;\s*)visitor=([\w-]{1,64})/.exec(request.headers.cookie ?? '')?.[1];
    const visitorId = cookie ?? randomUUID();
    response.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'set-cookie': `visitor=${visitorId}; Path=/; HttpOnly; SameSite=Strict`,
    });
    response.end(await mintToken(visitorId));
    return;
  }
  response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
});

server.listen(port, '127.0.0.1', () => {
  console.log(`examples/identity: http://127.0.0.1:${port}/ (chat server ${chatServer})`);
});
