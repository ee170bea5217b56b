// How both example agents are served (plain node:http): one handler per request, a bug in
// one run answered 500 without taking the others down, and a close() that does not wait
// for streams still open.
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';

/**
 * Listens on `host:port` with `handle(request, response, runs)`; resolves with the URL,
 * `runs` (the handler emits `end` on it once per run) and `close()`.
 */
export function serveAgent(handle, { port, host = '127.0.0.1', name }) {
  const runs = new EventEmitter();
  const server = createServer((request, response) => {
    handle(request, response, runs).catch((error) => {
      console.error(`${name}: request failed`, error);
      if (!response.headersSent) response.writeHead(500).end();
      else response.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const url = `http://${host}:${server.address().port}/`;
      const close = () =>
        new Promise((done) => {
          server.close(() => done());
          // Streams still open would hold close() until they end.
          server.closeAllConnections();
        });
      resolve({ url, runs, close });
    });
  });
}

/** A short plain-text answer: a refusal, or what to send instead. */
export function plain(response, status, text, headers = {}) {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(text);
}
