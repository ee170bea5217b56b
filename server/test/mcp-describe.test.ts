/**
 * `describeMcpServers`, what `aalis-server --check` lists: each server's tools under the
 * names the model will see, or why it could not be reached, every server at once.
 */
import { describe, expect, test } from 'vitest';
import { describeMcpServers } from '../src/tools/mcp/index.js';
import { fixtureServer } from './fixtures/mcp/harness.js';

describe('describeMcpServers', () => {
  test('tools by server, with the allow-list and reserved names applied; failures with their reason', async () => {
    const started = Date.now();
    const described = await describeMcpServers(
      {
        local: fixtureServer('cancel-aware-server'),
        picky: { ...fixtureServer('list-changed-server'), tools: ['add-tool'] },
        missing: { command: '/nonexistent/mcp-server' },
        crashing: {
          command: process.execPath,
          args: ['-e', 'console.error("bad config: no API key"); process.exit(3)'],
        },
      },
      { timeoutMs: 5_000, reservedNames: ['echo'] },
    );
    expect(described).toEqual([
      {
        server: 'local',
        tools: [
          { name: 'wait-for-cancel', description: 'Runs until cancelled.' },
          { name: 'local_echo', description: 'Answers "local echo".', originalName: 'echo' },
        ],
      },
      { server: 'picky', tools: [{ name: 'add-tool', description: 'Adds a tool to this server.' }] },
      { server: 'missing', error: 'the command "/nonexistent/mcp-server" was not found' },
      {
        server: 'crashing',
        error: 'the process exited with code 3 before it answered',
        stderr: ['bad config: no API key'],
      },
    ]);
    // In parallel: about one server's time, not the sum of four.
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});
