// What the two example agents decide and do, without a model: one tool call keyed on the
// question (a weather forecast, or a note written to a file), then an answer that uses its
// result. agent.mjs speaks it as AG-UI events, ai-sdk-route.mjs as an AI SDK UI message
// stream; a real agent (LangGraph, Mastra, Pydantic AI, the AI SDK's streamText) would ask
// a model instead, and its events would look the same on the wire.
import { setTimeout as delay } from 'node:timers/promises';

/** Resolves after `ms`; rejects with an AbortError, its timer cleared, when `signal` aborts. */
export const sleep = (ms, signal) => delay(ms, undefined, { signal });

/** `text` cut into about `count` pieces, as a model writes a tool call's arguments. */
export function fragments(text, count) {
  const size = Math.max(1, Math.ceil(text.length / count));
  const pieces = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  return pieces;
}

/** Words with their spaces, as a model streams its answer. */
export const words = (text) => text.match(/\S+\s*/g) ?? [];

/**
 * The agent's plan for a question: the tool it calls, with which arguments, what the tool
 * returns, and the answer it then writes from that result.
 */
export function plan(question) {
  return /weather|forecast|rain|temperature/i.test(question) ? weatherPlan(question) : notePlan(question);
}

function weatherPlan(question) {
  const city = /\b(?:in|for|at)\s+([\p{Lu}][\p{L}' -]*?)\s*(?:[?.!,]|$)/u.exec(question)?.[1] ?? 'Lisbon';
  const args = { city, days: 3, unit: 'celsius', include: ['temperature', 'rain', 'wind'] };
  return {
    toolName: 'get_weather',
    args,
    run: () => forecast(city, args.days),
    answer: ({ city: name, days }) =>
      `Here is the forecast for ${name}: ` +
      days.map((d) => `${d.day} ${d.high} °C and ${d.sky}, ${d.rainChance}% chance of rain`).join('; ') +
      '. (Made-up figures: this example agent has no weather service.)',
  };
}

/** A forecast that is the same for the same city every time: tests can compare it. */
function forecast(city, days) {
  const seed = [...city].reduce((sum, char) => sum + char.codePointAt(0), 0);
  const skies = ['sunny', 'cloudy', 'showers', 'windy'];
  return {
    city,
    days: ['Today', 'Tomorrow', 'The day after'].slice(0, days).map((day, i) => ({
      day,
      high: 14 + ((seed + 3 * i) % 15),
      sky: skies[(seed + i) % skies.length],
      rainChance: (seed * (i + 7)) % 90,
    })),
  };
}

function notePlan(question) {
  const topic = question.replace(
    /^(please\s+)?(write|make|draft)\s+(me\s+)?(a\s+)?note\s+(about|on)\s+/i,
    '',
  );
  const bare = topic.replace(/[?.!]+$/, '').slice(0, 60) || 'untitled';
  const title = bare[0].toUpperCase() + bare.slice(1);
  const slug =
    title
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '') || 'note';
  const body = [
    `# ${title}`,
    '',
    `Asked: "${question}"`,
    '',
    '## What matters',
    ...[
      'Say who it is for and what they should do after reading it.',
      'Keep one idea per paragraph, and the most important one first.',
      'Name dates, places and amounts exactly; round nothing a reader may rely on.',
      'Link to the source of every figure, so that it can be checked later.',
      'End with the next step and who takes it.',
    ].map((line, i) => `${i + 1}. ${line}`),
    '',
    '## Draft',
    `This note is about ${title.toLowerCase()}. It was written by an example agent that has no`,
    'model behind it: its words are fixed, but the way they reach you is the real one. The',
    'arguments of this write_note call were streamed in small fragments, as a model writes',
    'them, so that the chat could show the call growing while it was written.',
  ].join('\n');
  const args = { path: `notes/${slug}.md`, title, tags: ['example', 'ag-ui'], body };
  return {
    toolName: 'write_note',
    args,
    run: () => ({ saved: true, path: args.path, characters: body.length }),
    answer: ({ path, characters }) =>
      `I wrote the note to ${path} (${characters} characters): a short checklist of what matters, ` +
      'then a first draft. Tell me what to change and I will rewrite it.',
  };
}

/** The newest user message's text, from AG-UI messages (content a string or parts). */
export function questionOf(messages) {
  const newest = messages.findLast((message) => message.role === 'user');
  if (!newest) return '';
  const { content } = newest;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n') : '';
}

/** Reads a request's JSON body, refusing more than `limit` bytes. */
export async function readJson(request, limit = 1024 * 1024) {
  const chunks = [];
  let size = 0;
  for await (const chunk of request) {
    size += chunk.length;
    if (size > limit) throw new Error(`the body is over ${limit} bytes`);
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
