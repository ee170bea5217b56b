/**
 * The budget store that goes with a history store: SQLite counters in the history's own
 * database file when the history is SQLite, so they survive restarts with it; memory
 * otherwise (the memory history, or a store of your own: pass `budgetStore` for those).
 */
import { SqliteHistoryStore } from '../history/sqlite-store.js';
import type { HistoryStore } from '../history/store.js';
import type { BudgetStore } from '../budgets/budget-store.js';
import { MemoryBudgetStore } from '../budgets/memory-budget-store.js';
import { SqliteBudgetStore } from '../budgets/sqlite-budget-store.js';

export function budgetStoreFor(history: HistoryStore): BudgetStore {
  return history instanceof SqliteHistoryStore
    ? new SqliteBudgetStore(history.database)
    : new MemoryBudgetStore();
}
