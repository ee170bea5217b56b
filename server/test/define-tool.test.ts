/**
 * `defineTool` types a tool's arguments from its JSON Schema, written once; the registry
 * refuses arguments that do not match that schema before `execute` runs. The type
 * assertions here are checked by `tsc -p tsconfig.json` (part of `npm test`), not by
 * vitest at run time.
 */
import { describe, expect, expectTypeOf, test } from 'vitest';
import { parseCall, runTool } from '../src/agent/tool-runner.js';
import { builtinTools } from '../src/tools/builtin/index.js';
import { weather as builtinWeather } from '../src/tools/builtin/weather.js';
import { defineTool, ToolRegistry, type ToolDefinition } from '../src/tools/define-tool.js';
import { Workspace } from '../src/tools/workspace.js';

const forecastParameters = {
  type: 'object',
  properties: {
    location: { type: 'string', minLength: 1 },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7, default: 3 },
  },
  required: ['location'],
  additionalProperties: false,
} as const;

const forecast = defineTool({
  name: 'forecast',
  description: 'A forecast',
  parameters: forecastParameters,
  execute: (args) => {
    // @ts-expect-error: the schema has no `city`
    void args.city;
    // @ts-expect-error: `unit` is one of the enum's values, not any string
    const kelvin: 'kelvin' | undefined = args.unit;
    // @ts-expect-error: `unit` is optional (not in `required`)
    const unit: 'celsius' | 'fahrenheit' = args.unit;
    return { kelvin, unit, location: args.location.toUpperCase() };
  },
});

describe('argument types come from the schema', () => {
  test('required properties are required, others optional, an enum is the union of its values', () => {
    expectTypeOf(forecast.execute).parameter(0).toEqualTypeOf<{
      location: string;
      unit?: 'celsius' | 'fahrenheit';
      // Ajv here fills in no defaults, so a property with one stays optional.
      days?: number;
    }>();
    expectTypeOf(builtinWeather.execute).parameter(0).toEqualTypeOf<{
      location: string;
      unit?: 'celsius' | 'fahrenheit';
    }>();
  });

  test('a schema written inline types the arguments the same way', () => {
    const find = defineTool({
      name: 'find',
      description: 'd',
      parameters: {
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'integer' } },
        required: ['query'],
        additionalProperties: false,
      },
      execute: (args) => args,
    });
    expectTypeOf(find.execute).parameter(0).toEqualTypeOf<{ query: string; limit?: number }>();
  });

  test('without additionalProperties: false, any other property is admitted, as unknown', () => {
    const open = defineTool({
      name: 'open',
      description: 'd',
      parameters: { type: 'object', properties: { a: { type: 'boolean' } } },
      execute: (args) => args,
    });
    expectTypeOf(open.execute).parameter(0).toEqualTypeOf<{ [key: string]: unknown; a?: boolean }>();
  });

  test('a schema only known at run time (a config file, an MCP server) gives unknown arguments', () => {
    const loaded = JSON.parse('{"type":"object"}') as Record<string, unknown>;
    const dynamic = defineTool({
      name: 'dynamic',
      description: 'd',
      parameters: loaded,
      execute: (args) => args,
    });
    expectTypeOf(dynamic.execute).parameter(0).toBeUnknown();
  });

  test('an annotation on execute cannot contradict the schema', () => {
    const parameters = {
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
      additionalProperties: false,
    } as const;
    // @ts-expect-error: the schema says `n` is a number
    defineTool({ name: 'x', description: 'd', parameters, execute: (args: { n: string }) => args });
    // @ts-expect-error: nor can it ask for a property the schema does not promise
    defineTool({ name: 'x', description: 'd', parameters, execute: (args: { n: number; m: 1 }) => args });
    const agreeing = defineTool({
      name: 'x',
      description: 'd',
      parameters,
      execute: (args: { n: number }) => args,
    });
    expectTypeOf(agreeing.execute).parameter(0).toEqualTypeOf<{ n: number }>();
  });

  test('differently-typed tools make one list for a registry, without casts', () => {
    const tools: ToolDefinition[] = [forecast, ...builtinTools()];
    // The built-in names themselves are tools.test.ts's to check.
    expect(new ToolRegistry(tools).names).toEqual(['forecast', ...builtinTools().map((tool) => tool.name)]);
  });
});

describe('invalid arguments never reach execute', () => {
  test('each is refused with what is wrong, and execute runs only for the valid call', async () => {
    const seen: unknown[] = [];
    const spy = defineTool({
      name: 'forecast',
      description: 'A forecast',
      parameters: forecastParameters,
      execute: (args) => {
        seen.push(args);
        return `ran for ${args.location}`;
      },
    });
    const registry = new ToolRegistry([spy]);
    const context = { sessionId: 's', workspace: new Workspace(), progress: () => {} };
    const run = (text: string) =>
      runTool(
        parseCall({ id: 'c', index: 0, name: 'forecast', arguments: text }, registry),
        registry,
        context,
        new AbortController().signal,
        1_000,
        () => 'no-error-expected',
      );

    expect(await run('{}')).toEqual({
      isError: true,
      result: "invalid arguments: arguments must have required property 'location'",
    });
    expect(await run('{"location": "Oslo", "unit": "kelvin"}')).toEqual({
      isError: true,
      result: 'invalid arguments: arguments/unit must be equal to one of the allowed values',
    });
    expect(await run('{"location": "Oslo", "days": 1.5, "city": "Oslo"}')).toEqual({
      isError: true,
      result:
        'invalid arguments: arguments must NOT have additional properties, arguments/days must be integer',
    });
    expect(await run('{"location": ""}')).toMatchObject({ isError: true });
    expect(seen).toEqual([]);

    expect(await run('{"location": "Oslo", "unit": "celsius"}')).toEqual({
      isError: false,
      result: 'ran for Oslo',
    });
    expect(seen).toEqual([{ location: 'Oslo', unit: 'celsius' }]);
  });
});
