/**
 * What an MCP tool says of its app (MCP Apps, `_meta.ui`): the `ui://` resource that
 * shows it, and who may call it. Read with ext-apps' own helpers, which know the older
 * `_meta["ui/resourceUri"]` form too.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  isToolVisibilityModelOnly,
} from '@modelcontextprotocol/ext-apps/app-bridge';

/** The tool's app, a `ui://` resource; undefined for a tool without one (or a malformed one). */
export function appResourceUri(tool: Tool): string | undefined {
  try {
    const uri = getToolUiResourceUri(tool);
    return uri?.startsWith('ui://') ? uri : undefined;
  } catch {
    return undefined;
  }
}

/** A tool only its app may call: never offered to the model. */
export function isAppOnly(tool: Tool): boolean {
  try {
    return isToolVisibilityAppOnly(tool);
  } catch {
    return false;
  }
}

/** A tool only the model may call: never through an app. */
export function isModelOnly(tool: Tool): boolean {
  try {
    return isToolVisibilityModelOnly(tool);
  } catch {
    return false;
  }
}
