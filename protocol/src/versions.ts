/**
 * Versions of an exchange (a question and what answered it). A regenerated answer or an
 * edited question is a new user message that `replaces` the earlier question: the earlier
 * exchange is kept, as an earlier version at the same place in the conversation. The
 * server gives the model only the latest versions (`latestVersions`); a client shows one
 * version of each place and lets the visitor switch (`versionGroups`).
 */
import type { ChatMessage } from './shapes.js';

/** A question and the messages after it, up to the next question. */
export type Exchange = readonly ChatMessage[];

/** The conversation by place: each place holds its versions, oldest first. */
export function versionGroups(messages: readonly ChatMessage[]): Exchange[][] {
  const groups: Exchange[][] = [];
  /** Which group a question's exchange is in, by the question's id. */
  const groupOf = new Map<string, Exchange[]>();
  for (const exchange of exchanges(messages)) {
    const question = exchange[0]!;
    const earlier =
      question.role === 'user' && question.replaces ? groupOf.get(question.replaces) : undefined;
    const group = earlier ?? [];
    if (!earlier) groups.push(group);
    group.push(exchange);
    if (question.role === 'user') groupOf.set(question.id, group);
  }
  return groups;
}

/** The conversation as it stands: the latest version of every place. */
export function latestVersions(messages: readonly ChatMessage[]): ChatMessage[] {
  return versionGroups(messages).flatMap((versions) => [...versions.at(-1)!]);
}

/** Splits at every user message; messages before the first one are an exchange of their own. */
function exchanges(messages: readonly ChatMessage[]): Exchange[] {
  const out: ChatMessage[][] = [];
  for (const message of messages) {
    if (message.role === 'user' || !out.length) out.push([message]);
    else out.at(-1)!.push(message);
  }
  return out;
}
