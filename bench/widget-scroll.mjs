/* global window, document, requestAnimationFrame -- page.evaluate bodies run in the browser */
// Benchmark 7: reading back through a long conversation. The widget (the real script-tag
// build, headless Chromium) holds a 1,000-message transcript, every place shown; then a
// mouse wheel scrolls it from the newest message to the oldest, as Chromium's input
// pipeline delivers a real gesture (`Input.synthesizeScrollGesture`). Reported: long
// tasks (50 ms or more) and the longest, during the scroll, and the frames painted per
// second with the longest gap between two. `repeats` runs, each on a fresh page: the worst
// run's long tasks, the median frame rate.
import { median } from './lib.mjs';
import { transcript, withWidgetPage } from './widget-page.mjs';

export async function widgetScrollBench({ messages = 1000, speed = 10000, repeats = 3 } = {}) {
  const runs = [];
  for (let i = 0; i < repeats; i++) runs.push(await scrollOnce(messages, speed));
  return {
    messages,
    scrolledPx: runs[0].scrolledPx,
    runs,
    framesPerSecond: median(runs.map((r) => r.framesPerSecond)),
    longestFrameGapMs: Math.max(...runs.map((r) => r.longestFrameGapMs)),
    longTasks: Math.max(...runs.map((r) => r.longTasks)),
    longestTaskMs: Math.max(...runs.map((r) => r.longestTaskMs)),
  };
}

function scrollOnce(messages, speed) {
  return withWidgetPage(async ({ page, cdp }) => {
    const height = await page.evaluate(
      async (messages) => {
        const chat = document.getElementById('chat');
        const deliver = await window.__connect(chat);
        deliver({ type: 'ready', sessionId: 's', serverTime: Date.now(), messages, resumed: true });
        // Every place shown: the history is revealed a chunk a frame, so wait until it stops growing.
        const scroller = chat.shadowRoot.querySelector('.transcript');
        let last = -1;
        while (scroller.scrollHeight !== last || !scroller.querySelector('table')) {
          last = scroller.scrollHeight;
          await new Promise((r) => setTimeout(r, 300));
        }
        return last;
      },
      transcript(messages, { rich: true }),
    );
    const box = await page.evaluate(() => {
      const r = document
        .getElementById('chat')
        .shadowRoot.querySelector('.transcript')
        .getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    });
    await page.evaluate(async () => {
      // Long tasks of the load are reported a frame late: let them in before the count starts.
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      window.__long.length = 0;
      window.__frames = [];
      const tick = (t) => {
        if (!window.__frames) return;
        window.__frames.push(t);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const started = Date.now();
    // Positive is up: from the bottom, all the way to the top.
    await cdp.send('Input.synthesizeScrollGesture', {
      x: Math.round(box.x),
      y: Math.round(box.y),
      yDistance: height,
      speed,
      gestureSourceType: 'mouse',
      repeatCount: 1,
    });
    const seconds = (Date.now() - started) / 1000;
    const seen = await page.evaluate(async () => {
      // The gesture's last long task, if any, is reported a frame late.
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const frames = window.__frames;
      window.__frames = undefined;
      const gaps = frames.slice(1).map((t, i) => t - frames[i]);
      const scroller = document.getElementById('chat').shadowRoot.querySelector('.transcript');
      return {
        framesPerSecond: (frames.length - 1) / ((frames.at(-1) - frames[0]) / 1000),
        longestFrameGapMs: Math.max(0, ...gaps),
        longTaskDurations: window.__long.filter((d) => d >= 50),
        scrollTopAtEnd: scroller.scrollTop,
        bubbles: scroller.querySelectorAll('[part~="bubble"]').length,
      };
    });
    // A run that did not show every message, or did not reach the top, measured less.
    if (seen.bubbles !== messages) throw new Error(`${seen.bubbles} of ${messages} messages shown`);
    if (seen.scrollTopAtEnd > 5) throw new Error(`the scroll stopped ${seen.scrollTopAtEnd}px from the top`);
    return {
      scrolledPx: height,
      seconds,
      framesPerSecond: seen.framesPerSecond,
      longestFrameGapMs: seen.longestFrameGapMs,
      longTasks: seen.longTaskDurations.length,
      longestTaskMs: Math.max(0, ...seen.longTaskDurations),
    };
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(
    JSON.stringify(await widgetScrollBench({ messages: Number(process.argv[2] ?? 1000) }), null, 2),
  );
}
