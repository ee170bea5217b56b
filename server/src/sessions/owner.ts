/**
 * Who may open a conversation. A session a visitor made belongs to that visitor: a signed
 * one (`user:<sub>`), or an anonymous one by the id of its key (`anon:<id>`, the same
 * browser across connections and restarts). A `hello` from anyone else with its id gets a
 * new, empty session, as an unknown id does. A session made without a visitor (identity
 * off), or before anonymous visitors had keys (its owner stored as null), has no owner:
 * its 128-bit id is the key, as it always was.
 */

/** The owner a visitor's new sessions get: the visitor's id, or none without one. */
export function ownerKey(visitor: { id: string; kind: 'signed' | 'anonymous' } | undefined): string | null {
  return visitor?.id ?? null;
}

/** Whether a visitor (by its owner key) may open a session with this owner. */
export function mayOpen(sessionOwner: string | null, visitorOwner: string | null): boolean {
  return sessionOwner === null || sessionOwner === visitorOwner;
}
