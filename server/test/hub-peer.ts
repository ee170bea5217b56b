/** A connection as the session hub sees it, for tests that drive the hub directly. */
import type { ServerFrame } from '@aalis/protocol';
import type { Peer } from '../src/sessions/session-hub.js';

/** A peer that records what it is sent; `visitor` as identity would have set it. */
export function peer(visitor?: { id: string; kind: 'signed' | 'anonymous' }) {
  const frames: ServerFrame[] = [];
  const p: Peer & { frames: ServerFrame[] } = {
    id: `p-${Math.random()}`,
    ...(visitor ? { visitor } : {}),
    frames,
    deliver: (frame) => frames.push(frame),
  };
  return p;
}
