/* global window, document, customElements, requestAnimationFrame -- page.evaluate bodies run in the browser */
// Benchmark 4: the widget's rendering cost in headless Chromium. A page with the real
// script-tag build, a 300-message transcript, and three tool cards fed 100 progress
// frames a second each for 10 s through a socket made in the page (the test transport):
// renders per second against frames per second, long tasks, main-thread busy share, memory.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromePath, chromiumArgs } from '../scripts/ensure-chromium.mjs';
import { root } from './lib.mjs';
import { selfTimeByFunction, topFunctions } from './resume.mjs';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="/aalis-chat.js"></script></head><body>
<aalis-chat id="chat" theme="light" style="--aalis-height: 700px"></aalis-chat></body></html>`;

export async function widgetRenderBench({ seconds = 10, rate = 100, cards = 3, history = 300 } = {}) {
  const bundle = readFileSync(join(root, 'widget/dist/aalis-chat.js'));
  const server = createServer((req, res) => {
    if (req.url === '/aalis-chat.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const browser = await chromium.launch({
    executablePath: chromePath,
    args: chromiumArgs,
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    await page.addInitScript(() => {
      // Long tasks, counted from the start.
      window.__long = [];
      new PerformanceObserver((list) =>
        window.__long.push(...list.getEntries().map((e) => e.duration)),
      ).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    // Main-thread time and heap from Chromium's own counters, around the load.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metric = async () =>
      Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const before = await metric();
    // WIDGET_PROFILE=1: Chromium's sampling profiler over the run, by function (build the
    // widget with NO_MINIFY=1 for names).
    if (process.env.WIDGET_PROFILE) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.start');
    }
    const result = await page.evaluate(
      async ({ seconds, rate, cards, history }) => {
        await customElements.whenDefined('aalis-chat');
        const chat = document.getElementById('chat');
        let socket;
        chat.socketFactory = () => {
          socket = {
            readyState: 1,
            send() {},
            close() {},
            onopen: null,
            onmessage: null,
            onclose: null,
            onerror: null,
          };
          setTimeout(() => socket.onopen?.(new Event('open')));
          return socket;
        };
        await new Promise((r) => setTimeout(r, 50));
        const deliver = (frame) =>
          socket.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
        const now = Date.now();
        const messages = Array.from({ length: history }, (_, i) => ({
          id: `m${i}`,
          role: i % 2 ? 'assistant' : 'user',
          parts: [
            {
              type: 'text',
              text:
                i % 2
                  ? `An answer with **markdown**, a [link](https://example.com) and \`code\`, number ${i}.`
                  : `Question ${i}?`,
            },
          ],
          createdAt: now - (history - i) * 1000,
        }));
        deliver({ type: 'ready', sessionId: 's', serverTime: now, messages, resumed: true });
        deliver({
          type: 'user_message',
          sessionId: 's',
          message: { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }], createdAt: now },
        });
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
        return {
          seconds: elapsed,
          framesPerSecond: frames / elapsed,
          rendersPerSecond: renders / elapsed,
          paintsPerSecond: paints / elapsed,
          longTasks: longTasks.length,
          longestTaskMs: Math.max(0, ...longTasks),
        };
      },
      { seconds, rate, cards, history },
    );
    const after = await metric();
    if (process.env.WIDGET_PROFILE)
      console.error(topFunctions([selfTimeByFunction((await cdp.send('Profiler.stop')).profile)]));
    result.mainThreadBusyShare = (after.TaskDuration - before.TaskDuration) / result.seconds;
    result.heapUsedMb = Math.round(after.JSHeapUsedSize / 2 ** 20);
    return result;
  } finally {
    await browser.close();
    server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await widgetRenderBench({ seconds: Number(process.argv[2] ?? 10) }), null, 2));
}
