/**
 * The names MCP tools are offered to the model under. Every provider accepts
 * `^[a-zA-Z0-9_-]{1,64}$`, while MCP allows more (dots, slashes, up to 128 characters),
 * and two servers may both have a `search`. A tool keeps its own name when that name is
 * unique; when two collide, each takes its server's name as a prefix.
 *
 * The names are decided all at once from the tools present now, never first come first
 * served: the same servers with the same lists give the same names whatever order they
 * connected in, and after every restart.
 */

/** The longest tool name every provider accepts. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** Where an offered tool really lives: its server and the server's own name for it. */
export interface ToolOrigin {
  server: string;
  tool: string;
}

export interface OfferedTool extends ToolOrigin {
  /** The name the model sees. */
  offered: string;
}

/** Every character a provider refuses becomes `_`; cut to `maxLength`; never empty. */
export function sanitizeToolName(name: string, maxLength = MAX_TOOL_NAME_LENGTH): string {
  const safe = name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, maxLength);
  return safe === '' ? '_' : safe;
}

/**
 * Names `tools` (in the order given: servers in configuration order, each server's tools
 * in its own order) so that no two share a name and none takes a `reserved` one (the
 * registry's other tools, such as the built-in ones, which keep theirs).
 */
export function offeredToolNames(
  tools: readonly ToolOrigin[],
  reserved: ReadonlySet<string> = new Set(),
): OfferedTool[] {
  const ownNames = tools.map((tool) => sanitizeToolName(tool.tool));
  const uses = new Map<string, number>();
  for (const name of ownNames) uses.set(name, (uses.get(name) ?? 0) + 1);
  const unique = (name: string) => uses.get(name) === 1 && !reserved.has(name);

  const taken = new Set(reserved);
  const offered: Array<string | undefined> = ownNames.map((name) => {
    if (!unique(name)) return undefined;
    taken.add(name);
    return name;
  });
  // Prefixed names come second, so that none of them takes a name some tool has on its
  // own (server `a` with `b_c` against server `a_b` with `c`); a clash left after that
  // gets a number.
  tools.forEach((tool, index) => {
    if (offered[index] !== undefined) return;
    let name = sanitizeToolName(`${tool.server}_${tool.tool}`);
    for (let n = 2; taken.has(name); n++) {
      const suffix = `_${n}`;
      name = sanitizeToolName(`${tool.server}_${tool.tool}`, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix;
    }
    taken.add(name);
    offered[index] = name;
  });
  return tools.map((tool, index) => ({ ...tool, offered: offered[index]! }));
}
