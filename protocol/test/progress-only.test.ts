import { describe, expect, test } from 'vitest';
import { progressOnly } from '../src/index.js';
import { done, progress, stream, text, toolProgress, usage } from './frames.js';

describe('a frame that carries nothing but progress', () => {
  test('a tool call fragment is progress only, its index and count given', () => {
    expect(progressOnly(progress(1, 'get_weather', 42))).toEqual({
      index: 1,
      name: 'get_weather',
      charsAccumulated: 42,
    });
  });

  test('progress beside text, reasoning, the round end or usage is not: those must reach the reader', () => {
    const card = progress(0, 'get_weather', 10).toolCallProgress!;
    expect(progressOnly(stream({ contentDelta: 'Hi', toolCallProgress: card }))).toBeUndefined();
    expect(progressOnly(stream({ reasoningDelta: 'hm', toolCallProgress: card }))).toBeUndefined();
    expect(progressOnly(stream({ done: true, toolCallProgress: card }))).toBeUndefined();
    expect(progressOnly(stream({ usage: usage(5, 7), toolCallProgress: card }))).toBeUndefined();
  });

  test('frames without a card are not progress only', () => {
    expect(progressOnly(text('Hi'))).toBeUndefined();
    expect(progressOnly(done())).toBeUndefined();
    expect(progressOnly(toolProgress('c1', 0, 'get_weather', 0.5))).toBeUndefined();
  });
});
