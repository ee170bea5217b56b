import { expect, test } from 'vitest';
import {
  clockOffset,
  elapsedSince,
  emptyView,
  progressList,
  reduce,
  snapshot,
  toServerTime,
} from '../src/index.js';
import { progress, ready, userMessage } from './frames.js';

const HOURS = 3_600_000;

test('a client clock three hours fast still shows the right elapsed time of a resumed card', () => {
  // The server saw the card start at server time 1,000,000 and takes a snapshot 3.2 s later.
  let server = reduce(reduce(emptyView, ready(), 1_000_000), userMessage('u', 'go'), 1_000_000);
  server = reduce(server, progress(0, 'write_file', 142), 1_000_000);
  const resume = snapshot(server, 1_003_200)!;

  // The page's clock is three hours ahead; the frame arrives 40 ms after it was sent.
  const localArrival = 1_003_200 + 3 * HOURS + 40;
  const offset = clockOffset(resume.serverTime, localArrival);
  const client = reduce(reduce(emptyView, ready(), 0), resume, toServerTime(localArrival, offset));
  const card = progressList(client.turn!)[0]!;

  // One second later on the page, the card reads 4.2 s: off by the network delay only, never by hours.
  expect(elapsedSince(card.startedAt, localArrival + 1_000, offset)).toBe(4_200);
});

test('a client clock two hours slow stamps live frames on the server clock', () => {
  const offset = clockOffset(5_000_000, 5_000_000 - 2 * HOURS);
  const local = 5_000_000 - 2 * HOURS + 700;
  let view = reduce(emptyView, ready(), 0);
  view = reduce(view, progress(1, 'search', 3), toServerTime(local, offset));
  expect(progressList(view.turn!)[0]?.startedAt).toBe(5_000_700);
  expect(elapsedSince(5_000_700, local + 2_500, offset)).toBe(2_500);
});

test('elapsed time is never negative, even with a stamp from the future', () => {
  expect(elapsedSince(10_000, 5_000, 0)).toBe(0);
});
