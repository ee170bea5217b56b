/**
 * The part of the MCP Apps host that the script-tag file carries: a tool call whose tool
 * is an MCP App (`part.app`) renders an `<aalis-mcp-app>` in its card, and the element
 * itself (its sandboxed frame, the ext-apps bridge, the link confirmation) is a file of its
 * own, `mcp-app-element.ts`, loaded the first time an app is on screen. Almost no chat
 * shows one, and the bridge brings the MCP SDK and zod with it.
 *
 * It also carries the frames an app's tool calls wait on (`app_tool_result`, and `ready`)
 * to the element's file.
 */
import { html, nothing } from 'lit';
import type { ClientFrame, ServerFrame, ToolCallPart } from '@aalis/protocol/client';
import { defaultLocale } from '../../i18n/strings.js';
import type { AppCallFrame, AppServices, McpAppsHost } from './app-host.js';

/** The element's file, loading or loaded: once a page, whatever the number of chats on it. */
let loading: Promise<void> | undefined;

export class McpApps implements AppServices {
  onFrame: ((frame: AppCallFrame) => void) | undefined;

  constructor(
    readonly host: McpAppsHost,
    readonly send: (frame: ClientFrame) => boolean,
    readonly serverBase: () => URL,
  ) {}

  get locale(): string {
    return this.host.locale || defaultLocale();
  }

  /** The app of a tool call, in its card: nothing for a tool that is no app. */
  render(part: ToolCallPart): unknown {
    if (!part.app) return nothing;
    // A relative import resolves against this module's own address: the part is fetched
    // from beside the script. Not loaded (offline, not served): a render some seconds
    // later tries again, not every render of a streaming answer. (A shared helper for
    // this and elicitations.ts cost the script-tag file 16 B gzipped: not worth it.)
    loading ??= import('./mcp-app-element.js').then(
      (part) => part.define(),
      () => void setTimeout(() => (loading = undefined), 10_000),
    );
    return html`<aalis-mcp-app
      part="mcp-app"
      exportparts="mcp-app-frame, mcp-app-link-confirm"
      .call=${part}
      .apps=${this}
    ></aalis-mcp-app>`;
  }

  /** Every server frame: the ones an app's tool call waits on go to the apps. */
  receive(frame: ServerFrame): void {
    if (frame.type === 'app_tool_result' || frame.type === 'ready') this.onFrame?.(frame);
  }
}
