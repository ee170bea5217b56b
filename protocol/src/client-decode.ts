/**
 * Validation of server frames for browsers: the same rules as decode.ts, checked
 * against the JSON Schema generated from the valibot schemas (generated/), so the
 * widget does not carry the validation library. The protocol tests hold both
 * decoders to the same verdicts.
 */
import { badFrame, frameType, parseJson, type Decoded } from './frame-errors.js';
import { serverFrameChecks } from './generated/server-frame-checks.js';
import { checkJson } from './json-check.js';
import type { ServerFrame } from './server-frames.js';

/** Validates a value that is meant to be a server frame. */
export function parseServerFrame(value: unknown): Decoded<ServerFrame> {
  const envelope = frameType(value, serverFrameChecks.frames);
  if (!envelope.ok) return envelope;
  const schema = serverFrameChecks.frames[envelope.type]!;
  const problem = checkJson(schema, serverFrameChecks.defs, value);
  if (!problem) return { ok: true, frame: value as ServerFrame };
  const where = problem.path ? `${envelope.type}.${problem.path}` : envelope.type;
  return badFrame(`${where}: ${problem.reason}`, problem.path || undefined);
}

/** Parses and validates the text of a WebSocket frame from the server. */
export function decodeServerFrame(text: string): Decoded<ServerFrame> {
  const json = parseJson(text);
  return json.ok ? parseServerFrame(json.value) : json;
}
