/**
 * The browser entry, run where the widget runs: frames arrive as text, are decoded
 * against the generated schema, and reduce to the view the widget renders.
 */
import { expect } from '@open-wc/testing';
import {
  clockOffset,
  decodeServerFrame,
  elapsedSince,
  emptyView,
  progressList,
  reduce,
  toServerTime,
  type ChatView,
} from '@aalis/protocol/client';

const wire = [
  { type: 'ready', sessionId: 's1', serverTime: 1_000_000, messages: [], resumed: false },
  {
    type: 'user_message',
    sessionId: 's1',
    message: {
      id: 'u1',
      role: 'user',
      parts: [{ type: 'text', text: 'Write the report' }],
      createdAt: 1_000_000,
    },
  },
  { type: 'stream', sessionId: 's1', contentDelta: 'Writing it ' },
  { type: 'stream', sessionId: 's1', contentDelta: 'now.' },
  {
    type: 'stream',
    sessionId: 's1',
    toolCallProgress: { index: 0, name: 'write_file', charsAccumulated: 0 },
  },
  {
    type: 'stream',
    sessionId: 's1',
    toolCallProgress: { index: 0, name: 'write_file', charsAccumulated: 142 },
  },
].map((frame) => JSON.stringify(frame));

function receive(texts: string[], offset: number): ChatView {
  let view = emptyView;
  for (const text of texts) {
    const decoded = decodeServerFrame(text);
    if (!decoded.ok) throw new Error(decoded.error.message);
    view = reduce(view, decoded.frame, toServerTime(Date.now(), offset));
  }
  return view;
}

describe('@aalis/protocol/client in Chromium', () => {
  it('turns wire text into the view the widget renders', () => {
    const view = receive(wire, clockOffset(1_000_000, Date.now()));
    expect(view.turn?.parts).to.deep.equal([{ type: 'text', text: 'Writing it now.' }]);
    const cards = progressList(view.turn!);
    expect(cards.map(({ name, charsAccumulated }) => `${name} ${charsAccumulated}`)).to.deep.equal([
      'write_file 142',
    ]);
  });

  it('counts elapsed time on the server clock though the page clock is hours off', () => {
    // The server's clock reads 1,000,000 at arrival; this page's clock reads Date.now(),
    // which is decades away from it.
    const offset = clockOffset(1_000_000, Date.now());
    const view = receive(wire, offset);
    const card = progressList(view.turn!)[0]!;
    const elapsed = elapsedSince(card.startedAt, Date.now() + 3_200, offset);
    expect(elapsed).to.be.within(3_200, 3_400);
  });

  it('refuses malformed frames with a reason instead of throwing', () => {
    for (const text of ['{', '[]', '{"type":"stream"}', '{"type":"stream","sessionId":"s","done":"yes"}']) {
      const decoded = decodeServerFrame(text);
      expect(decoded.ok, text).to.equal(false);
      if (!decoded.ok) expect(decoded.error.message).to.be.a('string').and.not.equal('');
    }
    const unknown = decodeServerFrame('{"type":"future_frame"}');
    expect(unknown.ok === false && unknown.error.code).to.equal('unknown_type');
  });
});
