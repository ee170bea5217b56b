/**
 * What both frame decoders share: the error shape, JSON parsing, and the envelope
 * checks (an object with a known string `type`) that come before any field is looked at.
 */
import { ErrorCode } from './constants.js';

export interface FrameError {
  code: typeof ErrorCode.BadFrame | typeof ErrorCode.UnknownType;
  /** One line a person can act on. Never echoes the offending value itself. */
  message: string;
  /** Dot path of the offending field (`message.parts.2.status`); absent for the whole frame. */
  field?: string;
}

export type Decoded<T> = { ok: true; frame: T } | { ok: false; error: FrameError };
type Failed = { ok: false; error: FrameError };

export function badFrame(message: string, field?: string): Failed {
  const error: FrameError = { code: ErrorCode.BadFrame, message };
  if (field !== undefined) error.field = field;
  return { ok: false, error };
}

/** The kind of a value in a few words; said instead of the value, which may be huge or hostile. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/** Parses frame text; a failure is a `bad_frame`, never a throw. */
export function parseJson(text: string): { ok: true; value: unknown } | Failed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return badFrame('a frame must be JSON text');
  }
}

/**
 * The frame's `type` when the value is an object whose `type` is one of `known`'s own
 * keys; the error otherwise. Own keys only: `{"type":"constructor"}` must not find
 * Object.prototype.constructor.
 */
export function frameType(value: unknown, known: object): { ok: true; type: string } | Failed {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return badFrame(`a frame must be a JSON object, received ${kindOf(value)}`);
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return badFrame(
      `type: ${type === undefined ? 'required' : `expected a string, received ${kindOf(type)}`}`,
      'type',
    );
  }
  if (!Object.hasOwn(known, type)) {
    return {
      ok: false,
      error: {
        code: ErrorCode.UnknownType,
        message: `unknown frame type "${type.slice(0, 40)}"`,
        field: 'type',
      },
    };
  }
  return { ok: true, type };
}
