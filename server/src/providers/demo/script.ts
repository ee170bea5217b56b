/**
 * What the scripted demo model says: a reply is a list of steps (reasoning, text, a
 * tool call, a pause) that the demo model server streams in the real Chat Completions
 * format. Kept apart from the pacing and the HTTP so it reads as the model's lines.
 */

export type Step =
  | { kind: 'reasoning'; text: string }
  | { kind: 'text'; text: string }
  | {
      kind: 'tool_call';
      name: string;
      arguments: Record<string, unknown>;
      stallAfterChars?: number;
      stallMs?: number;
    };

export interface Reply {
  steps: Step[];
}

/** The conversation as the demo model reads it from a Chat Completions request. */
export interface DemoRequestMessage {
  role: string;
  /** Text, or Chat Completions content parts (text and `image_url`). */
  content?: string | null | Array<{ type: string; text?: string; image_url?: { url?: string } }>;
}
