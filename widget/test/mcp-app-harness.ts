/**
 * The MCP Apps tests' side of the test apps (fixtures/mcp-apps/: an echo app the test
 * drives, and a hostile one): what each app reported, read by the frame it came from, and
 * the requests and notifications the test has the echo app send. The test's server
 * address is the fixtures' folder, whose `mcp-apps` page stands in for the chat server's
 * route.
 */
import { mount, toolStart, until, userMessage } from './harness.js';

export const SERVER = new URL('/widget/test/fixtures/', location.href).href;
export const ECHO = { serverName: 'weather', resourceUri: 'ui://fixtures/echo' };
export const HOSTILE = { serverName: 'weather', resourceUri: 'ui://fixtures/hostile' };
/** A first app loads the element's file (the SDK and zod, module by module from the test server). */
export const FIRST_LOAD_MS = 20_000;
/** The bound of a test with an app in it: its first load and the test's own steps. */
export const APP_TEST_MS = 40_000;

interface Report {
  source: MessageEventSource | null;
  kind: string;
  data: Record<string, unknown>;
}
/** What the apps told the test, as it came; each test empties it first (`reports.length = 0`). */
export const reports: Report[] = [];
window.addEventListener('message', (event: MessageEvent) => {
  const data = event.data as { fixture?: string; data?: Record<string, unknown> } | null;
  if (data?.fixture) reports.push({ source: event.source, kind: data.fixture, data: data.data ?? {} });
});

export const appIn = (shadow: ShadowRoot, callId = 'c1') =>
  shadow.querySelector<HTMLElement>(`.tool-call-block[data-call-id="${callId}"] aalis-mcp-app`);

/** The app's frame once the element's file has loaded and drawn it. */
export async function frameIn(shadow: ShadowRoot, callId = 'c1'): Promise<HTMLIFrameElement> {
  await until(() => !!appIn(shadow, callId)?.shadowRoot?.querySelector('iframe'), FIRST_LOAD_MS);
  return appIn(shadow, callId)!.shadowRoot!.querySelector('iframe')!;
}

/** What the frame's app reported of a kind, in order. */
export const reportsOf = (frame: HTMLIFrameElement, kind: string) =>
  reports.filter((r) => r.source === frame.contentWindow && r.kind === kind).map((r) => r.data);

/** The first report of a kind whose data `matches`, once there is one. */
export async function report(
  frame: HTMLIFrameElement,
  kind: string,
  matches: (data: Record<string, unknown>) => boolean = () => true,
): Promise<Record<string, unknown>> {
  await until(() => reportsOf(frame, kind).some(matches), FIRST_LOAD_MS);
  return reportsOf(frame, kind).find(matches)!;
}

/** A notification the app got (`ui/notifications/...`): its params. */
export const notification = async (frame: HTMLIFrameElement, method: string) =>
  (await report(frame, 'notification', (m) => m.method === method)).params as Record<string, unknown>;

/** The echo app sends a request and reports the host's answer (`result` or `error`). */
export async function ask(frame: HTMLIFrameElement, method: string, params: object = {}) {
  const before = reportsOf(frame, 'response').length;
  frame.contentWindow!.postMessage({ fixtureCommand: { name: 'request', method, params } }, '*');
  await until(() => reportsOf(frame, 'response').length > before);
  return reportsOf(frame, 'response')[before]!.answer as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
}

export const tell = (frame: HTMLIFrameElement, method: string, params: object) =>
  frame.contentWindow!.postMessage({ fixtureCommand: { name: 'notify', method, params } }, '*');

export const frameHeight = (frame: HTMLIFrameElement) => frame.getBoundingClientRect().height;

/** A turn whose tool `show_weather` is an app, running: its frame, once the app has initialized. */
export async function runningApp(options: { app?: object; theme?: string; locale?: string } = {}) {
  const m = await mount({ server: SERVER, theme: options.theme, locale: options.locale });
  await m.frames(
    userMessage('Weather in Paris?'),
    toolStart('c1', 'show_weather', '{"city": "Paris"}', { app: options.app ?? ECHO }),
  );
  const frame = await frameIn(m.shadow);
  const initialize = await report(frame, 'initialize');
  return { ...m, frame, initialize: initialize.result as Record<string, unknown> };
}

/** A stored assistant message whose tool calls are `parts`, as history sends it. */
export const historyWith = (...parts: object[]) => [
  { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }], createdAt: 1 },
  { id: 'a1', role: 'assistant', parts, createdAt: 2, status: 'complete' },
];
export const storedCall = (fields: object) => ({
  type: 'tool_call',
  callId: 'c1',
  index: 0,
  name: 'show_weather',
  arguments: '{"city": "Paris"}',
  status: 'done',
  startedAt: 1,
  endedAt: 2,
  app: ECHO,
  ...fields,
});
