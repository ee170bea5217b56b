/**
 * Who is on the other end of a connection: a visitor the site vouched for with a signed
 * token, or an anonymous one. Budgets and the sessions a visitor owns are keyed by `id`.
 */
export interface Visitor {
  /** `user:<sub>` for a signed visitor, `anon:<id>` for an anonymous one (its key's id). */
  readonly id: string;
  readonly kind: 'signed' | 'anonymous';
  /** The token's `name` claim, when it has one. */
  readonly name?: string;
  /** An anonymous visitor's key, when it was just issued: `ready` gives it to the client. */
  readonly anonymousKey?: string;
}

/** The longest `sub` accepted, in characters. */
export const MAX_SUBJECT_CHARS = 256;
/** The longest `name` kept; a longer one is cut. */
export const MAX_NAME_CHARS = 256;

export function signedVisitor(sub: string, name?: string): Visitor {
  return { id: `user:${sub}`, kind: 'signed', ...(name ? { name: name.slice(0, MAX_NAME_CHARS) } : {}) };
}

/**
 * An anonymous visitor by the id of its key (identity/anonymous-key.ts): the same browser
 * is the same visitor. `issuedKey` when the key is new, for `ready` to carry.
 */
export function anonymousVisitor(id: string, issuedKey?: string): Visitor {
  return { id: `anon:${id}`, kind: 'anonymous', ...(issuedKey ? { anonymousKey: issuedKey } : {}) };
}
