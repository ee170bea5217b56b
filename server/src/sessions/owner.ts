/**
 * Who may open a conversation. A session a signed visitor made belongs to that visitor:
 * a `hello` from anyone else with its id gets a new, empty session, as an unknown id does.
 * A session made without a signed visitor (identity off, or an anonymous visitor) has no
 * owner: its 128-bit id is the key, as it always was.
 */

/** The owner a visitor's new sessions get: the signed visitor's id, or none. */
export function ownerKey(visitor: { id: string; kind: 'signed' | 'anonymous' } | undefined): string | null {
  return visitor?.kind === 'signed' ? visitor.id : null;
}

/** Whether a visitor (by its owner key) may open a session with this owner. */
export function mayOpen(sessionOwner: string | null, visitorOwner: string | null): boolean {
  return sessionOwner === null || sessionOwner === visitorOwner;
}
