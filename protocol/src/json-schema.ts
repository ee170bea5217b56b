/**
 * Builds the published JSON Schema of the whole protocol from the valibot schemas, so
 * frontends in other languages validate frames by the same rules as this package.
 * Written to schema/aalis-protocol.schema.json by scripts/write-json-schema.mjs; a test
 * fails when the checked-in file and this output differ.
 */
import { toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { PROTOCOL_VERSION } from './constants.js';
import { clientFrameSchemas } from './client-frames.js';
import { ChallengeSchema, serverFrameSchemas } from './server-frames.js';
import * as shapes from './shapes.js';

const named = {
  Usage: shapes.UsageSchema,
  ToolCallProgress: shapes.ToolCallProgressSchema,
  ToolCall: shapes.ToolCallSchema,
  ChatStreamChunk: shapes.ChatStreamChunkSchema,
  StreamChunkMessage: shapes.StreamChunkMessageSchema,
  ToolCallProgressEntry: shapes.ToolCallProgressEntrySchema,
  TextPart: shapes.TextPartSchema,
  ReasoningPart: shapes.ReasoningPartSchema,
  ToolCallPart: shapes.ToolCallPartSchema,
  Part: shapes.PartSchema,
  MessageError: shapes.MessageErrorSchema,
  Feedback: shapes.FeedbackSchema,
  SessionSummary: shapes.SessionSummarySchema,
  ImageRef: shapes.ImageRefSchema,
  ChatMessage: shapes.ChatMessageSchema,
  TurnStatusEntry: shapes.TurnStatusEntrySchema,
  ToolApp: shapes.ToolAppSchema,
  ElicitationForm: shapes.ElicitationFormSchema,
  Elicitation: shapes.ElicitationSchema,
  Challenge: ChallengeSchema,
};

const frameName = (type: string, side: 'Client' | 'Server'): string =>
  `${side}_${type}`.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()) + 'Frame';

export function buildJsonSchema(): Record<string, unknown> {
  const frames: Record<string, v.GenericSchema> = {};
  for (const [type, schema] of Object.entries(clientFrameSchemas)) frames[frameName(type, 'Client')] = schema;
  for (const [type, schema] of Object.entries(serverFrameSchemas)) frames[frameName(type, 'Server')] = schema;
  // `output`: a pipe that checks its input before its schema (shapes.ts `recordOf`) is
  // described by that schema; no other pipe of ours has two schemas.
  const definitions = toJsonSchemaDefs(
    { ...named, ...frames },
    { errorMode: 'throw', target: 'draft-2020-12', typeMode: 'output' },
  );
  const refs = (side: 'Client' | 'Server', table: object) =>
    Object.keys(table).map((type) => ({ $ref: `#/$defs/${frameName(type, side)}` }));
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `https://aalis.chat/protocol/v${PROTOCOL_VERSION}.schema.json`,
    title: `Aalis chat wire protocol, version ${PROTOCOL_VERSION}`,
    description:
      'Every WebSocket text frame is one JSON object matching ClientFrame (client to server) or ServerFrame (server to client). Receivers ignore unknown fields. See PROTOCOL.md.',
    // anyOf: a frame's direction is known from where it travels, and some are valid both
    // ways (a server's `feedback` is also a client's, with a field the client's ignores).
    anyOf: [{ $ref: '#/$defs/ClientFrame' }, { $ref: '#/$defs/ServerFrame' }],
    $defs: {
      ClientFrame: { oneOf: refs('Client', clientFrameSchemas) },
      ServerFrame: { oneOf: refs('Server', serverFrameSchemas) },
      ...definitions,
    },
  };
}

/**
 * The part of the schema that a browser needs to check server frames: each server
 * frame's schema by `type`, and the definitions they reach. Written to
 * src/generated/server-frame-checks.ts for client-decode.ts. A definition reached from
 * one place only is written in that place: its name, twice, would cost more bytes than
 * it saves.
 */
function buildServerFrameChecks(): { frames: Record<string, unknown>; defs: Record<string, unknown> } {
  const all = buildJsonSchema().$defs as Record<string, unknown>;
  const frames: Record<string, unknown> = {};
  for (const type of Object.keys(serverFrameSchemas))
    frames[type] = withoutTypeTag(all[frameName(type, 'Server')]);
  const refName = (node: unknown): string | undefined => {
    const ref = (node as { $ref?: unknown } | null)?.$ref;
    return typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : undefined;
  };
  // Each definition's body is counted once, as it is written once, in place or by name.
  const uses = new Map<string, number>();
  const count = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const name = refName(node);
    if (name !== undefined) {
      uses.set(name, (uses.get(name) ?? 0) + 1);
      if (uses.get(name) === 1) count(all[name]);
    }
    Object.values(node).forEach(count);
  };
  count(frames);
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (typeof node !== 'object' || node === null) return node;
    const name = refName(node);
    if (name !== undefined && uses.get(name) === 1) return inline(all[name]);
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  const defs = Object.fromEntries(
    [...uses]
      .filter(([, n]) => n > 1)
      .map(([name]) => [name, inline(all[name])] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return compact({ frames: inline(frames), defs }) as {
    frames: Record<string, unknown>;
    defs: Record<string, unknown>;
  };
}

/**
 * Bytes matter in the browser: a `$ref` becomes the bare definition name, and
 * `type: 'object'` goes where `properties` already says it (json-check.ts reads both so).
 * A record's `propertyNames: {type: 'string'}` goes too: every JSON key is a string; and
 * its `additionalProperties: {}`, which allows what no keyword forbids. So does the `type`
 * of an `enum`: a value equal to one of the listed ones has their type.
 */
function compact(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compact);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') out[key] = value.slice(value.lastIndexOf('/') + 1);
    else if (key === 'type' && value === 'object' && 'properties' in node) continue;
    else if (key === 'type' && 'enum' in node) continue;
    else if (key === 'propertyNames' && JSON.stringify(value) === '{"type":"string"}') continue;
    else if (key === 'additionalProperties' && JSON.stringify(value) === '{}') continue;
    else out[key] = compact(value);
  }
  return out;
}

/**
 * A frame's schema without its `type: {const}`: the envelope check found the schema by
 * that very `type` (frame-errors.ts), so checking it again would be bytes for nothing.
 */
function withoutTypeTag(schema: unknown): unknown {
  const { properties, required, ...rest } = schema as {
    properties: Record<string, unknown>;
    required: string[];
  };
  const { type: _type, ...fields } = properties;
  const others = required.filter((key) => key !== 'type');
  return { ...rest, properties: fields, ...(others.length ? { required: others } : {}) };
}

/** Source text of src/generated/server-frame-checks.ts. */
export function serverFrameChecksModule(): string {
  return [
    '// Generated from the valibot schemas by `npm run schema -w @aalis/protocol`. Do not edit.',
    "import type { JsonSchema } from '../json-check.js';",
    '',
    'export const serverFrameChecks: {',
    '  frames: Readonly<Record<string, JsonSchema>>;',
    '  defs: Readonly<Record<string, JsonSchema>>;',
    `} = ${JSON.stringify(buildServerFrameChecks())};`,
    '',
  ].join('\n');
}
