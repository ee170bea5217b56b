/**
 * A long answer restored by a reload paints its end first, where the reader is, and the
 * text above it over the next frames: the visitor sees the answer at once, in order, at
 * the bottom of the transcript, with nothing lost or repeated.
 */
import { expect } from '@open-wc/testing';
import { LONG_TEXT } from '../src/markdown/render.js';
import { mount, resumeFrame, text, until } from './harness.js';

/** About 60 KB of numbered paragraphs, with a code block of blank lines in the middle. */
function longAnswer(): string {
  const paragraphs = Array.from(
    { length: 120 },
    (_, n) => `Paragraph ${n + 1}. ${'The model has been writing this for a while. '.repeat(10)}`,
  );
  paragraphs.splice(60, 0, '```js\nconst a = 1;\n\nconst b = 2;\n```');
  return paragraphs.join('\n\n');
}

/** The numbers of the paragraphs shown, in order. */
const shownParagraphs = (bubble: Element): number[] =>
  [...bubble.querySelectorAll('p')].map((p) => Number(/^Paragraph (\d+)\./.exec(p.textContent!)?.[1]));

const atBottom = (scroller: HTMLElement): boolean =>
  scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= 2;

describe('a long text restored by a reload', () => {
  it('shows its end at once, then the text above it, in order and at the bottom', async () => {
    const answer = longAnswer();
    expect(answer.length).to.be.greaterThan(LONG_TEXT * 3);
    const { frames, shadow } = await mount();
    await frames(resumeFrame(answer));
    const bubble = shadow.querySelector('.bubble.streaming')!;
    const scroller = shadow.querySelector<HTMLElement>('.transcript')!;
    const first = shownParagraphs(bubble);
    // The end, and only the end: the last paragraph is there, the first is not yet.
    expect(first.at(-1)).to.equal(120);
    expect(first.includes(1)).to.equal(false);
    expect(first.length < 40).to.equal(true);
    expect(atBottom(scroller)).to.equal(true);
    const last = bubble.querySelector('p:last-of-type');

    await until(() => shownParagraphs(bubble).length === 120);
    expect(shownParagraphs(bubble)).to.deep.equal(Array.from({ length: 120 }, (_, n) => n + 1));
    expect(bubble.querySelectorAll('pre code').length).to.equal(1);
    expect(bubble.querySelector('pre code')!.textContent).to.equal('const a = 1;\n\nconst b = 2;');
    // The end kept its place in the page while the start arrived above it.
    expect(bubble.querySelector('p:last-of-type') === last).to.equal(true);
    await until(() => atBottom(scroller));
  });

  it('takes text streamed after the reload at its end while the start is still coming', async () => {
    const answer = longAnswer();
    const { frames, shadow } = await mount();
    await frames(resumeFrame(answer), text('\n\nParagraph 121. Written after the reload.'));
    const bubble = shadow.querySelector('.bubble.streaming')!;
    expect(shownParagraphs(bubble).includes(1)).to.equal(false);
    await until(() => shownParagraphs(bubble).length === 121);
    expect(shownParagraphs(bubble)).to.deep.equal(Array.from({ length: 121 }, (_, n) => n + 1));
  });

  it('never holds back the start of a text that grew while the reader watched', async () => {
    const answer = longAnswer();
    const { frames, shadow } = await mount();
    await frames(resumeFrame(''));
    const bubble = shadow.querySelector('.bubble.streaming')!;
    for (let sent = 0; sent < answer.length; sent += 4_000) {
      await frames(text(answer.slice(sent, sent + 4_000)));
      expect(shownParagraphs(bubble)[0]).to.equal(1);
    }
    expect(shownParagraphs(bubble).length).to.equal(120);
  });
});
