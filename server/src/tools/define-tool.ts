/**
 * Tools the agent can run: `defineTool` declares one with JSON Schema parameters, and
 * a `ToolRegistry` validates arguments against that schema (with Ajv) before `execute`
 * ever sees them, so a tool's code can trust its input.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { ToolSpec } from '../providers/types.js';
import type { Workspace } from './workspace.js';

export interface ToolContext {
  /** Aborted when the turn is aborted or the tool's time is up. */
  signal: AbortSignal;
  sessionId: string;
  /** The session's files (write_file and friends). */
  workspace: Workspace;
}

export interface ToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Overrides the agent's default time limit for this tool. */
  timeoutMs?: number;
  /** Returns a JSON-serialisable result; throws to report an error to the model. */
  execute(args: Args, context: ToolContext): unknown;
}

export function defineTool<Args>(definition: ToolDefinition<Args>): ToolDefinition<Args> {
  return definition;
}

/** An error a tool throws on purpose: its message goes to the model as is. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

type Validated = { ok: true } | { ok: false; message: string };

export class ToolRegistry {
  readonly #tools = new Map<string, { definition: ToolDefinition<never>; validate: ValidateFunction }>();
  readonly #ajv = new Ajv({ allErrors: true, strict: false });

  constructor(tools: Array<ToolDefinition<never>> = []) {
    for (const tool of tools) this.add(tool);
  }

  add<Args>(tool: ToolDefinition<Args>): this {
    if (this.#tools.has(tool.name)) throw new Error(`a tool named "${tool.name}" is already registered`);
    const definition = tool as unknown as ToolDefinition<never>;
    this.#tools.set(tool.name, { definition, validate: this.#ajv.compile(tool.parameters) });
    return this;
  }

  get(name: string): ToolDefinition<never> | undefined {
    return this.#tools.get(name)?.definition;
  }

  get names(): string[] {
    return [...this.#tools.keys()];
  }

  /** What the model is told about the tools. */
  specs(): ToolSpec[] {
    return [...this.#tools.values()].map(({ definition: { name, description, parameters } }) => ({
      name,
      description,
      parameters,
    }));
  }

  validate(name: string, args: unknown): Validated {
    const entry = this.#tools.get(name);
    if (!entry) return { ok: false, message: `unknown tool "${name}"` };
    if (entry.validate(args)) return { ok: true };
    return { ok: false, message: this.#ajv.errorsText(entry.validate.errors, { dataVar: 'arguments' }) };
  }
}
