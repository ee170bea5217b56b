/**
 * A proxy in front of the chat server that fails on command, for the reconnect tests: the
 * network faults a visitor meets (a reset connection, a gateway answering 502 while the
 * server restarts, a handshake that never completes, a live socket cut), made to happen
 * at chosen attempts instead of by luck. Plain HTTP requests are passed through untouched,
 * so the page, the widget's script and /origin-check keep working while sockets fail.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';

/** What the proxy does with one WebSocket upgrade. */
export type UpgradeFault =
  /** Passed to the server. */
  | 'pass'
  /** The TCP connection reset at once: what a restarting server or a lost route gives. */
  | 'reset'
  /** An HTTP error instead of the upgrade, as a gateway answers while the server is away. */
  | 'bad-gateway'
  /** Opened, then cut before the server can say `ready`: a drop in the middle of the hello. */
  | 'cut-after-open'
  /** Accepted, and never answered. */
  | 'hang';

export interface FlakyProxy {
  url: string;
  /** Every upgrade asked for, in order, with what was done to it. */
  readonly upgrades: UpgradeFault[];
  /** The faults for the next upgrades, one each; once used up, upgrades pass. */
  fail(...faults: UpgradeFault[]): void;
  /** Cuts every socket that is open now (a reset, as a lost network gives). */
  cutAll(): void;
  close(): Promise<void>;
}

export async function startFlakyProxy(target: { host: string; port: number }): Promise<FlakyProxy> {
  const queue: UpgradeFault[] = [];
  const upgrades: UpgradeFault[] = [];
  const live = new Set<Socket>();
  const track = (socket: Socket) => {
    live.add(socket);
    socket.once('close', () => live.delete(socket));
  };

  const server = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: target.host,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });

  server.on('upgrade', (incoming: IncomingMessage, client: Socket, head: Buffer) => {
    const fault = queue.shift() ?? 'pass';
    upgrades.push(fault);
    client.on('error', () => {});
    if (fault === 'reset') return client.resetAndDestroy();
    if (fault === 'hang') return track(client);
    if (fault === 'bad-gateway') {
      client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    const upstream = connect(target.port, target.host, () => {
      // The request as the browser sent it: the server checks its Origin and Host itself.
      const lines = [`${incoming.method} ${incoming.url} HTTP/1.1`];
      for (let i = 0; i < incoming.rawHeaders.length; i += 2)
        lines.push(`${incoming.rawHeaders[i]}: ${incoming.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      if (fault === 'cut-after-open') {
        // The server's 101 reaches the browser, the hello reaches the server; then the cut.
        client.once('data', () => setImmediate(() => client.resetAndDestroy()));
      }
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    track(client);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    upgrades,
    fail: (...faults) => void queue.push(...faults),
    cutAll: () => {
      for (const socket of live) socket.resetAndDestroy();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of live) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
