/**
 * The test load balancer does what the multi-instance tests count on: plain HTTP and
 * WebSockets both reach two instances in turn, with no stickiness, and the instances see
 * the client's Host and address.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { startNginx, type NginxService } from './nginx.js';

interface Instance {
  port: number;
  server: Server;
  lastRequest?: IncomingMessage;
}

/** An instance that says who it is, over HTTP and on a WebSocket. */
async function instance(name: string): Promise<Instance> {
  const state: Instance = {
    port: 0,
    server: createServer((request, response) => {
      state.lastRequest = request;
      response.end(name);
    }),
  };
  const sockets = new WebSocketServer({ server: state.server });
  sockets.on('connection', (socket, request) => {
    state.lastRequest = request;
    socket.on('message', (data) => socket.send(`${name}: ${data.toString()}`));
  });
  state.server.listen(0, '127.0.0.1');
  await once(state.server, 'listening');
  state.port = (state.server.address() as { port: number }).port;
  return state;
}

describe('the nginx test balancer', () => {
  let a: Instance;
  let b: Instance;
  let nginx: NginxService;

  beforeAll(async () => {
    [a, b] = await Promise.all([instance('a'), instance('b')]);
    nginx = await startNginx({ upstreams: [a.port, b.port] });
  });
  afterAll(async () => {
    await nginx?.stop();
    for (const { server } of [a, b]) {
      server?.closeAllConnections();
      server?.close();
    }
  });

  test('HTTP requests alternate between the instances, with Host and X-Forwarded-For', async () => {
    const answers: string[] = [];
    for (let i = 0; i < 4; i++) answers.push(await (await fetch(`${nginx.url}/anything`)).text());
    expect(new Set([answers[0], answers[1]])).toEqual(new Set(['a', 'b']));
    expect(answers[2]).toBe(answers[0]);
    expect(answers[3]).toBe(answers[1]);
    expect(a.lastRequest?.headers.host).toBe(`127.0.0.1:${nginx.port}`);
    expect(a.lastRequest?.headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  test('WebSockets upgrade through it and land on either instance in turn', async () => {
    const greetings: string[] = [];
    const hosts: Array<string | undefined> = [];
    for (let i = 0; i < 2; i++) {
      const socket = new WebSocket(`ws://127.0.0.1:${nginx.port}/chat`, { origin: nginx.url });
      await once(socket, 'open');
      socket.send('hello');
      const [data] = (await once(socket, 'message')) as [Buffer];
      greetings.push(data.toString());
      hosts.push((data.toString().startsWith('a') ? a : b).lastRequest?.headers.host);
      socket.close();
      await once(socket, 'close');
    }
    expect(greetings.sort()).toEqual(['a: hello', 'b: hello']);
    // Same-origin checks compare Origin with Host: both keep the balancer's port.
    expect(hosts).toEqual([`127.0.0.1:${nginx.port}`, `127.0.0.1:${nginx.port}`]);
  });
});
