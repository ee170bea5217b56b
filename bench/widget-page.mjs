/* global window, customElements -- the init script runs in the browser */
// The page the widget benchmarks run on: the real script-tag build served on loopback, in
// headless Chromium (with its markdown part), with long tasks recorded from the start (`window.__long`, durations
// in ms) and a socket made in the page (`window.__connect(chat)` resolves with a function
// that delivers a server frame), so that only the widget's own work is measured.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { chromePath, chromiumArgs } from '../scripts/ensure-chromium.mjs';
import { root } from './lib.mjs';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module" src="/aalis-chat.js"></script></head><body>
<aalis-chat id="chat" theme="light" style="--aalis-height: 700px"></aalis-chat></body></html>`;

function inPage() {
  window.__long = [];
  new PerformanceObserver((list) => window.__long.push(...list.getEntries().map((e) => e.duration))).observe({
    type: 'longtask',
    buffered: true,
  });
  window.__connect = async (chat) => {
    await customElements.whenDefined('aalis-chat');
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
    return (frame) => socket.onmessage?.(new MessageEvent('message', { data: JSON.stringify(frame) }));
  };
}

/**
 * Runs `use({ page, cdp, metrics })` on a fresh page with the widget, then closes it all.
 * `metrics()` reads Chromium's own counters (TaskDuration, JSHeapUsedSize, ...).
 */
export async function withWidgetPage(use) {
  // The script, and the parts it loads from next to itself: the markdown part, and those
  // of what a page shows now and then (a versions switcher, approval cards).
  const dist = join(root, 'widget/dist');
  const scripts = new Map(
    readdirSync(dist)
      .filter((file) => /^aalis-chat.*\.js$/.test(file))
      .map((file) => [`/${file}`, readFileSync(join(dist, file))]),
  );
  const server = createServer((req, res) => {
    const script = scripts.get(req.url);
    if (script) res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const browser = await chromium.launch({ executablePath: chromePath, args: chromiumArgs });
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    await page.addInitScript(inPage);
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    const metrics = async () =>
      Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    return await use({ page, cdp, metrics });
  } finally {
    await browser.close();
    server.close();
  }
}

/**
 * A transcript of `count` messages as a server's `ready` gives it: questions, and answers
 * in markdown (emphasis, a link, code); `rich` adds a list and a code block to every fifth
 * answer and a table to every tenth.
 */
export function transcript(count, { rich = false, now = Date.now() } = {}) {
  return Array.from({ length: count }, (_, i) => ({
    id: `m${i}`,
    role: i % 2 ? 'assistant' : 'user',
    parts: [
      {
        type: 'text',
        text:
          i % 2
            ? `An answer with **markdown**, a [link](https://example.com) and \`code\`, number ${i}.` +
              (rich && i % 10 === 1 ? '\n\n- one\n- two\n\n```js\nconst x = 1;\n```' : '') +
              (rich && i % 20 === 3 ? '\n\n| a | b |\n| - | - |\n| 1 | 2 |' : '')
            : `Question ${i}?`,
      },
    ],
    createdAt: now - (count - i) * 1000,
  }));
}
