/**
 * The parts of the MCP tool source that need no server: offered names, results as the
 * model and the tool block read them, progress reports, stderr handling, retry waits,
 * and the environment a stdio server is given.
 */
import { describe, expect, test } from 'vitest';
import { ToolError } from '../src/tools/define-tool.js';
import { stdioServerEnvironment } from '../src/tools/mcp/child-environment.js';
import { reportProgress } from '../src/tools/mcp/progress-update.js';
import { retryDelayMs } from '../src/tools/mcp/retry-delay.js';
import { selectTools } from '../src/tools/mcp/select-tools.js';
import { StderrTail } from '../src/tools/mcp/stderr-tail.js';
import { offeredToolNames, sanitizeToolName } from '../src/tools/mcp/tool-names.js';
import { toolParameters } from '../src/tools/mcp/tool-parameters.js';
import { MAX_IMAGE_BASE64_CHARS, toolResultOf } from '../src/tools/mcp/tool-result.js';

const VALID_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe('offered names', () => {
  test('a name every provider accepts: other characters become _, cut to 64, never empty', () => {
    expect(sanitizeToolName('files.read/all')).toBe('files_read_all');
    expect(sanitizeToolName('x'.repeat(100))).toHaveLength(64);
    expect(sanitizeToolName('')).toBe('_');
    expect(sanitizeToolName('日本')).toBe('__');
  });

  test('own names when unique; server prefixes when two collide or one is reserved', () => {
    const named = offeredToolNames(
      [
        { server: 'files', tool: 'search' },
        { server: 'web', tool: 'search' },
        { server: 'web', tool: 'fetch' },
        { server: 'clock', tool: 'get_time' },
      ],
      new Set(['get_time', 'calculator']),
    );
    expect(named.map((tool) => tool.offered)).toEqual([
      'files_search',
      'web_search',
      'fetch',
      'clock_get_time',
    ]);
  });

  test('names that only collide once sanitised are prefixed too', () => {
    const named = offeredToolNames([
      { server: 'a', tool: 'read.file' },
      { server: 'b', tool: 'read_file' },
    ]);
    expect(named.map((tool) => tool.offered)).toEqual(['a_read_file', 'b_read_file']);
  });

  test('a prefixed name never takes a name a tool has on its own; a clash left gets a number', () => {
    const named = offeredToolNames([
      { server: 'a', tool: 'x' },
      { server: 'b', tool: 'x' },
      { server: 'q', tool: 'a_x' },
      { server: 'a', tool: 'x' },
    ]);
    expect(named.map((tool) => tool.offered)).toEqual(['a_x_2', 'b_x', 'a_x', 'a_x_3']);
  });

  test('long names stay within 64 characters and unique', () => {
    const long = 'very-long-tool-name-'.repeat(5);
    const named = offeredToolNames([
      { server: 'first-server-with-a-long-name', tool: long },
      { server: 'first-server-with-a-long-name', tool: `${long}2` },
      { server: 'other', tool: long },
    ]);
    const names = named.map((tool) => tool.offered);
    for (const name of names) expect(name).toMatch(VALID_NAME);
    expect(new Set(names).size).toBe(3);
  });

  test('the same tools give the same names, whatever order their servers came in', () => {
    const tools = [
      { server: 'a', tool: 'search' },
      { server: 'b', tool: 'search' },
    ];
    const byOrigin = (list: ReturnType<typeof offeredToolNames>) =>
      Object.fromEntries(list.map((tool) => [`${tool.server}/${tool.tool}`, tool.offered]));
    expect(byOrigin(offeredToolNames(tools))).toEqual(byOrigin(offeredToolNames([...tools].reverse())));
  });
});

describe('results', () => {
  test('text only is a plain string, blocks joined by newlines', () => {
    expect(
      toolResultOf({
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toBe('one\ntwo');
    expect(toolResultOf({ content: [] })).toBe('');
  });

  test('isError throws a ToolError with the text', () => {
    expect(() => toolResultOf({ content: [{ type: 'text', text: 'no such file' }], isError: true })).toThrow(
      new ToolError('no such file'),
    );
    expect(() => toolResultOf({ content: [], isError: true })).toThrow(/reported an error/);
  });

  test('structured content is kept, with text that is not merely its JSON', () => {
    expect(
      toolResultOf({
        content: [
          { type: 'text', text: '{"a":1}' },
          { type: 'text', text: 'one item' },
        ],
        structuredContent: { a: 1 },
      }),
    ).toEqual({ content: 'one item', structured: { a: 1 } });
  });

  test('an image over 1 MB of base64 is replaced by a note; other blocks become notes or text', () => {
    const big = 'A'.repeat(MAX_IMAGE_BASE64_CHARS + 4);
    expect(
      toolResultOf({
        content: [
          { type: 'image', mimeType: 'image/png', data: 'iVBOR' },
          { type: 'image', mimeType: 'image/jpeg', data: big },
          { type: 'audio', mimeType: 'audio/wav', data: 'UklGR' },
          { type: 'resource_link', name: 'report', uri: 'file:///report.pdf' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'embedded text' } },
          { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA', mimeType: 'application/zip' } },
        ],
      }),
    ).toEqual({
      content: [
        '[image/jpeg image of 787 kB left out: larger than the 1 MB kept per image]',
        '[audio/wav audio of 1 kB left out]',
        '[resource: report file:///report.pdf]',
        'embedded text',
        '[resource file:///a.bin (application/zip) left out: not text]',
      ].join('\n'),
      images: [{ type: 'image', mimeType: 'image/png', data: 'iVBOR' }],
    });
  });
});

describe('what servers send besides results', () => {
  test('progress: finite, not negative; a long message cut', () => {
    const updates: unknown[] = [];
    const context = { progress: (update: unknown) => void updates.push(update) };
    reportProgress(context, { progress: 1, total: 4, message: 'x'.repeat(600) });
    reportProgress(context, { progress: -1 });
    reportProgress(context, { progress: 2, total: Number.NaN });
    expect(updates).toEqual([{ progress: 1, total: 4, message: 'x'.repeat(500) }, { progress: 2 }]);
  });

  test('stderr: line by line across chunks and multi-byte characters, long lines cut, the tail bounded', () => {
    const lines: string[] = [];
    const tail = new StderrTail((line) => lines.push(line), { maxLineChars: 10, keepLines: 2 });
    const accent = Buffer.from('é');
    tail.write(Buffer.concat([Buffer.from('caf'), accent.subarray(0, 1)]));
    tail.write(Buffer.concat([accent.subarray(1), Buffer.from('\r\nsecond\n\n')]));
    tail.write('a line far longer than ten');
    tail.write(' characters\nlast');
    expect(lines).toEqual(['café', 'second', 'a line far…']);
    expect(tail.lines).toEqual(['a line far…', 'last']);
  });

  test('stderr: the tail is bounded in characters as well as lines, whatever the server writes', () => {
    const tail = new StderrTail(() => {}, { maxLineChars: 100, keepLines: 20, maxChars: 250 });
    for (let i = 0; i < 10; i++) tail.write(`${String(i).repeat(100)}\n`);
    expect(tail.lines).toEqual(['8'.repeat(100), '9'.repeat(100)]);
    tail.write('z'.repeat(1_000_000));
    expect(tail.lines).toEqual(['9'.repeat(100), `${'z'.repeat(100)}…`]);
    // By default: 20 lines, 4 KB.
    const flooded = new StderrTail(() => {});
    flooded.write('x'.repeat(1 << 20));
    flooded.write(`\n${'a line of forty characters, give or take\n'.repeat(10_000)}`);
    expect(flooded.lines).toHaveLength(20);
    flooded.write(`${'y'.repeat(900)}\n`.repeat(10));
    expect(flooded.lines.join('').length).toBeLessThanOrEqual(4_096);
  });

  test('retry waits: 1 s doubling to 60 s, ±20%', () => {
    const nominal = [1, 2, 3, 4, 5, 6, 7, 10].map((failures) => retryDelayMs(failures, {}, () => 0.5));
    expect(nominal).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect(retryDelayMs(1, {}, () => 0)).toBe(800);
    expect(retryDelayMs(1, {}, () => 1)).toBe(1_200);
    expect(retryDelayMs(10, {}, () => 1)).toBe(60_000);
  });

  test('a stdio server gets the safe set and its configured variables only', () => {
    const environment = stdioServerEnvironment({ API_TOKEN: 'configured', PATH: '/custom/bin' });
    expect(environment.API_TOKEN).toBe('configured');
    expect(environment.PATH).toBe('/custom/bin');
    const names = Object.keys(environment).filter((name) => name !== 'API_TOKEN');
    expect(names.every((name) => ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'].includes(name))).toBe(
      true,
    );
  });
});

describe('which tools, with which schemas', () => {
  const tool = (name: string, extra: object = {}) => ({
    name,
    inputSchema: { type: 'object' as const },
    ...extra,
  });

  test('the allow-list, task-only tools and repeated names', () => {
    const listed = [
      tool('a'),
      tool('b'),
      tool('a'),
      tool('research', { execution: { taskSupport: 'required' as const } }),
    ];
    expect(selectTools(listed)).toEqual({
      tools: [tool('a'), tool('b')],
      missing: [],
      taskOnly: ['research'],
    });
    expect(selectTools(listed, ['b', 'typo'])).toEqual({
      tools: [tool('b')],
      missing: ['typo'],
      taskOnly: [],
    });
  });

  test('schema tags go; a schema that does not compile is reported, not thrown', () => {
    const checked = toolParameters(
      tool('x', {
        inputSchema: {
          type: 'object',
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $id: 'urn:x',
          properties: { n: { type: 'number' } },
        },
      }),
    );
    expect(checked).toEqual({
      ok: true,
      parameters: { type: 'object', properties: { n: { type: 'number' } } },
    });
    // The same $id twice would make a shared Ajv refuse the second: nothing is kept.
    expect(toolParameters(tool('x', { inputSchema: { type: 'object', $id: 'urn:x' } })).ok).toBe(true);
    expect(
      toolParameters(
        tool('bad', { inputSchema: { type: 'object', properties: { n: { type: 'nonsense' } } } }),
      ),
    ).toMatchObject({ ok: false, problem: expect.stringContaining('type') });
  });
});
