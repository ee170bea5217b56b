/**
 * Tools the agent can run: `defineTool` declares one with JSON Schema parameters, and
 * a `ToolRegistry` validates arguments against that schema (with Ajv) before `execute`
 * ever sees them, so a tool's code can trust its input. The schema is written once:
 * `execute`'s argument type is inferred from it (json-schema-to-ts, types only).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { ElicitationAction, ElicitationForm, ToolApp, ToolProgress } from '@aalis/protocol';
import type { ToolSpec } from '../providers/core/types.js';
import type { Workspace } from './workspace.js';
import { ToolError } from './tool-error.js';

export { ToolError };

export interface ToolContext {
  /** Aborted when the turn is aborted or the tool's time is up. */
  signal: AbortSignal;
  sessionId: string;
  /** The session's files (write_file and friends). */
  workspace: Workspace;
  /**
   * Tells the user how far the tool has come: `progress` rising, `total` when known, and
   * what it is doing. Shown live in the tool's block and restored after a reload. Cheap:
   * call it as often as the work advances; under load only the latest report is sent.
   */
  progress(update: ToolProgress): void;
  /**
   * Asks the visitor for input while the tool runs (an MCP server's `elicitation/create`):
   * every tab of the session shows the form, or the page to visit, in the tool's card.
   * Resolves with the first valid answer, or `cancel` when the turn is stopped, the request
   * expires, or no one can be asked. Absent where there is no one to ask.
   */
  elicit?(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationReply>;
  /** A `url` elicitation's flow finished (the MCP server said so, by its own id for it). */
  elicitationCompleted?(serverName: string, serverElicitationId: string): void;
}

/** What a tool asks the visitor (ElicitationSchema in the protocol, without what the desk adds). */
export interface ElicitationRequest {
  serverName: string;
  mode: 'form' | 'url';
  message: string;
  requestedSchema?: ElicitationForm;
  url?: string;
  /** `url` mode: the MCP server's id for it, which its completion notification names. */
  serverElicitationId?: string;
}

export interface ElicitationReply {
  action: ElicitationAction;
  content?: Record<string, string | number | boolean | string[]>;
}

/** JSON Schema of a tool's arguments object: plain JSON, as model APIs and MCP servers have it. */
export type ToolParameters = Exclude<JSONSchema, boolean>;

/**
 * The arguments a schema lets through the registry's Ajv, which fills in no defaults: a
 * property with a `default` stays optional.
 */
type ArgumentsOf<Schema extends ToolParameters> = FromSchema<
  Schema,
  { keepDefaultedPropertiesOptional: true }
>;

export interface ToolDefinition<Args = unknown> {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: ToolParameters;
  /** Overrides the agent's default time limit for this tool. */
  timeoutMs?: number;
  /**
   * Whether a user must approve a call before it runs, when the server's `approval`
   * rules do not name the tool: `always`, or `session` (until the user allows it for the
   * conversation). A tool that changes or sends something says so here.
   */
  approval?: 'always' | 'session';
  /** The tool is shown as an MCP App (its server declared a `ui://` resource for it). */
  app?: ToolApp;
  /**
   * Returns a JSON-serialisable result; throws to report an error to the model. Only the
   * registry calls it, with arguments that passed `parameters`.
   *
   * A method on purpose: TypeScript compares method parameters bivariantly, so a tool
   * made for `{ location: string }` is also a `ToolDefinition` (of `unknown` arguments),
   * and a list of differently-typed tools goes to a registry without casts. What makes
   * that safe is the registry's validation, which runs before every call.
   */
  execute(args: Args, context: ToolContext): unknown;
}

/**
 * Declares a tool. `execute`'s arguments are typed from `parameters`, written inline or
 * as a constant declared `as const`: required properties required, the others optional,
 * an `enum` the union of its values (add `additionalProperties: false`, or the type also
 * admits any other property, as `unknown`). A schema known only at run time, read from a
 * file or an MCP server, gives `unknown` arguments, to be narrowed by the tool.
 */
export function defineTool<
  const Schema extends ToolParameters,
  // A type parameter defaulting to FromSchema, not FromSchema in the argument's type,
  // keeps TypeScript under its instantiation depth (the library's documented way);
  // NoInfer stops an annotation on execute's parameter from standing in for the schema.
  Args = ArgumentsOf<Schema>,
>(
  definition: Omit<ToolDefinition, 'parameters' | 'execute'> & {
    parameters: Schema;
    execute: (args: NoInfer<Args>, context: ToolContext) => unknown;
  },
): ToolDefinition<Args> {
  return definition;
}

type Validated = { ok: true } | { ok: false; message: string };

interface Entry {
  definition: ToolDefinition;
  validate: ValidateFunction;
  /** The source the tool came from (an MCP server's name), whose tools change together. */
  group?: string;
}

/**
 * The tools the model is offered. Tools of a group (an MCP server's) come and go
 * together as their source connects, drops or changes its list; the agent reads the
 * registry at every model round, so a change reaches the next round.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, Entry>();
  readonly #ajv = new Ajv({ allErrors: true, strict: false });

  constructor(tools: readonly ToolDefinition[] = []) {
    for (const tool of tools) this.add(tool);
  }

  add(tool: ToolDefinition): this {
    if (this.#tools.has(tool.name)) throw new Error(`a tool named "${tool.name}" is already registered`);
    this.#tools.set(tool.name, { definition: tool, validate: this.#ajv.compile(tool.parameters) });
    return this;
  }

  /**
   * Replaces every tool of `group` with `tools` (none: the group's tools are gone). A
   * name another group or a plain tool already has is refused, before anything changes.
   * A schema Ajv cannot compile refuses that tool alone, named in the error.
   */
  replaceGroup(group: string, tools: readonly ToolDefinition[]): void {
    for (const tool of tools) {
      const taken = this.#tools.get(tool.name);
      if (taken && taken.group !== group)
        throw new Error(`a tool named "${tool.name}" is already registered`);
    }
    const compiled = tools.map((definition) => {
      try {
        return { definition, validate: this.#ajv.compile(definition.parameters), group };
      } catch (error) {
        throw new Error(
          `tool "${definition.name}": its input schema does not compile (${(error as Error).message})`,
        );
      }
    });
    for (const [name, entry] of this.#tools) if (entry.group === group) this.#tools.delete(name);
    for (const entry of compiled) this.#tools.set(entry.definition.name, entry);
  }

  get(name: string): ToolDefinition | undefined {
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
