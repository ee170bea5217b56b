/**
 * `describeMcpServers`, what `aalis-server --check` lists: each server's tools under the
 * names the model will see, or why it could not be reached, every server at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { describeMcpServers } from '../src/tools/mcp/index.js';
import { fixtureServer } from './fixtures/mcp/harness.js';

describe('describeMcpServers', () => {
  test('tools by server, with the allow-list and reserved names applied; failures with their reason', async () => {
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
  });

  test('every server at once: two servers that each wait to see the other start both answer', async () => {
    // Each marks that it started, then ends only once it sees the other's mark: one after
    // the other, the first would wait for the second until its time ran out.
    const dir = mkdtempSync(join(tmpdir(), 'aalis-mcp-parallel-'));
    const meeting = (me: string, other: string) => ({
      command: process.execPath,
      args: [
        '-e',
        `const fs = require('node:fs'), p = require('node:path');
         fs.writeFileSync(p.join(process.argv[1], '${me}'), '');
         setInterval(() => { if (fs.existsSync(p.join(process.argv[1], '${other}'))) { console.error('met ${other}'); process.exit(3); } }, 10);`,
        dir,
      ],
    });
    try {
      const described = await describeMcpServers(
        { a: meeting('a', 'b'), b: meeting('b', 'a') },
        { timeoutMs: 10_000, reservedNames: [] },
      );
      expect(described.map((d) => [d.server, 'stderr' in d ? d.stderr : d])).toEqual([
        ['a', ['met b']],
        ['b', ['met a']],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
