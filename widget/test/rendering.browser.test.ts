import { expect } from '@open-wc/testing';
import { registerLocale } from '../src/index.js';
import {
  SESSION,
  answerFrame,
  cards,
  done,
  mount,
  progress,
  text,
  toolExecute,
  toolStart,
  userMessage,
} from './harness.js';

const XSS = [
  '<script>window.__pwned = 1</script>',
  '<img src=x onerror="window.__pwned = 1">',
  '[click](javascript:window.__pwned=1)',
  '[data](data:text/html,<script>window.__pwned=1</script>)',
  '<a href="javascript:window.__pwned=1">a</a>',
  '![x](javascript:window.__pwned=1)',
  '<svg onload="window.__pwned=1"></svg>',
].join('\n\n');

declare global {
  interface Window {
    __pwned?: number;
  }
}

describe('what the transcript shows', () => {
  it('renders markdown: headings, tables, code with a copy button, safe links', async () => {
    const { frames, shadow } = await mount();
    await frames(
      userMessage(),
      text(
        '## Title\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```ts\nconst x = 1;\n```\n\nSee [docs](https://example.com/docs) and **bold**.',
      ),
    );
    const bubble = shadow.querySelector('.bubble.assistant')!;
    expect(bubble.querySelector('h4')!.textContent).to.equal('Title');
    expect(bubble.querySelectorAll('td')).to.have.length(2);
    expect(bubble.querySelector('pre code')!.textContent).to.equal('const x = 1;');
    expect(bubble.querySelector('.code-block button.copy')).to.exist;
    const link = bubble.querySelector('a')!;
    expect(link.getAttribute('href')).to.equal('https://example.com/docs');
    expect(link.getAttribute('rel')).to.equal('noopener noreferrer');
    expect(bubble.querySelector('strong')!.textContent).to.equal('bold');
  });

  it('streams markdown re-parsing only the last block', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), text('First paragraph.\n\nSecond'));
    await frames(text(' paragraph grows'), text(' and grows.'));
    const paragraphs = [...shadow.querySelectorAll('.bubble.assistant p')].map((p) => p.textContent);
    expect(paragraphs).to.deep.equal(['First paragraph.', 'Second paragraph grows and grows.']);
  });

  it('XSS payloads in text, tool names, arguments and results render inert, as text', async () => {
    window.__pwned = undefined;
    const { frames, shadow } = await mount();
    const hostile = '<img src=x onerror="window.__pwned=1">';
    await frames(
      userMessage(hostile),
      text(XSS),
      progress(0, hostile, 3),
      done(),
      toolStart('x', hostile, { html: hostile }),
      toolExecute('end', 'x', hostile, { arguments: {}, result: hostile, isError: true }),
    );
    // Real time on purpose: a handler that must never run can only be seen not running.
    await new Promise((r) => setTimeout(r, 100));
    expect(window.__pwned).to.equal(undefined);
    expect(shadow.querySelectorAll('script, img, svg[onload], [onerror], [onload]')).to.have.length(0);
    for (const a of shadow.querySelectorAll('a'))
      expect(a.getAttribute('href')).to.match(/^(https?:|mailto:)/);
    expect(shadow.querySelector('.bubble.user .text')!.textContent).to.equal(hostile);
    const block = shadow.querySelector('.tool-call-block')!;
    expect(block.querySelector('.tool-name')!.textContent).to.equal(hostile);
    expect(block.textContent).to.contain(hostile);
    expect(shadow.querySelector('.bubble.assistant')!.textContent).to.contain(
      '<script>window.__pwned = 1</script>',
    );
  });

  it('reasoning is open while it streams and collapses once the answer starts', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), { type: 'stream', sessionId: SESSION, reasoningDelta: 'Thinking about it.' });
    expect((shadow.querySelector('details.reasoning') as HTMLDetailsElement).open).to.equal(true);
    await frames(text('Answer.'));
    expect((shadow.querySelector('details.reasoning') as HTMLDetailsElement).open).to.equal(false);
  });

  it('the final message replaces the streamed bubble; an interrupted turn says so', async () => {
    const { frames, shadow, el } = await mount();
    let received: unknown;
    el.addEventListener('aalis-message', (e) => (received = e.detail.message));
    await frames(userMessage(), text('Partial'));
    await frames(answerFrame('Partial', { id: 'a1', createdAt: 1, status: 'aborted' }));
    expect(shadow.querySelector('.streaming')).to.equal(null);
    expect(shadow.querySelector('[data-id="a1"]')!.textContent).to.contain('Stopped.');
    expect(received).to.have.property('id', 'a1');
    await frames({
      type: 'history',
      sessionId: SESSION,
      hasMore: false,
      messages: [{ id: 'a0', role: 'assistant', parts: [], createdAt: 0, status: 'error' }],
    });
    expect(shadow.querySelector('[data-id="a0"]')!.textContent).to.contain('This answer was interrupted.');
  });

  it('speaks Chinese when asked, screen-reader text included', async () => {
    const { frames, shadow } = await mount({ locale: 'zh-CN' });
    await frames(userMessage(), progress(0, 'write_file', 142));
    expect((await cards(shadow))[0]).to.match(/^write_file 142 字符 · \d\.\ds$/);
    expect(shadow.querySelector('[role="log"]')!.getAttribute('aria-label')).to.equal('对话');
    expect(shadow.querySelector('.stop')!.textContent).to.contain('停止');
    await frames(toolStart('c', 'write_file', {}));
    expect(shadow.querySelector('[aria-live="polite"]')!.textContent).to.equal('正在运行工具 write_file');
  });

  it('a host can add a locale', async () => {
    registerLocale('fr', { chars: (n) => `${n} caractères`, send: 'Envoyer' });
    const { frames, shadow } = await mount({ locale: 'fr-FR' });
    expect(shadow.querySelector('.send')!.textContent).to.contain('Envoyer');
    await frames(userMessage(), progress(0, 'outil', 7));
    expect((await cards(shadow))[0]).to.match(/^outil 7 caractères/);
  });

  it('a page-level --aalis-* value changes the computed style', async () => {
    document.documentElement.style.setProperty('--aalis-bubble-user-background', 'rgb(12, 34, 56)');
    try {
      const { frames, shadow } = await mount();
      await frames(userMessage('themed'));
      expect(getComputedStyle(shadow.querySelector('.bubble.user')!).backgroundColor).to.equal(
        'rgb(12, 34, 56)',
      );
    } finally {
      document.documentElement.style.removeProperty('--aalis-bubble-user-background');
    }
  });

  it('the dark theme changes the colours', async () => {
    const { el } = await mount({ theme: 'dark' });
    expect(getComputedStyle(el).backgroundColor).to.equal('rgb(17, 17, 19)');
  });

  it('passes an axe accessibility check, mid-turn with cards and blocks', async () => {
    const { frames, el } = await mount();
    await frames(
      userMessage('Weather?'),
      text('Checking.'),
      progress(0, 'get_weather', 10),
      toolStart('q', 'get_time', {}, { index: 1 }),
    );
    await expect(el).to.be.accessible();
  });
});
