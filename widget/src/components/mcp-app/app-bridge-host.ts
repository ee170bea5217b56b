/**
 * The host side of the ext-apps bridge for one app's frame, through ext-apps's own
 * `AppBridge` and `PostMessageTransport`: the transport takes only the messages whose
 * `source` is the frame's window (a sandboxed frame's origin is "null": the window is what
 * tells it apart), the bridge checks each one against the MCP Apps schemas, answers
 * `ui/initialize` and `ping`, and answers what this host does not support (`ui/message`,
 * `resources/read`, sampling...) with JSON-RPC's "Method not found".
 *
 * Also here: the host context an app is given, and the relay of its tool calls through
 * the chat's server.
 *
 * ext-apps 1.7's type declarations do not resolve under the widget's NodeNext resolution
 * (their relative imports have no extension, modelcontextprotocol/ext-apps#704): its
 * classes type as `any` here. The shapes this file fills are therefore named below, after
 * the spec's (`McpUiHostContext`, `McpUiStyles`), and what an app receives is checked by
 * the browser tests, which read it from a real frame.
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppToolCallFrame } from '@aalis/protocol/client';
import type { AppCallFrame, AppServices } from './app-host.js';

/** An app's tool call with no answer by then fails: the server or its MCP server is gone. */
export const APP_CALL_TIMEOUT_MS = 60_000;

/** What the host does when its app asks (app-frame.ts). */
export interface AppHandlers {
  callTool(name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult>;
  /** Resolves true once the visitor opened the link, false when not. */
  openLink(url: string): Promise<boolean>;
  resize(height: number): void;
  /** The app is ready for the tool's input and result (again, after it reloaded itself). */
  initialized(): void;
}

/** The bridge, as app-frame.ts uses it. */
export interface HostBridge {
  sendToolInput(params: { arguments: Record<string, unknown> }): Promise<void>;
  sendToolResult(params: CallToolResult): Promise<void>;
  sendToolCancelled(params: { reason?: string }): Promise<void>;
  /** Sends the app what changed (`ui/notifications/host-context-changed`), if anything did. */
  setHostContext(context: HostContext): void;
  /** Stops listening to the frame. */
  close(): Promise<void>;
}

export function connectBridge(
  frame: HTMLIFrameElement,
  context: HostContext,
  handlers: AppHandlers,
): HostBridge {
  // Only what this host does: a capability not declared is a request answered with an error.
  const bridge = new AppBridge(
    null,
    { name: 'Aalis Chat', version: '1' },
    { openLinks: {}, serverTools: {} },
    { hostContext: context },
  );
  // The bridge checked each request's params against the spec's schema before these run.
  bridge.oncalltool = (params: { name: string; arguments?: Record<string, unknown> }) =>
    handlers.callTool(params.name, params.arguments);
  bridge.onopenlink = async ({ url }: { url: string }) =>
    (await handlers.openLink(url)) ? {} : { isError: true };
  // The event's setters: `addEventListener`, which ext-apps prefers, comes from a base
  // class whose declarations do not resolve here (see above).
  bridge.onsizechange = ({ height }: { height?: number }) => {
    if (height !== undefined && Number.isFinite(height)) handlers.resize(height);
  };
  bridge.oninitialized = () => handlers.initialized();
  // The frame's window exists once the frame is in the document, and stays the same
  // object through the frame's navigations: listening starts before the app can speak.
  const window = frame.contentWindow!;
  const transport = new PostMessageTransport(window, window);
  void bridge.connect(transport);
  return {
    sendToolInput: (params) => bridge.sendToolInput(params),
    sendToolResult: (params) => bridge.sendToolResult(params),
    sendToolCancelled: (params) => bridge.sendToolCancelled(params),
    setHostContext: (context) => bridge.setHostContext(context),
    // Closing the transport closes the bridge: its requests in flight fail.
    close: () => transport.close(),
  };
}

/** The spec's theme variables this host sets (`McpUiStyleVariableKey`), from the widget's tokens. */
type StyleVariable =
  | '--color-background-primary'
  | '--color-background-secondary'
  | '--color-text-primary'
  | '--color-text-secondary'
  | '--color-text-danger'
  | '--color-text-warning'
  | '--color-text-info'
  | '--color-border-primary'
  | '--color-ring-primary'
  | '--font-sans'
  | '--font-mono'
  | '--font-text-md-size'
  | '--border-radius-lg';

/** The fields of the spec's `McpUiHostContext` this host gives. */
export interface HostContext {
  theme: 'light' | 'dark';
  styles: { variables: Partial<Record<StyleVariable, string>> };
  displayMode: 'inline';
  availableDisplayModes: 'inline'[];
  containerDimensions?: { maxHeight: number };
  locale: string;
  timeZone: string;
  platform: 'web';
  deviceCapabilities: { touch: boolean; hover: boolean };
}

/** The widget's theme tokens (private, inherited from the chat) an app may follow, by the spec's names. */
const STYLE_TOKENS: Record<StyleVariable, string> = {
  '--color-background-primary': '--_card-bg',
  '--color-background-secondary': '--_assistant-bg',
  '--color-text-primary': '--_fg',
  '--color-text-secondary': '--_muted',
  '--color-text-danger': '--_danger',
  '--color-text-warning': '--_warning',
  '--color-text-info': '--_accent',
  '--color-border-primary': '--_border',
  '--color-ring-primary': '--_accent',
  '--font-sans': '--_font',
  '--font-mono': '--_mono',
  '--font-text-md-size': '--_size',
  '--border-radius-lg': '--_radius',
};

/**
 * What an app is told of its host (`ui/initialize`, and `host-context-changed` when any of
 * it changes: open-apps.ts): the chat's theme, colours and fonts as computed where the app
 * sits, its language, and that it is shown inline, at most `maxHeight` tall.
 */
export function hostContext(element: HTMLElement, apps: AppServices, maxHeight: number): HostContext {
  const style = getComputedStyle(element);
  const variables: HostContext['styles']['variables'] = {};
  for (const [name, token] of Object.entries(STYLE_TOKENS)) {
    const value = style.getPropertyValue(token).trim();
    if (value) variables[name as StyleVariable] = value;
  }
  const { theme } = apps.host;
  const dark = theme === 'dark' || (theme === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  return {
    theme: dark ? 'dark' : 'light',
    // The spec's record lists every name; one missing is `undefined`, which it allows.
    styles: { variables },
    displayMode: 'inline',
    availableDisplayModes: ['inline'],
    ...(maxHeight > 0 ? { containerDimensions: { maxHeight } } : {}),
    locale: apps.locale,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: 'web',
    deviceCapabilities: {
      touch: matchMedia('(pointer: coarse)').matches,
      hover: matchMedia('(hover: hover)').matches,
    },
  };
}

interface Waiting {
  resolve(result: CallToolResult): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The apps' tool calls of one chat, in flight: each goes to the server as `app_tool_call`
 * and waits for the `app_tool_result` with its `requestId`. The server decides what an app
 * may call (only tools of its own MCP server, the site's approval rules); the widget only
 * carries the call and its answer.
 */
class ToolCallRelay {
  readonly #waiting = new Map<string, Waiting>();
  #count = 0;

  constructor(private readonly apps: AppServices) {
    apps.onFrame = (frame) => this.#receive(frame);
  }

  call(callId: string, name: string, args: Record<string, unknown> | undefined): Promise<CallToolResult> {
    const requestId = `app-${++this.#count}-${Math.random().toString(36).slice(2, 10)}`;
    return new Promise((resolve, reject) => {
      const frame: AppToolCallFrame = { type: 'app_tool_call', requestId, callId, name };
      if (args) frame.arguments = args;
      if (!this.apps.send(frame)) return reject(new Error('The chat is not connected.'));
      const timer = setTimeout(() => {
        this.#waiting.delete(requestId);
        reject(new Error(`No answer from the server in ${APP_CALL_TIMEOUT_MS / 1000} s.`));
      }, APP_CALL_TIMEOUT_MS);
      this.#waiting.set(requestId, { resolve, reject, timer });
    });
  }

  #receive(frame: AppCallFrame): void {
    if (frame.type === 'ready') {
      // A new connection: answers go to the connection that asked, which is gone.
      for (const [requestId, waiting] of this.#waiting) this.#settle(requestId, waiting);
      return;
    }
    const waiting = this.#waiting.get(frame.requestId);
    if (waiting) this.#settle(frame.requestId, waiting, frame.result, frame.error);
  }

  #settle(requestId: string, waiting: Waiting, result?: Record<string, unknown>, error?: string): void {
    clearTimeout(waiting.timer);
    this.#waiting.delete(requestId);
    if (result && error === undefined) waiting.resolve({ content: [], ...result } as CallToolResult);
    else waiting.reject(new Error(error ?? 'The connection to the chat was lost before the answer came.'));
  }
}

const relays = new WeakMap<AppServices, ToolCallRelay>();

/** The relay of one chat's apps' tool calls, made when the first app calls. */
export function toolCallsOf(apps: AppServices): ToolCallRelay {
  let relay = relays.get(apps);
  if (!relay) relays.set(apps, (relay = new ToolCallRelay(apps)));
  return relay;
}
