/**
 * Upload tickets: what lets an HTTP request add images to one session. `ready` gives one
 * to a connection that the hello checks let into the session (its owner, or anyone where
 * the session has none), so an upload is held to the same rule without the socket: the
 * HTTP request may reach another instance. A ticket is `sessionId.expiry.mac`, the HMAC
 * under a key derived from the server key of the anonymous visitor keys (a secret, or the
 * data directory's key file), so every instance that shares that key accepts it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { serverKeyOf, type AnonymousKeySource } from '../identity/anonymous-key.js';

const DERIVATION_LABEL = 'aalis image upload ticket v1';

export type TicketCheck =
  { ok: true; sessionId: string } | { ok: false; code: 'bad_ticket' | 'ticket_expired' };

export interface UploadTickets {
  issue(sessionId: string, now: number): { ticket: string; expiresAt: number };
  check(ticket: string, now: number): TicketCheck;
}

export function createUploadTickets(source: AnonymousKeySource, lifetimeMs: number): UploadTickets {
  const key = createHmac('sha256', serverKeyOf(source)).update(DERIVATION_LABEL).digest();
  const mac = (body: string) => createHmac('sha256', key).update(body).digest();
  return {
    issue(sessionId, now) {
      const expiresAt = now + lifetimeMs;
      const body = `${sessionId}.${expiresAt.toString(36)}`;
      return { ticket: `${body}.${mac(body).toString('base64url')}`, expiresAt };
    },
    check(ticket, now) {
      // From the right: the mac and the expiry have no dots, a session id might.
      const macAt = ticket.lastIndexOf('.');
      const expiryAt = ticket.lastIndexOf('.', macAt - 1);
      if (expiryAt <= 0) return { ok: false, code: 'bad_ticket' };
      const body = ticket.slice(0, macAt);
      const given = Buffer.from(ticket.slice(macAt + 1), 'base64url');
      const expected = mac(body);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        return { ok: false, code: 'bad_ticket' };
      if (parseInt(ticket.slice(expiryAt + 1, macAt), 36) <= now)
        return { ok: false, code: 'ticket_expired' };
      return { ok: true, sessionId: ticket.slice(0, expiryAt) };
    },
  };
}
