/**
 * MCP Apps (`@modelcontextprotocol/ext-apps`): what the chat needs of the MCP servers to
 * show a tool's app in its card. The app's HTML (a `ui://` resource the tool declares),
 * read once per server and URI and kept while the server's session lasts; and the tool
 * calls an app makes through the chat's bridge, which reach only the app's own server, only
 * tools it lets apps call, and only those the site's approval rules let run without asking.
 */
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge';
import { ToolError } from '../define-tool.js';
import type { McpServerConnection } from './server-connection.js';
import { appResourceUri, isModelOnly } from './tool-app.js';

/** An app's page and the domains its resource declares it loads from and talks to. */
export interface AppResource {
  html: string;
  /** `_meta.ui.csp` of the resource: each list holds origins such as `https://cdn.example.com`. */
  csp: { connectDomains: string[]; resourceDomains: string[]; frameDomains: string[] };
}

export type AppCallOutcome = { ok: true; result: CallToolResult } | { ok: false; error: string };

/** The largest app page kept and served (bundled apps are a few hundred kB). */
const MAX_APP_BYTES = 5 * 1024 * 1024;

export interface McpAppsOptions {
  /** The server's connection by its configured name. */
  connection(serverName: string): McpServerConnection | undefined;
  /** The name the model is offered the tool under, when it is offered (approval rules name those). */
  offeredName(serverName: string, toolName: string): string | undefined;
  /** Whether the site's rules make a tool wait for a visitor's approval (by its offered name). */
  needsApproval(offeredName: string): boolean;
  /** The silence limit of a call (the MCP source's `callTimeoutMs`). */
  callTimeoutMs: number;
}

export class McpApps {
  /** By server session and URI: a server restarted may serve a new page. */
  readonly #pages = new WeakMap<object, Map<string, Promise<AppResource | undefined>>>();

  constructor(private readonly options: McpAppsOptions) {}

  /**
   * The page of app `uri` of server `serverName`, when one of its tools declares it (no
   * other resource of the server is ever served through here); undefined when none does,
   * the server is down, or the resource is not an app page.
   */
  resource(serverName: string, uri: string): Promise<AppResource | undefined> {
    const connection = this.options.connection(serverName);
    const session = connection?.session;
    if (!connection || !session) return Promise.resolve(undefined);
    if (!connection.tools.some((tool) => appResourceUri(tool) === uri)) return Promise.resolve(undefined);
    let pages = this.#pages.get(session);
    if (!pages) this.#pages.set(session, (pages = new Map()));
    let page = pages.get(uri);
    if (!page) {
      page = session.client
        .readResource({ uri }, { timeout: this.options.callTimeoutMs })
        .then(appPageOf, () => undefined);
      pages.set(uri, page);
      // A failed read is tried again next time, not remembered.
      void page.then((read) => read === undefined && pages.delete(uri));
    }
    return page;
  }

  /**
   * A call an app makes (its bridge's `tools/call`): only a tool of the app's own server,
   * visible to apps, that runs without a visitor's approval. The result as the server gave it.
   */
  async call(
    serverName: string,
    toolName: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<AppCallOutcome> {
    const connection = this.options.connection(serverName);
    const tool = connection?.tools.find((t) => t.name === toolName);
    if (!connection) return { ok: false, error: `the MCP server "${serverName}" is not connected` };
    if (!tool || isModelOnly(tool))
      return { ok: false, error: `the MCP server "${serverName}" has no tool "${toolName}" for apps` };
    const offered = this.options.offeredName(serverName, toolName);
    // An app-only tool is never offered to the model: the rules for the server's tools apply by its own name.
    if (this.options.needsApproval(offered ?? toolName)) {
      return {
        ok: false,
        error: `"${toolName}" needs the visitor's approval: ask for it in the chat instead`,
      };
    }
    // As the model's calls run: the same silence limit and failures in words. No visitor is
    // asked from here, and a server that asks meanwhile is refused (calls-in-flight.ts).
    try {
      const result = await connection.callTool(
        toolName,
        args,
        { signal, progress: () => {} },
        this.options.callTimeoutMs,
      );
      return { ok: true, result };
    } catch (error) {
      if (error instanceof ToolError) return { ok: false, error: error.message };
      throw error;
    }
  }
}

/** The app page in a read resource: HTML text (or base64) of the MCP Apps type, not too large. */
function appPageOf(read: ReadResourceResult): AppResource | undefined {
  const content = read.contents[0];
  if (!content || content.mimeType !== RESOURCE_MIME_TYPE) return undefined;
  const html =
    'text' in content && typeof content.text === 'string'
      ? content.text
      : 'blob' in content && typeof content.blob === 'string'
        ? Buffer.from(content.blob, 'base64').toString('utf8')
        : undefined;
  if (html === undefined || Buffer.byteLength(html) > MAX_APP_BYTES) return undefined;
  const csp = (content._meta?.ui as { csp?: Record<string, unknown> } | undefined)?.csp ?? {};
  return {
    html,
    csp: {
      connectDomains: origins(csp.connectDomains),
      resourceDomains: origins(csp.resourceDomains),
      frameDomains: origins(csp.frameDomains),
    },
  };
}

/** Declared domains as CSP sources: only http(s) origins, never a keyword or a wildcard scheme. */
function origins(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    if (typeof item !== 'string') return [];
    try {
      const url = new URL(item);
      return url.protocol === 'https:' || url.protocol === 'http:' ? [url.origin] : [];
    } catch {
      return [];
    }
  });
}
