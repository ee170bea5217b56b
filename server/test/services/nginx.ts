/**
 * A real load balancer for tests: Debian's nginx in front of several instances on
 * loopback, round-robin and deliberately without stickiness (no ip_hash, no cookie), so
 * a visitor's next request or WebSocket may land on any instance, as behind a plain
 * balancer in production. Everything nginx writes (pid, logs, temp files) stays in a
 * throwaway directory; the configuration it ran with is there too, for a failing test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { onFreePort, stopOnExit, stopProcess } from './processes.js';

export interface NginxOptions {
  /** The instances' ports on 127.0.0.1, in round-robin order. */
  upstreams: number[];
}

export interface NginxService {
  port: number;
  /** `http://127.0.0.1:<port>`; `ws://` on the same host and port for WebSockets. */
  url: string;
  /** Stops it (open connections are cut) and removes its directory. */
  stop(): Promise<void>;
}

const STARTUP_TIMEOUT_MS = 10_000;

export async function startNginx({ upstreams }: NginxOptions): Promise<NginxService> {
  if (upstreams.length === 0) throw new Error('startNginx needs at least one upstream port');
  const binary = findNginx();
  const dir = mkdtempSync(join(tmpdir(), 'aalis-nginx-'));
  const { port, started: running } = await onFreePort((port) => {
    writeFileSync(join(dir, 'nginx.conf'), configuration(dir, port, upstreams));
    return launch(binary, dir, port);
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      await stopProcess(running);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function findNginx(): string {
  // /usr/sbin is not on every user's PATH.
  const candidates = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'nginx'));
  const found = [...candidates, '/usr/sbin/nginx'].find((path) => existsSync(path));
  if (!found) throw new Error('nginx is not installed: run "node scripts/ensure-services.mjs"');
  return found;
}

function configuration(dir: string, port: number, upstreams: number[]): string {
  const temp = (name: string) => {
    mkdirSync(join(dir, 'temp', name), { recursive: true });
    return join(dir, 'temp', name);
  };
  // As root the worker would switch to "nobody", which cannot write temp files in this
  // root-owned directory; for anyone else nginx keeps the user it was started as.
  const user = process.getuid?.() === 0 ? 'user root;' : '';
  return `# Written by server/test/services/nginx.ts for one test run.
daemon off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
${user}

events {
  worker_connections 256;
}

http {
  access_log ${join(dir, 'access.log')};
  client_body_temp_path ${temp('client_body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};

  # An upgrade request passes "Connection: upgrade" on; any other closes the
  # upstream connection after its response.
  map $http_upgrade $connection_upgrade {
    default upgrade;
    '' close;
  }

  upstream aalis_instances {
    # Plain round-robin. max_fails=0: an instance that refused once is still tried in its
    # turn, so one that a test restarts is back in rotation at once, not after 10 s.
${upstreams.map((upstream) => `    server 127.0.0.1:${upstream} max_fails=0;`).join('\n')}
  }

  server {
    listen 127.0.0.1:${port};

    location / {
      proxy_pass http://aalis_instances;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      # The Host as the client sent it, port included ($host drops the port): the
      # server's same-origin check compares it with the Origin, which has the port.
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      # A WebSocket may sit quiet between turns longer than the default 60 s.
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
      # Streamed answers reach the client as they are written.
      proxy_buffering off;
      # nginx's default already: a refused connection moves on to the next instance,
      # but a POST that may have reached one is never sent to a second.
      proxy_next_upstream error timeout;
    }
  }
}
`;
}

/** Starts nginx and resolves once its port accepts connections; rejects if it exits first. */
async function launch(binary: string, dir: string, port: number): Promise<ChildProcess> {
  // -e: the error log before the configuration is read, which would otherwise be
  // /var/log/nginx/error.log.
  const child = spawn(binary, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
  stopOnExit(child, 'SIGTERM');

  const log = () => `${stderr}${readIfThere(join(dir, 'error.log'))}`;
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  // The pid file is written once the port is bound: an answer before it would come
  // from whoever else took the port.
  const pidFile = join(dir, 'nginx.pid');
  while (!(existsSync(pidFile) && (await accepts(port)))) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`nginx exited before listening on port ${port}:\n${log()}`);
    }
    if (Date.now() > deadline) {
      await stopProcess(child);
      throw new Error(`nginx did not listen on port ${port} within ${STARTUP_TIMEOUT_MS} ms:\n${log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return child;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(1_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
  });
}

// Stopped with SIGTERM, nginx's fast shutdown (the master stops its worker); never SIGKILL
// first: the worker would outlive its master, holding the port.
const readIfThere = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : '');
