/**
 * An HTTP answer written straight to the socket of an upgrade request that is refused.
 * Node hands an upgrade over as a bare socket, with no response object to answer through;
 * without an answer, the client would wait until its own timeout.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { BASE_SECURITY_HEADERS } from './security-headers.js';

export function refuseUpgrade(
  socket: Duplex,
  status: number,
  body: string,
  contentType: string,
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  // The client may be gone already; a write to it must not crash the process.
  socket.on('error', () => socket.destroy());
  const headers = {
    ...BASE_SECURITY_HEADERS,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
    ...extraHeaders,
    connection: 'close',
  };
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`);
}
