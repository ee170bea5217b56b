/**
 * Model replies the multi-instance and fault tests script, as real Chat Completions
 * bytes (fake-upstream.ts): a tool call written slowly, an approval, a slow answer.
 */
import { completionChunk, sse, textAnswer, usageChunk, type Reply } from './fake-upstream.js';

/**
 * A slow tool call (its arguments in many pieces, `delayMs` apart), then the answer after
 * it: to `get_time` unless said otherwise.
 */
export function slowToolCall(
  pieces = 30,
  { name = 'get_time', fields = '"timezone":"Europe/Paris"', delayMs = 100 } = {},
): Reply[] {
  // Valid arguments, made long by whitespace, so that writing them takes a while.
  const [key, value] = fields.split(/:(.*)/s) as [string, string];
  const args = `{${key}:${' '.repeat(pieces * 4)}${value}}`;
  const size = Math.ceil(args.length / pieces);
  const chunks: unknown[] = [
    completionChunk({
      role: 'assistant',
      tool_calls: [{ index: 0, id: 'call_cluster', type: 'function', function: { name, arguments: '' } }],
    }),
  ];
  for (let at = 0; at < args.length; at += size)
    chunks.push(
      completionChunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(at, at + size) } }] }),
    );
  chunks.push(completionChunk({}, 'tool_calls'), usageChunk(10, 10));
  return [{ body: sse(chunks), byEvent: true, delayMs }, { body: textAnswer('It is noon in Paris.') }];
}

/** A call to `calculator`, which asks for approval, then the answer after it. */
export function calculatorCall(): Reply[] {
  const call = {
    index: 0,
    id: 'call_calc',
    type: 'function',
    function: { name: 'calculator', arguments: '{"expression":"6*7"}' },
  };
  return [
    {
      body: sse([
        completionChunk({ role: 'assistant', tool_calls: [call] }),
        completionChunk({}, 'tool_calls'),
      ]),
    },
    { body: textAnswer('It is 42.') },
  ];
}

/** A slow plain answer, one word at a time. */
export function slowText(words = 40): Reply {
  const chunks = [completionChunk({ role: 'assistant', content: '' })];
  for (let i = 0; i < words; i++) chunks.push(completionChunk({ content: `word${i} ` }));
  chunks.push(completionChunk({}, 'stop'), usageChunk(5, words));
  return { body: sse(chunks), byEvent: true, delayMs: 60 };
}

/** One call to tool `name` with `args` (JSON text), then `answer` after it. */
export function toolCallThen(
  name: string,
  args: string,
  answer: string,
  id = `call_${name.replace(/\W/g, '')}`,
): Reply[] {
  const call = { index: 0, id, type: 'function', function: { name, arguments: args } };
  return [
    {
      body: sse([
        completionChunk({ role: 'assistant', tool_calls: [call] }),
        completionChunk({}, 'tool_calls'),
      ]),
    },
    { body: textAnswer(answer) },
  ];
}
