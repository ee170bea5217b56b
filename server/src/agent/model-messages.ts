/**
 * The conversation as a model must see it, from the stored messages. An assistant
 * message holds every round of its turn in order (reasoning, text, tool calls with their
 * results, more text); the model wants each round as an assistant message with its tool
 * calls, followed by one tool message per call.
 *
 * Rounds are told apart by their parts: text after a round's calls starts the next
 * round. A message that carries its round record (stored-message.ts) is split by it
 * instead, exactly, so that each round gets back what its provider gave to be replayed
 * (signed thinking, encrypted reasoning), even when two rounds made calls with no text
 * between them.
 */
import { imagesOf } from './cap-result.js';
import type { Part, ToolCallPart } from '@aalis/protocol';
import type { ModelMessage, RoundReplay, ToolImage } from '../providers/core/types.js';
import type { StoredMessage } from './stored-message.js';
import { textOf } from '../history/store.js';

/** What the model is told about a call that never finished (an aborted or failed turn). */
const UNFINISHED = 'Error: this tool call did not finish (the turn was interrupted).';
/** What the model is told about a call whose server stopped while it ran (status `unknown`). */
const MAY_HAVE_COMPLETED =
  'Unknown outcome: the server stopped while this tool call ran, so it may have completed. It was not run again; check before calling it again.';

/**
 * `images` holds the bytes of the images the user messages name, by id (the agent loads
 * them from the history); one it lacks (an older one past the turn's image budget, one
 * deleted meanwhile, any for a model that reads none) is mentioned in the text instead.
 */
export function toModelMessages(
  messages: readonly StoredMessage[],
  images: ReadonlyMap<string, ToolImage> = new Map(),
): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === 'user') out.push(userMessage(message, images));
    // A person's reply (a handoff): the model reads it as said on its side, and by whom.
    else if (message.role === 'operator')
      out.push({
        role: 'assistant',
        content: `(${message.author ?? 'A person'} from the site wrote:) ${textOf(message.parts, 'text')}`,
      });
    else out.push(...assistantRounds(message));
  }
  return out;
}

function userMessage(message: StoredMessage, images: ReadonlyMap<string, ToolImage>): ModelMessage {
  const content = textOf(message.parts, 'text');
  const refs = message.images ?? [];
  if (!refs.length) return { role: 'user', content };
  const found = refs.flatMap((ref) => images.get(ref.id) ?? []);
  const missing = refs.length - found.length;
  return {
    role: 'user',
    content: missing ? `${content}\n\n(${missing} attached image(s), not shown to you.)`.trim() : content,
    ...(found.length ? { images: found } : {}),
  };
}

function assistantRounds({ parts, rounds = [] }: StoredMessage): ModelMessage[] {
  const out: ModelMessage[] = [];
  /** Which recorded round made each call; empty for a message without a record. */
  const roundOf = new Map(rounds.flatMap((round, index) => round.callIds.map((id) => [id, index] as const)));
  let round = 0;
  let text: Part[] = [];
  let calls: ToolCallPart[] = [];
  const flush = () => {
    const content = textOf(text, 'text');
    const reasoning = textOf(text, 'reasoning');
    const replay: RoundReplay | undefined = rounds[round]?.replay;
    if (!content && !reasoning && !calls.length) return;
    out.push({
      role: 'assistant',
      content,
      ...(reasoning ? { reasoning } : {}),
      ...(replay ? { replay } : {}),
      ...(calls.length
        ? {
            toolCalls: calls.map((call) => ({
              id: call.callId,
              index: call.index,
              name: call.name,
              arguments: argumentsText(call.arguments),
            })),
          }
        : {}),
    });
    for (const call of calls) {
      const images = resultImages(call);
      out.push({
        role: 'tool',
        toolCallId: call.callId,
        name: call.name,
        content: resultText(call),
        ...(images ? { images } : {}),
        ...(call.status === 'done' ? {} : { isError: true }),
      });
    }
    text = [];
    calls = [];
  };
  const nextRound = (to = round + 1) => {
    flush();
    round = to;
  };
  for (const part of parts) {
    if (part.type === 'tool_call') {
      const made = roundOf.get(part.callId);
      // A call of a later round, with no text between: the earlier round ends here.
      if (made !== undefined && made > round) nextRound(made);
      calls.push(part);
    } else {
      // Text after a group of tool calls belongs to the next round.
      if (calls.length) nextRound();
      text.push(part);
    }
  }
  flush();
  return out;
}

/**
 * The arguments are kept as the text the model wrote, and sent back as they are; a
 * message stored before that keeps them parsed, and they are written as JSON again.
 */
const argumentsText = (args: unknown): string =>
  typeof args === 'string' ? args : JSON.stringify(args ?? {});

function resultText(call: Pick<ToolCallPart, 'status' | 'result'>): string {
  if (call.status === 'unknown') return MAY_HAVE_COMPLETED;
  if (call.status === 'running' || call.result === undefined)
    return call.status === 'done' ? 'null' : UNFINISHED;
  const result = withoutImageData(call.result);
  const text = typeof result === 'string' ? result : JSON.stringify(result);
  return call.status === 'error' ? `Error: ${text}` : text;
}

/** The images a finished call returned, for the providers that can show a model one. */
function resultImages(call: Pick<ToolCallPart, 'status' | 'result'>): ToolImage[] | undefined {
  if (call.status !== 'done' && call.status !== 'error') return undefined;
  const images = imagesOf(call.result);
  return images?.length ? images.map(({ mimeType, data }) => ({ mimeType, data })) : undefined;
}

/**
 * Images a tool returned are described in the text: a Chat Completions tool message is
 * text, and base64 would only fill the model's context. Providers whose tool results can
 * carry images (Anthropic, the Responses API) send them as images too (`images`).
 */
function withoutImageData(result: unknown): unknown {
  const images = imagesOf(result);
  if (!images) return result;
  return {
    ...(result as object),
    images: images.map(({ mimeType, data }) => ({
      type: 'image',
      mimeType,
      note: `an image of about ${Math.round((data.length * 3) / 4 / 1024)} KB, shown to the user`,
    })),
  };
}
