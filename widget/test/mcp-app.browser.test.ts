/**
 * MCP Apps in tool cards (issue 34): the app's frame, sandboxed, and the host side of the
 * ext-apps bridge, spoken with real test apps in real frames (mcp-app-harness.ts).
 */
import { expect } from '@open-wc/testing';
import { registerLocale } from '../src/index.js';
import { SESSION, mount, readyFrame, toolExecute, until } from './harness.js';
import {
  HOSTILE,
  SERVER,
  appIn,
  ask,
  frameHeight,
  frameIn,
  historyWith,
  notification,
  report,
  reports,
  reportsOf,
  runningApp,
  storedCall,
  tell,
  APP_TEST_MS,
} from './mcp-app-harness.js';

/** Calls of `window.open` on this page: the browser's API, recorded instead of opening tabs. */
const opened: unknown[][] = [];
const realOpen = window.open;
// ext-apps's transport logs every message at debug level (hidden by default in a browser's
// console, printed in full by the test runner): quiet for these tests.
const realDebug = console.debug;

beforeEach(() => {
  reports.length = 0;
  opened.length = 0;
  window.open = (...args: unknown[]) => {
    opened.push(args);
    return null;
  };
  console.debug = () => {};
});
afterEach(() => {
  window.open = realOpen;
  console.debug = realDebug;
});

describe('MCP Apps in tool cards', function () {
  // A first app loads the element's file and the SDK module by module: on a busy machine
  // that alone can take most of the default 10 s.
  this.timeout(APP_TEST_MS);
  it("show the app in the call's card, open, in a frame sandboxed to scripts only, from the server's mcp-apps route", async () => {
    const { shadow, frame } = await runningApp();
    const block = shadow.querySelector<HTMLDetailsElement>('.tool-call-block[data-call-id="c1"]')!;
    expect(block.open, 'the card opens itself').to.equal(true);
    const app = appIn(shadow)!;
    expect(app.getAttribute('part')).to.equal('mcp-app');
    expect(frame.getAttribute('sandbox')).to.equal('allow-scripts');
    expect(frame.getAttribute('referrerpolicy')).to.equal('no-referrer');
    expect(frame.getAttribute('part')).to.equal('mcp-app-frame');
    expect(frame.title).to.equal('show_weather app from weather');
    expect(frame.src).to.equal(`${SERVER}mcp-apps?server=weather&uri=ui%3A%2F%2Ffixtures%2Fecho`);
    // Visible without a click, as wide as the card's content.
    expect(frameHeight(frame)).to.be.greaterThan(0);
    expect(frame.getBoundingClientRect().width).to.be.closeTo(app.getBoundingClientRect().width, 1);
  });

  it("names its frame in the chat's language, or in a host's own words (`registerLocale`)", async () => {
    registerLocale('fr-CA', { apps: { frameTitle: (name, server) => `Appli ${name} de ${server}` } });
    const zh = await runningApp({ locale: 'zh-CN' });
    expect(zh.frame.title).to.equal('weather 的 show_weather 应用');
    zh.el.remove();
    const fr = await runningApp({ locale: 'fr-CA' });
    expect(fr.frame.title).to.equal('Appli show_weather de weather');
  });

  it('its parts can be styled from the page', async () => {
    const style = document.createElement('style');
    style.textContent = 'aalis-chat::part(mcp-app-frame) { border-color: rgb(1, 2, 3); }';
    document.head.append(style);
    try {
      const { frame } = await runningApp();
      expect(getComputedStyle(frame).borderTopColor).to.equal('rgb(1, 2, 3)');
    } finally {
      style.remove();
    }
  });

  it("answers ui/initialize with the host's context: theme, colours, language, inline display", async () => {
    const { initialize } = await runningApp();
    expect(initialize.protocolVersion).to.equal('2026-01-26');
    expect(initialize.hostInfo).to.deep.equal({ name: 'Aalis Chat', version: '1' });
    expect(initialize.hostCapabilities).to.deep.equal({ openLinks: {}, serverTools: {} });
    const context = initialize.hostContext as Record<string, unknown>;
    expect(context.theme).to.equal('light');
    expect(context.locale).to.equal('en');
    expect(context.displayMode).to.equal('inline');
    expect(context.availableDisplayModes).to.deep.equal(['inline']);
    expect(context.platform).to.equal('web');
    expect(context.containerDimensions).to.deep.equal({ maxHeight: 480 });
    const { variables } = context.styles as { variables: Record<string, string> };
    expect(variables['--color-text-primary']).to.equal('#1c2024');
    expect(variables['--color-background-primary']).to.equal('#ffffff');
    expect(variables['--color-ring-primary']).to.equal('#3e63dd');
  });

  it("follows the chat's dark theme and language", async () => {
    const { initialize } = await runningApp({ theme: 'dark', locale: 'zh-CN' });
    const context = initialize.hostContext as Record<string, unknown>;
    expect(context.theme).to.equal('dark');
    expect(context.locale).to.equal('zh-CN');
    const { variables } = context.styles as { variables: Record<string, string> };
    expect(variables['--color-text-primary']).to.equal('#edeef0');
  });

  it("gives the app the call's arguments, then its whole result when the call ends", async () => {
    const { frame, frames } = await runningApp();
    expect(await notification(frame, 'ui/notifications/tool-input')).to.deep.equal({
      arguments: { city: 'Paris' },
    });
    // A round trip after the input: a result would have come with it. None yet: the call runs.
    await ask(frame, 'ping');
    expect(reportsOf(frame, 'notification').map((n) => n.method)).to.deep.equal([
      'ui/notifications/tool-input',
    ]);
    await frames(
      toolExecute('end', 'c1', 'show_weather', {
        result: { content: 'Sunny, 21 °C', structured: { city: 'Paris', temperature: 21 } },
      }),
    );
    expect(await notification(frame, 'ui/notifications/tool-result')).to.deep.equal({
      content: [{ type: 'text', text: 'Sunny, 21 °C' }],
      structuredContent: { city: 'Paris', temperature: 21 },
    });
  });

  it("relays the app's tools/call to the server as app_tool_call, and the server's answer back", async () => {
    const { frame, frames, socket } = await runningApp();
    const calls = () => socket.sent.filter((f) => f.type === 'app_tool_call');
    const answer = ask(frame, 'tools/call', { name: 'refresh', arguments: { city: 'Lyon' } });
    await until(() => calls().length === 1);
    const { requestId, ...call } = calls()[0]!;
    expect(requestId).to.be.a('string');
    expect(call).to.deep.equal({
      type: 'app_tool_call',
      callId: 'c1',
      name: 'refresh',
      arguments: { city: 'Lyon' },
    });
    const result = { content: [{ type: 'text', text: 'Rainy' }], structuredContent: { temperature: 12 } };
    // An answer to another request changes nothing; this one's reaches the app.
    await frames(
      { type: 'app_tool_result', requestId: 'someone-else', result: { content: [] } },
      { type: 'app_tool_result', requestId, result },
    );
    expect((await answer).result).to.deep.equal(result);

    // Refused by the server: the app gets a JSON-RPC error with the server's words.
    const refused = ask(frame, 'tools/call', { name: 'delete_everything' });
    await until(() => calls().length === 2);
    await frames({ type: 'app_tool_result', requestId: calls()[1]!.requestId, error: 'tool not allowed' });
    const { error } = await refused;
    expect(error?.message).to.equal('tool not allowed');
  });

  it("a new connection fails the app's calls in flight: their answers went to the old one", async () => {
    const messages = historyWith(storedCall({ result: 'Sunny' }));
    const m = await mount({ server: SERVER, messages });
    const frame = await frameIn(m.shadow);
    await report(frame, 'initialize');
    const answer = ask(frame, 'tools/call', { name: 'refresh' });
    await until(() => m.socket.sent.some((f) => f.type === 'app_tool_call'));
    await m.frames(readyFrame({ messages }));
    expect((await answer).error?.message).to.match(/connection/);
    expect(await frameIn(m.shadow), 'the same app, still there').to.equal(frame);
  });

  it('sizes the frame as the app asks, within its bounds', async () => {
    const { frame, el } = await runningApp();
    tell(frame, 'ui/notifications/size-changed', { height: 300 });
    await until(() => frameHeight(frame) === 300);
    tell(frame, 'ui/notifications/size-changed', { height: 100000 });
    await until(() => frameHeight(frame) === 480);
    tell(frame, 'ui/notifications/size-changed', { height: 0 });
    await until(() => frameHeight(frame) === 40);
    // The page sets the bound.
    el.style.setProperty('--aalis-app-max-height', '200px');
    tell(frame, 'ui/notifications/size-changed', { height: 350 });
    await until(() => frameHeight(frame) === 200);
  });

  it('opens a link the app asks for only after the visitor confirms it; Cancel opens nothing', async () => {
    const { frame, shadow } = await runningApp();
    const app = appIn(shadow)!;
    const row = () => app.shadowRoot!.querySelector<HTMLElement>('[part="mcp-app-link-confirm"]');
    const answer = ask(frame, 'ui/open-link', { url: 'https://docs.example.com/weather?q=1' });
    await until(() => !!row());
    expect(row()!.querySelector('.link-ask')!.textContent).to.equal('Open docs.example.com?');
    expect(row()!.querySelector('.link-url')!.textContent).to.equal('https://docs.example.com/weather?q=1');
    expect(opened, 'nothing opened before a click').to.deep.equal([]);
    row()!.querySelector<HTMLButtonElement>('button.cancel')!.click();
    expect((await answer).result).to.deep.equal({ isError: true });
    expect(row(), 'the row goes').to.equal(null);
    expect(opened).to.deep.equal([]);

    const second = ask(frame, 'ui/open-link', { url: 'https://docs.example.com/' });
    await until(() => !!row());
    row()!.querySelector<HTMLButtonElement>('button.open')!.click();
    expect(opened).to.deep.equal([['https://docs.example.com/', '_blank', 'noopener,noreferrer']]);
    expect((await second).result).to.deep.equal({});
  });

  it('ignores bridge messages from any other window than its frame', async () => {
    const { frame, shadow } = await runningApp();
    // The page itself (or another frame) poses as the app: asks for a link and a size.
    window.postMessage(
      { jsonrpc: '2.0', id: 7, method: 'ui/open-link', params: { url: 'https://evil.example/' } },
      '*',
    );
    window.postMessage(
      { jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height: 333 } },
      '*',
    );
    // Posted before the app's round trip began: handled (or not) before it ends.
    await ask(frame, 'ping');
    expect(appIn(shadow)!.shadowRoot!.querySelector('[part="mcp-app-link-confirm"]')).to.equal(null);
    expect(frameHeight(frame)).not.to.equal(333);
  });

  describe('a hostile app', () => {
    // Its malformed request is logged by ext-apps's transport as an error, and dropped.
    const realError = console.error;
    beforeEach(() => (console.error = () => {}));
    afterEach(() => (console.error = realError));

    it("cannot read the page's cookies, DOM or storage, open a window, or navigate the page", async () => {
      document.cookie = 'aalis-test-secret=42; path=/';
      try {
        const { frame } = await runningApp({ app: HOSTILE });
        const tried = await report(frame, 'tried');
        expect(tried.cookie).to.match(/^blocked: SecurityError/);
        expect(tried.parentDocument).to.match(/^blocked: SecurityError/);
        expect(tried.parentCookie).to.match(/^blocked: SecurityError/);
        expect(tried.localStorage).to.match(/^blocked: SecurityError/);
        expect(tried.windowOpen, 'the sandbox blocks popups').to.equal('allowed: no window');
        expect(tried.topNavigation).to.match(/^blocked: SecurityError/);
      } finally {
        document.cookie = 'aalis-test-secret=; path=/; max-age=0';
      }
    });

    it('cannot grow its frame past the bound', async () => {
      const { frame } = await runningApp({ app: HOSTILE });
      await until(() => frameHeight(frame) === 480);
    });

    it('gets errors for what the host does not offer and for a javascript: link, and opens nothing without a click', async () => {
      const { frame, shadow } = await runningApp({ app: HOSTILE });
      const answers = (method: string) =>
        reportsOf(frame, 'response')
          .filter((r) => r.method === method)
          .map((r) => r.answer as { result?: unknown; error?: { code: number } });
      await until(() => answers('ui/message').length === 1 && answers('ui/open-link').length === 1);
      expect(answers('ui/message')[0]!.error?.code, 'Method not found').to.equal(-32601);
      expect(answers('ui/open-link')[0]!.result, 'javascript: is refused').to.deep.equal({ isError: true });

      // Its phishing link waits for the visitor, who sees where it goes.
      const row = () =>
        appIn(shadow)!.shadowRoot!.querySelector<HTMLElement>('[part="mcp-app-link-confirm"]');
      await until(() => !!row());
      expect(row()!.textContent).to.contain('Open evil.example?');
      expect(row()!.textContent).to.contain('https://evil.example/phish?session=1');
      expect(opened).to.deep.equal([]);
      row()!.querySelector<HTMLButtonElement>('button.open')!.click();
      expect(opened).to.deep.equal([
        ['https://evil.example/phish?session=1', '_blank', 'noopener,noreferrer'],
      ]);
      await until(() => answers('ui/open-link').length === 2);
      expect(answers('ui/open-link')[1]!.result).to.deep.equal({});
    });
  });

  describe('after a reload', () => {
    it('renders the app again from history, with its input and whole result', async () => {
      const { shadow } = await mount({
        server: SERVER,
        messages: historyWith(
          storedCall({ result: { content: 'Sunny', structured: { temperature: 21 } } }),
          storedCall({ callId: 'c2', index: 1, status: 'error', result: 'Weather service down' }),
        ),
      });
      const done = await frameIn(shadow, 'c1');
      expect(shadow.querySelector<HTMLDetailsElement>('.tool-call-block[data-call-id="c1"]')!.open).to.equal(
        true,
      );
      expect(await notification(done, 'ui/notifications/tool-input')).to.deep.equal({
        arguments: { city: 'Paris' },
      });
      expect(await notification(done, 'ui/notifications/tool-result')).to.deep.equal({
        content: [{ type: 'text', text: 'Sunny' }],
        structuredContent: { temperature: 21 },
      });
      const failed = await frameIn(shadow, 'c2');
      expect(await notification(failed, 'ui/notifications/tool-result')).to.deep.equal({
        content: [{ type: 'text', text: 'Weather service down' }],
        isError: true,
      });
    });

    it('tells the app of a call that never ran that it was cancelled', async () => {
      const { shadow } = await mount({
        server: SERVER,
        messages: historyWith(
          storedCall({ status: 'error', declined: 'user', result: 'The user declined this tool call.' }),
        ),
      });
      const frame = await frameIn(shadow);
      expect(await notification(frame, 'ui/notifications/tool-cancelled')).to.deep.equal({
        reason: 'declined: user',
      });
      expect(reportsOf(frame, 'notification').map((n) => n.method)).not.to.include(
        'ui/notifications/tool-result',
      );
    });

    it('a resumed running call gets its result when it arrives', async () => {
      const m = await mount({ server: SERVER });
      await m.frames({
        type: 'stream_resume',
        sessionId: SESSION,
        serverTime: Date.now(),
        parts: [storedCall({ status: 'running', endedAt: undefined })],
        toolCallsProgress: [],
      });
      const frame = await frameIn(m.shadow);
      await notification(frame, 'ui/notifications/tool-input');
      await m.frames(toolExecute('end', 'c1', 'show_weather', { result: 'Cloudy' }));
      expect(await notification(frame, 'ui/notifications/tool-result')).to.deep.equal({
        content: [{ type: 'text', text: 'Cloudy' }],
      });
    });
  });
});
