/* global window, document, requestAnimationFrame -- page.evaluate bodies run in the browser */
// Benchmark 4: the widget's rendering cost in headless Chromium. A page with the real
// script-tag build, a 300-message transcript, and three tool cards fed 100 progress
// frames a second each for 10 s through a socket made in the page (the test transport):
// renders per second against frames per second, long tasks, main-thread busy share, memory.
import { selfTimeByFunction, topFunctions } from './resume.mjs';
import { transcript, withWidgetPage } from './widget-page.mjs';

export function widgetRenderBench({ seconds = 10, rate = 100, cards = 3, history = 300 } = {}) {
  return withWidgetPage(async ({ page, cdp, metrics }) => {
    const before = await metrics();
    // WIDGET_PROFILE=1: Chromium's sampling profiler over the run, by function (build the
    // widget with NO_MINIFY=1 for names).
    if (process.env.WIDGET_PROFILE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const result = await page.evaluate(
      async ({ seconds, rate, cards, messages }) => {
        const chat = document.getElementById('chat');
        const deliver = await window.__connect(chat);
        const now = Date.now();
        deliver({ type: 'ready', sessionId: 's', serverTime: now, messages, resumed: true });
        deliver({
          type: 'user_message',
          sessionId: 's',
          message: { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }], createdAt: now },
        });
        // The history as a visitor sees it, in markdown.
        while (!chat.shadowRoot.querySelector('.history strong')) await new Promise((r) => setTimeout(r, 20));
        await chat.updateComplete;
        // Count renders of the element and of the cards.
        let renders = 0;
        const render = chat.render.bind(chat);
        chat.render = () => (renders++, render());
        let frames = 0;
        let paints = 0;
        const countPaints = () => {
          paints++;
          if (running) requestAnimationFrame(countPaints);
        };
        let running = true;
        requestAnimationFrame(countPaints);
        const started = performance.now();
        // Long tasks before this point are the page's load and the history's first render.
        const longBefore = window.__long.length;
        await new Promise((resolve) => {
          let sent = 0;
          const total = seconds * rate;
          const timer = setInterval(() => {
            sent++;
            for (let index = 0; index < cards; index++) {
              deliver({
                type: 'stream',
                sessionId: 's',
                toolCallProgress: { index, name: `tool_${index}`, charsAccumulated: sent * 7 },
              });
              frames++;
            }
            if (sent >= total) {
              clearInterval(timer);
              resolve();
            }
          }, 1000 / rate);
        });
        await chat.updateComplete;
        const elapsed = (performance.now() - started) / 1000;
        running = false;
        const longTasks = window.__long.filter((d) => d >= 50);
        const longWhileBusy = window.__long.slice(longBefore).filter((d) => d >= 50);
        return {
          longTasksWhileBusy: longWhileBusy.length,
          longestWhileBusyMs: Math.max(0, ...longWhileBusy),
          seconds: elapsed,
          framesPerSecond: frames / elapsed,
          rendersPerSecond: renders / elapsed,
          paintsPerSecond: paints / elapsed,
          longTasks: longTasks.length,
          longestTaskMs: Math.max(0, ...longTasks),
        };
      },
      { seconds, rate, cards, messages: transcript(history) },
    );
    const after = await metrics();
    if (process.env.WIDGET_PROFILE)
      console.error(topFunctions([selfTimeByFunction((await cdp.send('Profiler.stop')).profile)]));
    result.mainThreadBusyShare = (after.TaskDuration - before.TaskDuration) / result.seconds;
    result.heapUsedMb = Math.round(after.JSHeapUsedSize / 2 ** 20);
    return result;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await widgetRenderBench({ seconds: Number(process.argv[2] ?? 10) }), null, 2));
}
