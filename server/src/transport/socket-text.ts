/** The text of what a WebSocket carries: a frame's content, and a close reason that fits. */

/** Close reasons are limited to 123 bytes by the WebSocket protocol. */
export const reason = (text: string): string =>
  Buffer.from(text)
    .subarray(0, 120)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');

/** A text frame's content, in whichever form the transport delivered it. */
export function frameText(data: string | Buffer | ArrayBuffer | Buffer[]): string {
  if (typeof data === 'string') return data;
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as Buffer).toString('utf8');
}
