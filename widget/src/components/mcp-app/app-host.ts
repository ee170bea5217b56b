/**
 * What an MCP App's element needs of the chat it is in (`McpApps` in app-slot.ts gives
 * it), apart from that class so that the element's file, loaded lazily, names only types.
 */
import type { ReactiveControllerHost } from 'lit';
import type { AppToolResultFrame, ClientFrame, ReadyFrame } from '@aalis/protocol/client';
import type { Strings } from '../../i18n/strings.js';

/**
 * The chat element, read when an app asks: its words, theme and language now. Its open
 * apps watch its renders and attributes for a new language or theme (open-apps.ts).
 */
export interface McpAppsHost extends HTMLElement, ReactiveControllerHost {
  readonly strings: Strings;
  readonly theme: 'light' | 'dark' | 'auto';
  readonly locale: string;
}

/** The frames an app's tool calls wait on: their answers, and a new connection, which none will get. */
export type AppCallFrame = AppToolResultFrame | ReadyFrame;

export interface AppServices {
  readonly host: McpAppsHost;
  /** The chat's language: its `locale`, or the browser's. */
  readonly locale: string;
  /** Sends a frame to the server; false when not connected. */
  send(frame: ClientFrame): boolean;
  /** The chat's server, which serves the apps' HTML (`mcp-apps`). */
  serverBase(): URL;
  /** Set by the element's file once loaded: gets the frames the apps' tool calls wait on. */
  onFrame: ((frame: AppCallFrame) => void) | undefined;
}
