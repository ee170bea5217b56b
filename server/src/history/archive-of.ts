/**
 * The archive (archive.ts) of a built-in history store; undefined for a store of your own
 * that offers none (then the console says the history cannot be browsed). One per store:
 * the SQLite and PostgreSQL archives add their index to the database once.
 */
import type { ConversationArchive } from './archive.js';
import { MemoryHistoryStore } from './memory-store.js';
import { PostgresArchive } from './postgres-archive.js';
import { PostgresHistoryStore } from './postgres-store.js';
import { SqliteArchive } from './sqlite-archive.js';
import { SqliteHistoryStore } from './sqlite-store.js';
import type { HistoryStore } from './store.js';

const archives = new WeakMap<HistoryStore, ConversationArchive>();

export function archiveOf(store: HistoryStore): ConversationArchive | undefined {
  const known = archives.get(store);
  if (known) return known;
  let archive: ConversationArchive | undefined;
  if (store instanceof MemoryHistoryStore) archive = store;
  else if (store instanceof SqliteHistoryStore) archive = new SqliteArchive(store.database);
  else if (store instanceof PostgresHistoryStore) archive = new PostgresArchive(store.pool);
  if (archive) archives.set(store, archive);
  return archive;
}
