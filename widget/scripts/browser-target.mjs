// The browsers the widget's built files are for (scripts/build.mjs).

/**
 * The oldest browsers the built files support: the build's target. Set by the newest
 * syntax the build emits unchanged: class static blocks (Safari 16.4, Firefox 93) and
 * class fields, which the compiler lowers for Chrome before 98 (a V8 bug with static
 * fields); lowering them would cost size and put helpers in a file of their own. The
 * run-time features the widget uses (`Array.prototype.at`, `Object.hasOwn`,
 * `:focus-visible`) are older than these. The widget README lists them (a test keeps the
 * two the same).
 */
export const BROWSER_TARGET = ['chrome98', 'edge98', 'firefox93', 'safari16.4'];
