/**
 * Which of a server's tools the model is offered: those of its `tools` allow-list (by the
 * server's own names; all of them without one), less those it can only run as MCP tasks
 * (`execution.taskSupport: "required"`), which a plain `tools/call` cannot start.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export interface SelectedTools {
  tools: Tool[];
  /** Names the allow-list has and the server does not: a typo, or a tool it dropped. */
  missing: string[];
  /** Tools left out because they run only as tasks. */
  taskOnly: string[];
}

export function selectTools(listed: readonly Tool[], allowList?: readonly string[]): SelectedTools {
  const allowed = allowList ? new Set(allowList) : undefined;
  const seen = new Set<string>();
  const tools: Tool[] = [];
  const taskOnly: string[] = [];
  for (const tool of listed) {
    // A server listing a name twice would make the registry refuse the whole group.
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    if (allowed && !allowed.has(tool.name)) continue;
    if (tool.execution?.taskSupport === 'required') taskOnly.push(tool.name);
    else tools.push(tool);
  }
  const missing = allowList ? allowList.filter((name) => !seen.has(name)) : [];
  return { tools, missing, taskOnly };
}
