// An attacker's probe of a public embed (issue 31), run against the real CLI with its
// defaults (AALIS_AUTH_SECRET set, the demo model, a fresh data folder): how many turns
// can one address, and one IPv6 /64, start by dropping its anonymous key before every
// turn? And with a bot challenge configured, how many turns does a script without a
// browser get?
//
//   node bench/churn-probe.mjs [identities]      # default 300
//
// Each identity is a new socket whose hello carries no key (a fresh anonymous visitor),
// sending one message; the probe counts answers and refusals by code and limit. The
// server trusts loopback as a proxy so that X-Forwarded-For names the client: the probe
// spreads each run over the addresses of one /64, each spelled differently.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { root } from './lib.mjs';

const identities = Number(process.argv[2] ?? 300);
const BIN = join(root, 'server/bin/aalis-server.js');

/** Starts aalis-server with `env` over the probe's defaults; resolves with its ws:// URL and a stop function. */
async function startServer(env) {
  const dataDir = mkdtempSync(join(tmpdir(), 'aalis-probe-'));
  const child = spawn(process.execPath, [BIN], {
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      AALIS_PROVIDER: 'demo',
      AALIS_DATA_DIR: dataDir,
      AALIS_AUTH_SECRET: 'a-secret-of-at-least-32-bytes-for-the-probe',
      AALIS_TRUST_PROXY: 'loopback',
      LOG_LEVEL: 'error',
      ...env,
    },
  });
  let output = '';
  const base = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+?)[ ;]/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`aalis-server exited ${code}: ${output}`)));
  });
  return {
    url: `${base.replace(/^http/, 'ws')}/ws`,
    stop: () => {
      child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One fresh identity from `address`: its one message's outcome (`answer`, or the refusal's code and limit). */
function churnOnce(url, address) {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers: { 'x-forwarded-for': address } });
    const done = (outcome) => {
      socket.terminate();
      resolve(outcome);
    };
    socket.once('unexpected-response', (_request, response) => done(`http ${response.statusCode}`));
    socket.once('error', () => done('socket error'));
    socket.once('open', () => socket.send(JSON.stringify({ type: 'hello', protocol: 1 })));
    socket.on('message', (data) => {
      const frame = JSON.parse(data.toString());
      if (frame.type === 'ready')
        socket.send(JSON.stringify({ type: 'send', text: 'What can you do?', clientMessageId: 'probe' }));
      else if (frame.type === 'message') done('answer');
      else if (frame.type === 'error' && frame.clientMessageId === 'probe')
        done(frame.limit ? `${frame.code} (${frame.limit})` : frame.code);
    });
  });
}

/** The address of identity `i`: one /64, each spelled its own way. */
const spellings = [
  (i) => `2001:db8:0:0:0:0:0:${(i + 1).toString(16)}`,
  (i) => `2001:DB8::${(i + 1).toString(16)}`,
  (i) => `2001:0db8:0000:0000:${(i % 65_535).toString(16)}::1`,
];

async function probe(name, env) {
  const server = await startServer(env);
  const outcomes = {};
  const started = Date.now();
  try {
    for (let i = 0; i < identities; i++) {
      const outcome = await churnOnce(server.url, spellings[i % spellings.length](i));
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    }
  } finally {
    server.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(`${name}: ${identities} fresh identities from one /64 in ${seconds.toFixed(1)} s`);
  for (const [outcome, count] of Object.entries(outcomes).sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(count).padStart(5)}  ${outcome}`);
  return outcomes;
}

// The sends-per-minute limit (30) would stop a fast probe first and hide the budgets: it
// is lifted here, as an attacker would by spreading sends over the hour.
const lifted = { AALIS_IP_SENDS_PER_MINUTE: '0', AALIS_IP_CONNECTIONS_PER_MINUTE: '0' };
const defaults = await probe('defaults (AALIS_IP_TURNS_PER_HOUR=120)', lifted);
const challenged = await probe('with AALIS_CHALLENGE=turnstile (no browser, no token)', {
  ...lifted,
  AALIS_CHALLENGE: 'turnstile',
  AALIS_CHALLENGE_SECRET: 'unused',
  AALIS_CHALLENGE_SITE_KEY: 'unused',
});
console.log(
  `\nturns started: ${defaults.answer ?? 0} of ${identities} with the defaults (budget 120 per hour); ` +
    `${challenged.answer ?? 0} of ${identities} with a challenge`,
);
