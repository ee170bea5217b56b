/**
 * The environment a stdio MCP server is started with. It never inherits the Aalis
 * server's own: that holds the provider's API keys, the socket token and whatever else
 * the host put there, and an MCP server is often third-party code (`npx some-server`).
 */
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The SDK's minimal safe set, then the variables configured for the server, which win.
 * On Linux and macOS the safe set is HOME, LOGNAME, PATH, SHELL, TERM and USER, those of
 * them that are set (a value starting with `()`, a shell function, is left out); on
 * Windows it is the system's own (APPDATA, PATH, SYSTEMROOT, TEMP, USERPROFILE, ...).
 * PATH and HOME are what `npx`, `uvx` and `docker`, the usual commands, need.
 */
export function stdioServerEnvironment(configured: Record<string, string> = {}): Record<string, string> {
  return { ...getDefaultEnvironment(), ...configured };
}
