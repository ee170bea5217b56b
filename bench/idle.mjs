// What idle visitors cost: many connections that said hello and wait (a page open in a
// tab, no turn). The server alone on core 0; this process opens the connections, says
// hello on each, waits for every `ready`, then watches the server's memory and CPU over
// two heartbeats (the server pings every connection every 30 s, and its pongs come back).
//
//   node bench/idle.mjs [connections=10000] [windowSeconds=65]
//
// Reports the server's resident memory before and with the connections, per connection,
// and the share of a core it used while they were idle (heartbeats included).
import { readFileSync } from 'node:fs';
import { startAalis, ws } from './lib.mjs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** The process's resident memory, in KiB. */
function rssKiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line)[1]);
}

/** The process's CPU time so far (user + system), in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after "pid (comm) ".
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** Opens one connection and says hello; resolves with the socket once `ready` came. */
function idleVisitor(url) {
  return new Promise((resolve, reject) => {
    const socket = new ws(url, { perMessageDeflate: false });
    socket.once('open', () => socket.send(JSON.stringify({ type: 'hello', protocol: 1 })));
    socket.once('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === 'ready') resolve(socket);
      else reject(new Error(`expected ready, got ${frame.type}`));
    });
    socket.once('error', reject);
  });
}

export async function idleBench({ connections = 10_000, windowSeconds = 65 } = {}) {
  // No model is called: nobody sends a message.
  const server = await startAalis('http://127.0.0.1:9', { cpu: 0 });
  const pid = server.child.pid;
  const url = `ws://127.0.0.1:${server.port}/ws`;
  const rssBefore = rssKiB(pid);
  const sockets = [];
  const started = performance.now();
  // A few hundred at a time, as visitors arriving, not all in one instant.
  for (let opened = 0; opened < connections; opened += 250) {
    const batch = Math.min(250, connections - opened);
    sockets.push(...(await Promise.all(Array.from({ length: batch }, () => idleVisitor(url)))));
  }
  const connectSeconds = (performance.now() - started) / 1000;
  // Let the garbage of the connecting burst go before measuring what stays.
  await new Promise((r) => setTimeout(r, 5_000));
  let closedMeanwhile = 0;
  for (const socket of sockets) socket.once('close', () => closedMeanwhile++);
  const cpuStart = cpuMs(pid);
  const windowStart = performance.now();
  let rssPeak = rssKiB(pid);
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssKiB(pid))), 1_000);
  await new Promise((r) => setTimeout(r, windowSeconds * 1000));
  clearInterval(sampler);
  const idleCpuShare = (cpuMs(pid) - cpuStart) / (performance.now() - windowStart);
  const rssWith = rssKiB(pid);
  for (const socket of sockets) socket.terminate();
  server.child.kill();
  return {
    connections,
    connectSeconds,
    rssBeforeMiB: rssBefore / 1024,
    rssWithMiB: rssWith / 1024,
    rssPeakMiB: rssPeak / 1024,
    kibPerConnection: (rssWith - rssBefore) / connections,
    windowSeconds,
    idleCpuShare,
    closedMeanwhile,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [connections = '10000', windowSeconds = '65'] = process.argv.slice(2);
  console.log(
    JSON.stringify(
      await idleBench({ connections: Number(connections), windowSeconds: Number(windowSeconds) }),
      null,
      2,
    ),
  );
  process.exit(0);
}
