// What signed visitor identity costs a hello: connections that each open a socket, say
// hello and wait for ready, against a server with identity off and one with it required
// (every hello carrying an HS256 token that the server verifies, and the session binding
// and budgets counters of a SQLite history). Both servers run in this process, on the same
// build, alternating; the figure is the ratio of time per hello, median of the rounds.
//   node bench/identity-cost.mjs [hellos per round] [rounds]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { median, root, ws as WebSocket } from './lib.mjs';

const server = await import(`${root}server/dist/index.js`);
const require = createRequire(`${root}server/package.json`);
const Fastify = require('fastify');
const { SignJWT } = await import(require.resolve('jose'));

const SECRET = 'a-bench-secret-of-at-least-32-bytes-long';
const HELLOS = Number(process.argv[2] ?? 500);
const ROUNDS = Number(process.argv[3] ?? 3);

async function start(identity) {
  const dir = mkdtempSync(join(tmpdir(), 'aalis-bench-identity-'));
  const app = Fastify({ logger: false });
  await app.register(server.aalisChat, {
    provider: new server.DemoProvider({ speed: 0 }),
    model: 'demo',
    store: new server.SqliteHistoryStore(dir),
    ...(identity ? { auth: { mode: 'required', secret: SECRET } } : {}),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `ws://127.0.0.1:${app.server.address().port}/ws`;
  return { url, close: async () => (await app.close(), rmSync(dir, { recursive: true, force: true })) };
}

const token = await new SignJWT({ sub: 'bench-visitor' })
  .setProtectedHeader({ alg: 'HS256' })
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(SECRET));

function helloOnce(url, withToken) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'hello', protocol: 1, ...(withToken ? { token } : {}) })),
    );
    socket.on('message', (data) => {
      if (JSON.parse(data.toString()).type !== 'ready') return;
      socket.close();
      resolve();
    });
    socket.on('error', reject);
    socket.on('close', (code) => code !== 1005 && code !== 1000 && reject(new Error(`closed ${code}`)));
  });
}

async function round(identity) {
  const target = await start(identity);
  for (let i = 0; i < 50; i++) await helloOnce(target.url, identity); // warm-up
  const started = performance.now();
  for (let i = 0; i < HELLOS; i++) await helloOnce(target.url, identity);
  const msPerHello = (performance.now() - started) / HELLOS;
  await target.close();
  return msPerHello;
}

const runs = { off: [], on: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const mode of r % 2 ? ['on', 'off'] : ['off', 'on']) runs[mode].push(await round(mode === 'on'));
}
const off = median(runs.off);
const on = median(runs.on);
console.log(
  JSON.stringify(
    { hellos: HELLOS, rounds: ROUNDS, msPerHelloOff: off, msPerHelloOn: on, ratio: on / off },
    null,
    2,
  ),
);
