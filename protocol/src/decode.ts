/**
 * Runtime validation of frames in both directions with the valibot schemas. Nothing
 * here throws: every way a frame can be wrong comes back as a `FrameError` that names
 * the field and the reason, ready to be sent as an `error` frame or logged.
 */
import * as v from 'valibot';
import { clientFrameSchemas, type ClientFrame } from './client-frames.js';
import { badFrame, frameType, kindOf, parseJson, type Decoded } from './frame-errors.js';
import { serverFrameSchemas, type ServerFrame } from './server-frames.js';

export type { Decoded, FrameError } from './frame-errors.js';

function describeIssue(issue: v.BaseIssue<unknown>): string {
  // Type mismatches: valibot's own message quotes the received value, which may be a
  // megabyte of text. Say what kind of value it was instead.
  if (issue.kind === 'schema') {
    if (issue.input === undefined) return 'required';
    return `expected ${issue.expected ?? 'another value'}, received ${kindOf(issue.input)}`;
  }
  // Validation issues (length, range, integer) report sizes and numbers, never text.
  return `expected ${issue.expected ?? 'another value'}, received ${issue.received}`;
}

function parseWith<T>(table: Record<string, v.GenericSchema>, value: unknown): Decoded<T> {
  const envelope = frameType(value, table);
  if (!envelope.ok) return envelope;
  const result = v.safeParse(table[envelope.type]!, value, { abortEarly: true });
  if (result.success) return { ok: true, frame: result.output as T };
  const issue = result.issues[0];
  // A record's key that is wrong is named by its record: the key itself may be huge. (A
  // missing field is a `key` issue too, of no input, and named by its own name.)
  const badKey = issue.path?.at(-1)?.origin === 'key' && issue.input !== undefined;
  // (The record is inside the frame: the path left is never empty.)
  const recordPath = issue.path?.slice(0, -1) as v.BaseIssue<unknown>['path'];
  const field = v.getDotPath(badKey ? { ...issue, path: recordPath } : issue) ?? undefined;
  const where = field === undefined ? envelope.type : `${envelope.type}.${field}`;
  return badFrame(`${where}: ${badKey ? 'a key ' : ''}${describeIssue(issue)}`, field);
}

/** Validates a value that is meant to be a client frame. */
export function parseClientFrame(value: unknown): Decoded<ClientFrame> {
  return parseWith<ClientFrame>(clientFrameSchemas, value);
}

/** Validates a value that is meant to be a server frame. */
export function parseServerFrame(value: unknown): Decoded<ServerFrame> {
  return parseWith<ServerFrame>(serverFrameSchemas, value);
}

/** Parses and validates the text of a WebSocket frame from a client. */
export function decodeClientFrame(text: string): Decoded<ClientFrame> {
  const json = parseJson(text);
  return json.ok ? parseClientFrame(json.value) : json;
}

/** Parses and validates the text of a WebSocket frame from the server. */
export function decodeServerFrame(text: string): Decoded<ServerFrame> {
  const json = parseJson(text);
  return json.ok ? parseServerFrame(json.value) : json;
}
