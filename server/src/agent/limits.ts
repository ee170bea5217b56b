/**
 * The defaults of the caps on what one turn produces and one page carries, which a site
 * owner may change (the `sessions` and `maxToolResultChars` options,
 * `AALIS_MAX_TOOL_ARGUMENT_CHARS`). Each keeps a session joinable: everything a turn
 * produces is sent to every tab and stored.
 */

/** Text, reasoning and tool-call arguments of one turn, in characters. */
export const DEFAULT_MAX_TURN_CHARS = 1_000_000;

/** Arguments of one tool call; a longer call is cut off and never runs. */
export const DEFAULT_MAX_TOOL_ARGUMENT_CHARS = 256_000;

/** One tool result as the model and every tab get it; a longer one is cut short. */
export const DEFAULT_MAX_TOOL_RESULT_CHARS = 100_000;

/** Messages one `ready` or `history` frame carries, in bytes of JSON (at least one message). */
export const DEFAULT_MAX_PAGE_BYTES = 1024 * 1024;
