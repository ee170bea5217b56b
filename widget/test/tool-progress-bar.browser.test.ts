/** A running tool's own progress in its block, and a declined call's words (PROTOCOL.md, `tool_execute`). */
import { expect } from '@open-wc/testing';
import { mount, text, toolExecute, toolStart, userMessage } from './harness.js';

const start = (callId = 'c1', name = 'index_docs') => toolStart(callId, name, { path: '/docs' });
const report = (fields: { progress: number; total?: number; message?: string }, callId = 'c1') =>
  toolExecute('progress', callId, 'index_docs', fields);
const end = (fields: Record<string, unknown> = {}, callId = 'c1', name = 'index_docs') =>
  toolExecute('end', callId, name, { durationMs: 1200, ...fields });
const block = (root: ShadowRoot, callId = 'c1') =>
  root.querySelector<HTMLDetailsElement>(`.tool-call-block[data-call-id="${callId}"]`)!;
const line = (root: ShadowRoot) => block(root).querySelector('[part="tool-progress"]');
const words = (el: Element | null) => el!.textContent!.replace(/\s+/g, ' ').trim();

describe('tool progress in its block', () => {
  it('a known total: a bar with max and value, the message and "3 / 5"; it rises in place', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), text('Indexing. '), start());
    expect(line(shadow), 'no line before the first report').to.equal(null);

    await frames(report({ progress: 3, total: 5, message: 'Reading page 3' }));
    const bar = line(shadow)!.querySelector('progress')!;
    expect(bar.max).to.equal(5);
    expect(bar.value).to.equal(3);
    expect(bar.hasAttribute('value')).to.equal(true);
    expect(bar.getAttribute('aria-label')).to.equal('index_docs');
    expect(line(shadow)!.classList.contains('tool-progress')).to.equal(true);
    expect(words(line(shadow))).to.equal('Reading page 3 3 / 5');
    // Shown in the summary: visible while the block is closed.
    expect(block(shadow).open).to.equal(false);
    expect(line(shadow)!.closest('summary')).to.exist;
    expect(line(shadow)!.getBoundingClientRect().height).to.be.greaterThan(0);

    await frames(report({ progress: 4, total: 5, message: 'Reading page 4' }));
    expect(line(shadow)!.querySelector('progress')).to.equal(bar);
    expect(bar.value).to.equal(4);
    expect(words(line(shadow))).to.equal('Reading page 4 4 / 5');
  });

  it('an unknown total: an indeterminate bar and the count alone', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), start(), report({ progress: 3 }));
    const bar = line(shadow)!.querySelector('progress')!;
    expect(bar.hasAttribute('value'), 'indeterminate').to.equal(false);
    expect(bar.matches(':indeterminate')).to.equal(true);
    expect(bar.getAttribute('aria-label')).to.equal('index_docs');
    expect(words(line(shadow))).to.equal('3');
    expect(line(shadow)!.querySelector('.tool-progress-message')).to.equal(null);
  });

  it('keeps the block open or closed as the reader left it', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), start('c1'), start('c2'));
    block(shadow, 'c1').open = true;
    await frames(report({ progress: 1, total: 4 }, 'c1'), report({ progress: 2 }, 'c2'));
    await frames(report({ progress: 2, total: 4 }, 'c1'), report({ progress: 3 }, 'c2'));
    expect(block(shadow, 'c1').open).to.equal(true);
    expect(block(shadow, 'c2').open).to.equal(false);
    expect(words(line(shadow))).to.equal('2 / 4');
  });

  it('goes with the end: the block says done, with no bar', async () => {
    const { frames, shadow } = await mount();
    await frames(userMessage(), start(), report({ progress: 5, total: 5, message: 'Done reading' }));
    await frames(end({ result: { pages: 5 } }));
    expect(block(shadow).getAttribute('data-status')).to.equal('done');
    expect(line(shadow)).to.equal(null);
    expect(block(shadow).querySelector('progress')).to.equal(null);
  });

  it('the dark theme styles the line with its tokens', async () => {
    const { frames, shadow } = await mount({ theme: 'dark' });
    await frames(userMessage(), start(), report({ progress: 1, total: 2, message: 'Half' }));
    // --_muted in the dark theme.
    expect(getComputedStyle(line(shadow)!).color).to.equal('rgb(176, 180, 186)');
  });
});

describe('declined tool calls', () => {
  const cases: Array<[string, 'user' | 'expired', string]> = [
    ['en', 'user', 'get_weather declined'],
    ['en', 'expired', 'get_weather not approved in time'],
    ['zh-CN', 'user', 'get_weather 已拒绝'],
    ['zh-CN', 'expired', 'get_weather 未及时批准'],
  ];
  for (const [locale, declined, expected] of cases) {
    it(`declined by ${declined} says so, not "failed" (${locale})`, async () => {
      const { frames, shadow } = await mount({ locale });
      // A call that never ran: an end without a start.
      await frames(
        userMessage(),
        end(
          { isError: true, declined, result: 'The user declined this tool call.', durationMs: 0 },
          'w1',
          'get_weather',
        ),
      );
      const b = block(shadow, 'w1');
      expect(b.getAttribute('data-status')).to.equal('error');
      expect(b.getAttribute('data-declined')).to.equal(declined);
      expect(words(b.querySelector('summary'))).to.equal(expected);
      expect(b.textContent).not.to.match(/failed|失败/);
    });
  }

  it('in history too, and a real failure still says failed', async () => {
    const call = (callId: string, declined?: string) => ({
      type: 'tool_call',
      callId,
      index: 0,
      name: 'get_weather',
      status: 'error',
      startedAt: 1_000,
      endedAt: 1_000,
      ...(declined ? { declined } : {}),
    });
    const { shadow } = await mount({
      messages: [
        {
          id: 'a1',
          role: 'assistant',
          parts: [call('d1', 'expired'), call('f1')],
          createdAt: 1,
          status: 'complete',
        },
      ],
    });
    expect(words(block(shadow, 'd1').querySelector('summary'))).to.equal('get_weather not approved in time');
    expect(block(shadow, 'f1').hasAttribute('data-declined')).to.equal(false);
    expect(words(block(shadow, 'f1').querySelector('summary'))).to.equal('get_weather failed · 0.0s');
  });
});
