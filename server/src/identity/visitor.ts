/**
 * Who is on the other end of a connection: a visitor the site vouched for with a signed
 * token, or an anonymous one. Budgets and the sessions a visitor owns are keyed by `id`.
 */
import { randomUUID } from 'node:crypto';

export interface Visitor {
  /** `user:<sub>` for a signed visitor, `anon:<random>` for an anonymous one. */
  readonly id: string;
  readonly kind: 'signed' | 'anonymous';
  /** The token's `name` claim, when it has one. */
  readonly name?: string;
}

/** The longest `sub` accepted, in characters. */
export const MAX_SUBJECT_CHARS = 256;
/** The longest `name` kept; a longer one is cut. */
export const MAX_NAME_CHARS = 256;

export function signedVisitor(sub: string, name?: string): Visitor {
  return { id: `user:${sub}`, kind: 'signed', ...(name ? { name: name.slice(0, MAX_NAME_CHARS) } : {}) };
}

/** A new anonymous visitor: one per connection, until sessions say more. */
export function anonymousVisitor(): Visitor {
  return { id: `anon:${randomUUID()}`, kind: 'anonymous' };
}
