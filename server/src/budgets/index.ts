export { DEFAULT_BUDGETS, NO_BUDGETS, type BudgetLimits, type BudgetSettings } from './budget-config.js';
export type { BudgetStore } from './budget-store.js';
export {
  Budgets,
  type BudgetLimitName,
  type BudgetRefusal,
  type BudgetVisitor,
  type BudgetsOptions,
} from './budgets.js';
export { AddressSends } from './address-sends.js';
export { FixedWindow } from './fixed-window.js';
export { MemoryBudgetStore } from './memory-budget-store.js';
export { DEFAULT_BUDGET_KEY_PREFIX, RedisBudgetStore } from './redis-budget-store.js';
export { SqliteBudgetStore } from './sqlite-budget-store.js';
export { CHARS_PER_TOKEN, turnTokens } from './turn-tokens.js';
