/**
 * The environment a stdio MCP server is started with. It never inherits the Aalis
 * server's own: that holds the provider's API keys, the socket token and whatever else
 * the host put there, and an MCP server is often third-party code (`npx some-server`).
 */
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { accountVariables, type RunAs } from './run-as.js';

/**
 * The SDK's minimal safe set, then the variables configured for the server, which win.
 * On Linux and macOS the safe set is HOME, LOGNAME, PATH, SHELL, TERM and USER, those of
 * them that are set (a value starting with `()`, a shell function, is left out); on
 * Windows it is the system's own (APPDATA, PATH, SYSTEMROOT, TEMP, USERPROFILE, ...).
 * PATH and HOME are what `npx`, `uvx` and `docker`, the usual commands, need. Run as
 * another user, its HOME, USER and LOGNAME are that user's (none when it has no entry in
 * the user database): the server's would send `npx` to a home it cannot write.
 */
export function stdioServerEnvironment(
  configured: Record<string, string> = {},
  runAs?: RunAs,
): Record<string, string> {
  const account = accountVariables(runAs);
  const safe = getDefaultEnvironment();
  if (account) for (const name of ['HOME', 'USER', 'LOGNAME']) delete safe[name];
  return { ...safe, ...account, ...configured };
}
