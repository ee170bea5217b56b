/** The turn status line: why nothing streams while a turn runs (PROTOCOL.md, `turn_status`). */
import { expect } from '@open-wc/testing';
import {
  SESSION,
  announced,
  answerFrame,
  fakeClock,
  mount,
  progress,
  resumeFrame,
  retrying,
  statusLine,
  text,
  toolStart,
  userMessage,
  waiting,
} from './harness.js';

const HOURS_3 = 3 * 3_600_000;

describe('the turn status line', () => {
  it('a waiting status shows in the typing bubble, counts up, is announced once, and goes with the next words', async () => {
    const clock = fakeClock();
    try {
      const { frames, shadow } = await mount({ serverTime: Date.now() });
      await frames(userMessage(), waiting());
      const line = shadow.querySelector('.typing-bubble aalis-turn-status.turn-status[part~="turn-status"]');
      expect(line, 'status line inside the typing bubble').to.exist;
      expect(await statusLine(shadow)).to.equal('Waiting for the model…');
      expect(announced(shadow)).to.equal('Waiting for the model…');
      // A timer: readable when reached, never read out on each tick inside the log.
      expect(line!.getAttribute('role')).to.equal('timer');
      expect(line!.getAttribute('aria-live')).to.equal('off');

      await clock.advance(12_400);
      expect(await statusLine(shadow)).to.equal('Waiting for the model… 12 s');
      await clock.advance(1_000);
      expect(await statusLine(shadow)).to.equal('Waiting for the model… 13 s');
      expect(announced(shadow), 'the live region does not tick').to.equal('Waiting for the model…');

      await frames(text('Here it is.'));
      expect(shadow.querySelector('aalis-turn-status')).to.equal(null);
      expect(shadow.querySelector('.bubble.assistant.streaming')!.textContent).to.contain('Here it is.');
    } finally {
      clock.restore();
    }
  });

  it('a wait while a tool call is being written is left to its card; a retry is shown there too', async () => {
    const { frames, shadow } = await mount({ serverTime: Date.now() });
    await frames(userMessage(), progress(0, 'write_file', 120), waiting());
    expect(shadow.querySelector('aalis-turn-status'), 'one clock per wait: the card says it').to.equal(null);
    expect(shadow.querySelector('.tool-call-block-pending')).to.exist;
    await frames(retrying(2, 3_000));
    expect(await statusLine(shadow)).to.equal('The model service is busy: trying again in 3 s (attempt 2)');
  });

  it('a retry counts down at the end of the answer bubble, never below 0, and a tool start clears it', async () => {
    const clock = fakeClock();
    try {
      const { frames, shadow, el } = await mount({ serverTime: Date.now() });
      await frames(userMessage(), text('Let me check. '), retrying(2, 5_000));
      const bubble = shadow.querySelector('.bubble.assistant.streaming')!;
      expect(bubble.lastElementChild!.matches('aalis-turn-status[data-state="retrying"]')).to.equal(true);
      expect(await statusLine(shadow)).to.equal('The model service is busy: trying again in 5 s (attempt 2)');
      expect(announced(shadow)).to.equal('The model service is busy: trying again in 5 s (attempt 2)');
      await expect(el).to.be.accessible();

      await clock.advance(2_000);
      expect(await statusLine(shadow)).to.equal('The model service is busy: trying again in 3 s (attempt 2)');
      await clock.advance(10_000);
      expect(await statusLine(shadow)).to.equal('The model service is busy: trying again now (attempt 2)');

      // A new status is a change: said again, with its own words.
      await frames(retrying(3, 4_000));
      expect(announced(shadow)).to.equal('The model service is busy: trying again in 4 s (attempt 3)');

      await frames(toolStart('c1', 'get_time', {}));
      expect(shadow.querySelector('aalis-turn-status')).to.equal(null);
      expect(bubble.querySelector('[data-call-id="c1"]')).to.exist;
    } finally {
      clock.restore();
    }
  });

  it('after a reload, stream_resume restores it with the right seconds on a client clock 3 hours off', async () => {
    // The page's clock is 3 hours behind the server's: only the clock offset gets it right.
    const serverNow = Date.now() + HOURS_3;
    const { frames, shadow } = await mount({ serverTime: serverNow });
    const resume = (turnStatus: Record<string, unknown>) => ({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: serverNow,
      parts: [{ type: 'text', text: 'Looking it up.' }],
      toolCallsProgress: [],
      turnStatus,
    });
    await frames(resume({ state: 'waiting', since: serverNow - 12_300 }));
    expect(await statusLine(shadow)).to.equal('Waiting for the model… 12 s');
    // Said once, without seconds that would be stale by the time they are heard.
    expect(announced(shadow)).to.equal('Waiting for the model…');

    await frames(resume({ state: 'retrying', attempt: 2, retryInMs: 8_000, since: serverNow - 3_000 }));
    expect(await statusLine(shadow)).to.equal('The model service is busy: trying again in 5 s (attempt 2)');
    expect(shadow.querySelector('.bubble.assistant.streaming')!.textContent).to.contain('Looking it up.');

    await frames(text(' Found it.'));
    expect(await statusLine(shadow)).to.equal(null);
  });

  it('an answer kept while the history is down says it is being saved, counts down, and its stored message ends the turn', async () => {
    const clock = fakeClock();
    try {
      const { frames, shadow } = await mount({ serverTime: Date.now() });
      const saving = (attempt: number, retryInMs: number) => ({
        type: 'turn_status',
        sessionId: SESSION,
        state: 'saving',
        attempt,
        retryInMs,
      });
      await frames(userMessage(), text('The whole answer.'), saving(2, 4_000));
      const bubble = shadow.querySelector('.bubble.assistant.streaming')!;
      expect(bubble.lastElementChild!.matches('aalis-turn-status[data-state="saving"]')).to.equal(true);
      expect(await statusLine(shadow)).to.equal('Saving the answer: trying again in 4 s (attempt 2)');
      expect(announced(shadow)).to.equal('Saving the answer: trying again in 4 s (attempt 2)');
      expect(bubble.textContent).to.contain('The whole answer.');

      await clock.advance(3_000);
      expect(await statusLine(shadow)).to.equal('Saving the answer: trying again in 1 s (attempt 2)');
      await clock.advance(2_000);
      expect(await statusLine(shadow)).to.equal('Saving the answer: trying again now (attempt 2)');
      await frames(saving(3, 2_000));
      expect(await statusLine(shadow)).to.equal('Saving the answer: trying again in 2 s (attempt 3)');

      // Stored: the ordinary message ends the turn, and the line goes.
      await frames(answerFrame('The whole answer.'));
      expect(shadow.querySelector('aalis-turn-status')).to.equal(null);
      expect(shadow.querySelector('.bubble.assistant:not(.streaming)')!.textContent).to.contain(
        'The whole answer.',
      );
    } finally {
      clock.restore();
    }
  });

  it('a server that stopped renewing its turn is said to be not responding, counting up; a reload mid-save resumes the countdown', async () => {
    const clock = fakeClock();
    try {
      const serverNow = Date.now();
      const { frames, shadow } = await mount({ serverTime: serverNow });
      await frames(userMessage(), text('Half an answer'), {
        type: 'turn_status',
        sessionId: SESSION,
        state: 'unresponsive',
      });
      expect(await statusLine(shadow)).to.equal('The server running this answer is not responding…');
      expect(announced(shadow)).to.equal('The server running this answer is not responding…');
      await clock.advance(5_200);
      expect(await statusLine(shadow)).to.equal('The server running this answer is not responding… 5 s');

      // A tab that joins while the answer waits to be stored: stream_resume has it, with the status.
      await frames(
        resumeFrame('The whole answer.', {
          serverTime: serverNow + 5_200,
          turnStatus: { state: 'saving', attempt: 4, retryInMs: 8_000, since: serverNow + 2_200 },
        }),
      );
      expect(await statusLine(shadow)).to.equal('Saving the answer: trying again in 5 s (attempt 4)');
      expect(shadow.querySelector('.bubble.assistant.streaming')!.textContent).to.contain(
        'The whole answer.',
      );
    } finally {
      clock.restore();
    }
  });

  it('speaks Chinese', async () => {
    const serverNow = Date.now() - HOURS_3;
    const { frames, shadow } = await mount({ locale: 'zh-CN', serverTime: serverNow });
    await frames({
      type: 'stream_resume',
      sessionId: SESSION,
      serverTime: serverNow,
      parts: [],
      toolCallsProgress: [],
      turnStatus: { state: 'waiting', since: serverNow - 12_300 },
    });
    expect(await statusLine(shadow)).to.equal('正在等待模型… 12 秒');
    await frames(retrying(2, 5_000));
    expect(await statusLine(shadow)).to.equal('模型服务繁忙：5 秒后重试（第 2 次）');
    expect(announced(shadow)).to.equal('模型服务繁忙：5 秒后重试（第 2 次）');
    await frames({ type: 'turn_status', sessionId: SESSION, state: 'saving', attempt: 2, retryInMs: 4_000 });
    expect(await statusLine(shadow)).to.equal('正在保存回答：4 秒后重试（第 2 次）');
    await frames({ type: 'turn_status', sessionId: SESSION, state: 'unresponsive' });
    expect(await statusLine(shadow)).to.equal('运行此回答的服务器没有响应…');
  });

  it('a page themes it through ::part(turn-status); a retry is coloured apart from a wait', async () => {
    const style = document.createElement('style');
    style.textContent = 'aalis-chat::part(turn-status) { font-style: italic; }';
    document.head.append(style);
    try {
      const { frames, shadow } = await mount();
      await frames(userMessage(), waiting());
      const line = () => shadow.querySelector('aalis-turn-status')!;
      expect(getComputedStyle(line()).fontStyle).to.equal('italic');
      const waitingColour = getComputedStyle(line()).color;
      await frames(retrying(1, 3_000));
      // The light theme's warning colour (--aalis-color-warning).
      expect(getComputedStyle(line()).color).to.equal('rgb(173, 87, 0)');
      expect(waitingColour).not.to.equal('rgb(173, 87, 0)');
    } finally {
      style.remove();
    }
  });
});
