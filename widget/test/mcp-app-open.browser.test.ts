/**
 * An MCP App while it is open: the same frame from its running turn to its stored message
 * (a frame drawn anew would load the app again and lose what the visitor did in it), and
 * told of its host's changes (`ui/notifications/host-context-changed`): the chat's language
 * and theme, the system's colour scheme, the page's tokens.
 */
import { expect } from '@open-wc/testing';
import { emulateMedia } from '@web/test-runner-commands';
import { SESSION, text, toolExecute, until } from './harness.js';
import {
  appIn,
  ask,
  frameIn,
  notification,
  reports,
  reportsOf,
  runningApp,
  storedCall,
  APP_TEST_MS,
} from './mcp-app-harness.js';

// ext-apps's transport logs every message at debug level: quiet for these tests.
const realDebug = console.debug;
beforeEach(() => {
  reports.length = 0;
  console.debug = () => {};
});
afterEach(() => (console.debug = realDebug));

/** The app keeps `value` in its page, as it keeps what its visitor did. */
const remember = (frame: HTMLIFrameElement, value: string) =>
  frame.contentWindow!.postMessage({ fixtureCommand: { name: 'remember', value } }, '*');

/** What the app's page kept, once it tells. */
async function recall(frame: HTMLIFrameElement): Promise<unknown> {
  const before = reportsOf(frame, 'recalled').length;
  frame.contentWindow!.postMessage({ fixtureCommand: { name: 'recall' } }, '*');
  await until(() => reportsOf(frame, 'recalled').length > before);
  return reportsOf(frame, 'recalled')[before]!.value;
}

const methods = (frame: HTMLIFrameElement) => reportsOf(frame, 'notification').map((n) => n.method);

/** The host-context changes the app got, in order. */
const contextChanges = (frame: HTMLIFrameElement) =>
  reportsOf(frame, 'notification')
    .filter((n) => n.method === 'ui/notifications/host-context-changed')
    .map(
      (n) => n.params as { theme?: string; locale?: string; styles?: { variables: Record<string, string> } },
    );

/** The `count`-th host-context change the app got, once it came. */
async function contextChange(frame: HTMLIFrameElement, count: number) {
  await until(() => contextChanges(frame).length >= count);
  return contextChanges(frame)[count - 1]!;
}

/** The turn's end: its message, stored, with the call's record and the answer's words. */
const turnEnd = () => ({
  type: 'message',
  sessionId: SESSION,
  message: {
    id: 'a1',
    role: 'assistant',
    parts: [storedCall({ result: 'Sunny' }), { type: 'text', text: 'It is sunny.' }],
    createdAt: Date.now(),
    status: 'complete',
  },
});

describe('an open MCP App', function () {
  // A first app loads the element's file and the SDK module by module: on a busy machine
  // that alone can take most of the default 10 s.
  this.timeout(APP_TEST_MS);
  it('keeps its frame when its turn ends: the app neither loads again nor forgets what the visitor did', async () => {
    const { frame, frames, shadow } = await runningApp();
    await notification(frame, 'ui/notifications/tool-input');
    remember(frame, 'picked Lyon');
    // The turn goes on, and renders again at each frame: the call's result, then words.
    await frames(toolExecute('end', 'c1', 'show_weather', { result: 'Sunny' }));
    await notification(frame, 'ui/notifications/tool-result');
    await frames(text('It is '), text('sunny.'));
    expect(await frameIn(shadow), 'the same frame while the turn streams').to.equal(frame);

    // The turn ends: its message is stored, and shows with the finished ones.
    await frames(turnEnd());
    const app = appIn(shadow)!;
    expect(app.closest('.bubble')!.getAttribute('data-id'), 'the stored message shows it').to.equal('a1');
    expect(app.shadowRoot!.querySelector('iframe'), 'the same frame').to.equal(frame);
    expect(frame.isConnected).to.equal(true);
    expect(await recall(frame)).to.equal('picked Lyon');
    expect(reportsOf(frame, 'initialize'), 'initialized once').to.have.length(1);
    expect(methods(frame), 'its input and result, once each').to.deep.equal([
      'ui/notifications/tool-input',
      'ui/notifications/tool-result',
    ]);

    // The bridge came with the frame: the app's requests are answered in its new card.
    const answer = ask(frame, 'ui/open-link', { url: 'https://docs.example.com/' });
    const row = () => app.shadowRoot!.querySelector<HTMLElement>('[part="mcp-app-link-confirm"]');
    await until(() => !!row());
    row()!.querySelector<HTMLButtonElement>('button.cancel')!.click();
    expect((await answer).result).to.deep.equal({ isError: true });
  });

  it('opens again in the stored message where the browser cannot move a frame (no moveBefore)', async () => {
    // Safari's case: without `moveBefore`, a frame moved elsewhere in the page reloads.
    const moveBefore = Object.getOwnPropertyDescriptor(DocumentFragment.prototype, 'moveBefore');
    delete (DocumentFragment.prototype as { moveBefore?: unknown }).moveBefore;
    try {
      const { frame, frames, shadow } = await runningApp();
      await frames(toolExecute('end', 'c1', 'show_weather', { result: 'Sunny' }), turnEnd());
      const again = await frameIn(shadow);
      expect(again).not.to.equal(frame);
      expect(frame.isConnected, 'the first frame is gone').to.equal(false);
      expect(await notification(again, 'ui/notifications/tool-result')).to.deep.equal({
        content: [{ type: 'text', text: 'Sunny' }],
      });
    } finally {
      if (moveBefore) Object.defineProperty(DocumentFragment.prototype, 'moveBefore', moveBefore);
    }
  });

  describe('is told when its host changes', () => {
    let style: HTMLStyleElement;
    beforeEach(() => {
      style = document.createElement('style');
      document.head.append(style);
    });
    afterEach(() => {
      style.remove();
      document.documentElement.classList.remove('aalis-test-brand');
      document.body.classList.remove('aalis-test-unrelated');
    });

    it("the chat's language and theme, and the page's tokens; nothing when nothing changed", async () => {
      const { el, frame, frames } = await runningApp();
      el.locale = 'zh-CN';
      // Only what changed.
      expect(await contextChange(frame, 1)).to.deep.equal({ locale: 'zh-CN' });
      expect(frame.title, 'its frame is named in the new language').to.equal('weather 的 show_weather 应用');

      el.theme = 'dark';
      const dark = await contextChange(frame, 2);
      expect(dark.theme).to.equal('dark');
      expect(dark.styles!.variables['--color-text-primary']).to.equal('#edeef0');

      // The page's own theme switch: a class on <html> that sets the chat's public tokens.
      style.textContent = 'html.aalis-test-brand aalis-chat { --aalis-color-accent: #123456; }';
      document.documentElement.classList.add('aalis-test-brand');
      const brand = await contextChange(frame, 3);
      expect(Object.keys(brand)).to.deep.equal(['styles']);
      expect(brand.styles!.variables['--color-ring-primary']).to.equal('#123456');

      // The same values again, a class that sets no token, a streaming turn's renders.
      el.locale = 'zh-CN';
      el.theme = 'dark';
      document.body.classList.add('aalis-test-unrelated');
      await frames(text('More words'));
      // A round trip after them: a notification sent meanwhile would have come before its answer.
      await ask(frame, 'ping');
      expect(contextChanges(frame)).to.have.length(3);
    });

    it("the system's colour scheme, when the chat follows it", async () => {
      const { frame, initialize } = await runningApp({ theme: 'auto' });
      expect((initialize.hostContext as { theme: string }).theme).to.equal('light');
      await emulateMedia({ colorScheme: 'dark' });
      try {
        const changed = await contextChange(frame, 1);
        expect(changed.theme).to.equal('dark');
        expect(changed.styles!.variables['--color-text-primary']).to.equal('#edeef0');
      } finally {
        await emulateMedia({ colorScheme: 'light' });
      }
      expect((await contextChange(frame, 2)).theme).to.equal('light');
    });
  });
});
