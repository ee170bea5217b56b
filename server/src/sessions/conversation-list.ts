/**
 * A visitor's list of conversations, and the two changes it allows: renaming one and
 * deleting one (never one that answers now, on any instance). Only the visitor's own
 * sessions are ever touched or listed; a connection without a visitor identity has none.
 */
import { ErrorCode, type ServerFrame } from '@aalis/protocol';
import { logErrorWithId } from '../util/log-error.js';
import type { HubSettings, Peer } from './hub-options.js';
import { ownerKey } from './owner.js';
import type { SessionBroadcast } from './session-broadcast.js';
import type { SessionRegistry } from './session-registry.js';

/** What a `rename_session` or a `delete_session` asks before the list is sent. */
export type ConversationChange = { rename: { sessionId: string; title: string } } | { remove: string };

export class ConversationList {
  constructor(
    private readonly settings: HubSettings,
    private readonly registry: SessionRegistry,
    private readonly broadcast: SessionBroadcast,
  ) {}

  /** Makes the change, if any, then sends the peer its list (or why the change was refused). */
  async answer(peer: Peer, change: ConversationChange | undefined, limit: number): Promise<void> {
    const owner = ownerKey(peer.visitor);
    const refuse = (code: string, message: string, errorId?: string) =>
      this.broadcast.toPeer(peer, {
        type: 'error',
        code,
        message,
        ...(errorId === undefined ? {} : { errorId }),
      });
    if (owner === null) {
      if (change)
        return refuse(
          ErrorCode.BadFrame,
          'conversations belong to visitors: this server has no visitor identity',
        );
      return this.broadcast.toPeer(peer, { type: 'sessions', sessions: [] });
    }
    const { store, coordination } = this.settings;
    try {
      if (change && 'rename' in change) {
        const { sessionId } = change.rename;
        const title = change.rename.title.replace(/\s+/g, ' ').trim();
        if (!title) return refuse(ErrorCode.BadFrame, 'rename_session: a name needs a word');
        if (!(await store.renameSession(owner, sessionId, title)))
          return refuse(ErrorCode.BadFrame, 'rename_session: no such conversation of yours');
      } else if (change) {
        const session = this.registry.get(change.remove);
        if (session && this.registry.answering(session))
          return refuse(ErrorCode.Busy, 'delete_session: the conversation is answering; stop it first');
        // Claimed while it goes (from before the first await): no send of this instance
        // starts a turn in it meanwhile.
        if (session) session.claiming = true;
        let deleted: boolean;
        try {
          // A turn another instance runs, which this one may not follow.
          if (await coordination.isRunning(change.remove))
            return refuse(ErrorCode.Busy, 'delete_session: the conversation is answering; stop it first');
          deleted = await store.deleteSession(owner, change.remove);
        } finally {
          if (session) session.claiming = false;
        }
        if (!deleted)
          return refuse(
            ErrorCode.BadFrame,
            'delete_session: no such conversation of yours, or it is answering',
          );
        // Every tab that has it open leaves it, here and on the other instances.
        const gone: ServerFrame = { type: 'session_deleted', sessionId: change.remove };
        this.broadcast.share(change.remove, gone, session);
      }
      this.broadcast.toPeer(peer, { type: 'sessions', sessions: await store.listSessions(owner, limit) });
    } catch (error) {
      refuse(
        ErrorCode.Storage,
        'your conversations could not be read or changed',
        logErrorWithId(this.settings.logger, error, 'conversations failed'),
      );
    }
  }
}
