/**
 * The question a turn starts from, as a `send` or a `regenerate` / `edit` asks it, or why
 * it cannot be asked. Read once the turn is claimed (turn-runner.ts), so that what it
 * checks (the last exchange) cannot change before the turn begins.
 */
import { ErrorCode, type ChatMessage, type ImageRef } from '@aalis/protocol';
import { textOf } from '../history/store.js';
import type { HistoryStore } from '../history/store.js';
import type { ImageAttachments } from '../images/attachments.js';

/** A question a turn starts from: its text, the images it names, the question it replaces. */
export interface Question {
  text: string;
  images?: ImageRef[];
  replaces?: string;
}

/** Why a question cannot be asked: the `error` frame's code and words. */
export interface Refusal {
  refused: string;
  message: string;
}

/** A question's images, as a field to spread into another question. */
const imagesField = ({ images }: ChatMessage): Pick<Question, 'images'> => (images?.length ? { images } : {});
const badFrame = (message: string): Refusal => ({ refused: ErrorCode.BadFrame, message });
const noImages = (message: string): Refusal => ({ refused: ErrorCode.ImagesUnsupported, message });

/** A `send`: its text, with the session's uploads it names. */
export async function sentQuestion(
  store: HistoryStore,
  attachments: ImageAttachments | undefined,
  sessionId: string,
  text: string,
  imageIds: readonly string[],
): Promise<Question | Refusal> {
  if (!imageIds.length) return text.trim() ? { text } : badFrame('send: the message is empty');
  const images = await attached(store, attachments, sessionId, imageIds);
  return 'refused' in images ? images : { text, images };
}

/**
 * The uploads a `send` names, in its order: each must be one of this session's, and no
 * more than the limit. Any other id is refused like an unknown one, so that another
 * session's ids cannot be probed.
 */
async function attached(
  store: HistoryStore,
  attachments: ImageAttachments | undefined,
  sessionId: string,
  ids: readonly string[],
): Promise<ImageRef[] | Refusal> {
  if (!attachments) return noImages('this model cannot read images: send the message without them');
  if (ids.length > attachments.maxCount)
    return noImages(`at most ${attachments.maxCount} images can be sent with one message`);
  // What they are, not their bytes (those are read once, when the turn runs).
  const unique = [...new Set(ids)];
  const found = new Map((await store.imageRefs(sessionId, unique)).map((ref) => [ref.id, ref]));
  if (found.size !== unique.length) return noImages('an image was not found: attach it again');
  return unique.map((id) => found.get(id)!);
}

/**
 * The last question again: for a new answer (`regenerate`: `messageId` is the last
 * answer), or rewritten (`edit`: `messageId` is the last question, `text` the new one).
 * It `replaces` the earlier one.
 */
export async function questionAgain(
  store: HistoryStore,
  sessionId: string,
  request: { messageId: string; text?: string },
): Promise<Question | Refusal> {
  const last = (await store.page(sessionId, { limit: 2 })).messages;
  const question = last.findLast((m) => m.role === 'user');
  if (!question) return badFrame('this conversation has no question to ask again');
  if (request.text === undefined) {
    const answer = last.at(-1);
    if (answer?.role !== 'assistant' || answer.id !== request.messageId)
      return badFrame('regenerate: only the last answer can be regenerated');
    return { text: textOf(question.parts, 'text'), ...imagesField(question), replaces: question.id };
  }
  if (question.id !== request.messageId) return badFrame('edit: only the last question can be edited');
  // The rewritten question keeps the images the first one was asked about.
  return { text: request.text, ...imagesField(question), replaces: question.id };
}
