/* global window, document, requestAnimationFrame -- page.evaluate bodies run in the browser */
// Benchmark 5: resume. A turn is running with 50 KB of text so far and five tool calls
// being written; a page opens: how long from its WebSocket opening to the restored view
// painted (text and all five cards on screen)? The real server, the real widget build,
// Chromium; the model a fake upstream in the real SSE format that then holds still.
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { chromePath, chromiumArgs } from '../scripts/ensure-chromium.mjs';
import { median, startAalis, ws as WebSocket } from './lib.mjs';

const TEXT_KB = 50;
const TOOLS = 5;
/** The answer's last paragraph so far: the restored view shows it. */
const LAST_WORDS = 'These are the last words written before the tool calls.';

/** Streams 50 KB of text, the start of five tool calls, then nothing until closed. */
function startUpstream() {
  const chunk = (delta) =>
    `data: ${JSON.stringify({ id: 'r', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: '' }));
    const paragraph = 'Streaming text that a reader has been following for a while. '.repeat(8) + '\n\n';
    for (let sent = 0; sent < TEXT_KB * 1024; sent += paragraph.length)
      res.write(chunk({ content: paragraph }));
    res.write(chunk({ content: `${LAST_WORDS}\n\n` }));
    for (let index = 0; index < TOOLS; index++) {
      res.write(
        chunk({
          tool_calls: [
            {
              index,
              id: `call_${index}`,
              type: 'function',
              function: { name: `tool_${index}`, arguments: '{"a":' },
            },
          ],
        }),
      );
    }
    // Holds the turn open: the tool calls are still being written when the page opens.
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${server.address().port}` }),
    ),
  );
}

/** A CPU profile's self time (ms) by function and place. */
export function selfTimeByFunction(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    const key = `${functionName || '(anonymous)'} ${url.split('/').pop()}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return self;
}

/** The 25 functions with the most self time, averaged over the loads. */
export function topFunctions(profiles) {
  const total = new Map();
  for (const self of profiles)
    for (const [key, ms] of self) total.set(key, (total.get(key) ?? 0) + ms / profiles.length);
  return [...total]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([key, ms]) => `${ms.toFixed(1).padStart(7)} ms  ${key}`)
    .join('\n');
}

export async function resumeBench({ repeats = 7 } = {}) {
  const upstream = await startUpstream();
  const aalis = await startAalis(upstream.url);
  const browser = await chromium.launch({
    executablePath: chromePath,
    // The page is answered by page.route, which Chromium does not count as local.
    args: [...chromiumArgs, '--disable-features=LocalNetworkAccessChecks'],
  });
  try {
    // Start the turn from a plain client, and remember its session.
    const sessionId = await new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${aalis.port}/ws`);
      let id;
      socket.on('error', reject);
      socket.on('open', () => socket.send(JSON.stringify({ type: 'hello', protocol: 1 })));
      socket.on('message', (data) => {
        const frame = JSON.parse(data.toString());
        if (frame.type === 'ready') {
          id = frame.sessionId;
          socket.send(JSON.stringify({ type: 'send', text: 'go' }));
        }
        if (frame.type === 'stream' && frame.toolCallProgress?.index === TOOLS - 1) {
          socket.close();
          resolve(id);
        }
      });
    });
    const timings = [];
    const wholeTimings = [];
    // From the page's navigation: what the reader waits in all (the socket opens after
    // the script is loaded, so work moved before the socket opens shows here).
    const loadTimings = [];
    const selfTimes = [];
    for (let run = 0; run < repeats + 1; run++) {
      const page = await browser.newPage();
      if (process.env.RESUME_DEBUG) page.on('console', (m) => console.error('[page]', m.text()));
      await page.addInitScript(
        ({ sid, lastWords, timeline }) => {
          localStorage.setItem('aalis-chat-session', sid);
          window.__lastWords = lastWords;
          // RESUME_TIMELINE=1: each load's frames and long tasks, in ms after navigation.
          // Only then: reading every frame again would add to what is measured.
          window.__timeline = timeline ? [] : undefined;
          if (timeline)
            new PerformanceObserver((list) => {
              for (const task of list.getEntries())
                window.__timeline.push(
                  `long task ${Math.round(task.startTime)}+${Math.round(task.duration)}`,
                );
            }).observe({ type: 'longtask', buffered: true });
          // When the page's socket opens, and when five cards and the text are first painted.
          const Native = window.WebSocket;
          window.WebSocket = class extends Native {
            constructor(...args) {
              super(...args);
              this.addEventListener('open', () => (window.__openedAt = performance.now()));
              if (window.__timeline)
                this.addEventListener('message', (event) =>
                  window.__timeline.push(`${JSON.parse(event.data).type} ${Math.round(performance.now())}`),
                );
            }
          };
          // The restored view is what the reader sees: the end of the answer with the five
          // cards under it, the transcript at its bottom. A long answer renders its end
          // first; when all its text is in the page is timed apart (`wholeMs`).
          const check = () => {
            const root = document.querySelector('aalis-chat')?.shadowRoot;
            const cards = root?.querySelectorAll('.tool-call-block-pending').length ?? 0;
            const bubble = root?.querySelector('.bubble.streaming');
            const scroller = root?.querySelector('.transcript');
            const atBottom =
              scroller && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= 48;
            const text = bubble?.textContent ?? '';
            if (!window.__paintedAt && cards === 5 && atBottom && text.includes(window.__lastWords))
              window.__paintedAt = performance.now();
            if (cards === 5 && text.length > 40_000) window.__wholeAt = performance.now();
            else requestAnimationFrame(check);
          };
          requestAnimationFrame(check);
        },
        { sid: sessionId, lastWords: LAST_WORDS, timeline: Boolean(process.env.RESUME_TIMELINE) },
      );
      // The embedding page, answered by the browser itself but on the server's origin
      // (same-origin socket, the localStorage that remembers the session).
      await page.route('**/resume-page', (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<script type="module" src="/aalis-chat.js"></script><aalis-chat></aalis-chat>`,
        }),
      );
      // RESUME_PROFILE=1: Chromium's sampling profiler over each load, summed by function
      // (build the widget with NO_MINIFY=1 for names): where the page's time goes.
      const cdp = process.env.RESUME_PROFILE ? await page.context().newCDPSession(page) : undefined;
      if (cdp) {
        await cdp.send('Profiler.enable');
        await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
        await cdp.send('Profiler.start');
      }
      await page.goto(`http://127.0.0.1:${aalis.port}/resume-page`);
      await page
        .waitForFunction(() => window.__wholeAt, null, { timeout: 20_000 })
        .catch(async (error) => {
          const state = await page.evaluate(() => {
            const root = document.querySelector('aalis-chat')?.shadowRoot;
            return {
              opened: window.__openedAt,
              cards: root?.querySelectorAll('.tool-call-block-pending').length,
              text: root?.querySelector('.bubble.streaming')?.textContent?.length,
              status: root?.querySelector('.status')?.textContent,
            };
          });
          throw new Error(`the restored view never showed: ${JSON.stringify(state)}`, { cause: error });
        });
      const [ms, wholeMs, loadMs] = await page.evaluate(() => [
        window.__paintedAt - window.__openedAt,
        window.__wholeAt - window.__openedAt,
        window.__paintedAt,
      ]);
      if (run > 0) {
        timings.push(ms);
        wholeTimings.push(wholeMs);
        loadTimings.push(loadMs);
      }
      if (process.env.RESUME_TIMELINE) {
        const marks = await page.evaluate(() => [
          ...window.__timeline,
          `socket open ${Math.round(window.__openedAt)}`,
          `painted ${Math.round(window.__paintedAt)}`,
          `whole ${Math.round(window.__wholeAt)}`,
          ...performance
            .getEntriesByType('resource')
            .map((r) => `${r.name.split('/').pop()} fetched ${Math.round(r.responseEnd)}`),
        ]);
        const at = (mark) => Number(mark.match(/(\d+)(\+\d+)?$/)[1]);
        console.error(marks.sort((a, b) => at(a) - at(b)).join(' | '));
      }
      if (cdp && run > 0) selfTimes.push(selfTimeByFunction((await cdp.send('Profiler.stop')).profile));
      await page.close();
    }
    if (selfTimes.length) console.error(topFunctions(selfTimes));
    return {
      repeats,
      textKb: TEXT_KB,
      tools: TOOLS,
      medianMs: median(timings),
      maxMs: Math.max(...timings),
      timings,
      wholeMedianMs: median(wholeTimings),
      wholeTimings,
      loadMedianMs: median(loadTimings),
      loadTimings,
    };
  } finally {
    await browser.close();
    aalis.child.kill('SIGKILL');
    upstream.server.closeAllConnections();
    upstream.server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await resumeBench(), null, 2));
}
