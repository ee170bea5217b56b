import { describe, expect, test } from 'vitest';
import { ToolError, ToolRegistry, type ToolContext } from '../src/tools/define-tool.js';
import { evaluate } from '../src/tools/builtin/expression.js';
import { builtinTools } from '../src/tools/builtin/index.js';
import { Workspace } from '../src/tools/workspace.js';

const registry = new ToolRegistry(builtinTools());
const context = (): ToolContext => ({
  signal: new AbortController().signal,
  sessionId: 's',
  workspace: new Workspace(),
  progress: () => {},
});
const call = (name: string, args: unknown, ctx = context()) => registry.get(name)!.execute(args, ctx);

describe('calculator', () => {
  test.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['2 ^ 3 ^ 2', 512],
    ['2 ** 10', 1024],
    ['-2 ^ 2', -4],
    ['10 % 4', 2],
    ['sqrt(16) + abs(-3)', 7],
    ['max(1, 5, 3) - min(4, 2)', 3],
    ['round(pi * 100) / 100', 3.14],
    ['1.5e3 / .5', 3000],
    ['ln(e)', 1],
  ])('%s = %s', (expression, expected) => {
    expect(evaluate(expression)).toBeCloseTo(expected, 10);
  });

  test.each([
    ['1 / 0', 'division by zero'],
    ['2 +', 'the expression ends too early'],
    ['(1 + 2', 'expected ")"'],
    ['1 2', 'unexpected "2"'],
    ['process(1)', 'unknown name "process"'],
    ['process.exit(1)', 'unexpected character "." at position 8'],
    ['constructor(1)', 'unknown name "constructor"'],
    ['2 $ 3', 'unexpected character "$" at position 3'],
    ['', 'the expression is empty'],
    ['10 ^ 400', 'the result is not a finite number'],
  ])('%s is refused: %s', (expression, message) => {
    expect(() => evaluate(expression)).toThrow(new ToolError(message));
  });

  test('deep nesting and huge input are refused, not a stack overflow', () => {
    expect(() => evaluate('('.repeat(150) + '1' + ')'.repeat(150))).toThrow(/nests too deeply/);
    expect(() => evaluate('1+'.repeat(600) + '1')).toThrow(/longer than 1,000/);
  });
});

describe('the built-in tools', () => {
  test('the registry validates arguments against each schema', () => {
    expect(registry.validate('calculator', { expression: '1' })).toEqual({ ok: true });
    expect(registry.validate('calculator', { expression: 1 })).toEqual({
      ok: false,
      message: 'arguments/expression must be string',
    });
    expect(registry.validate('get_weather', { location: 'Oslo', unit: 'kelvin' })).toMatchObject({
      ok: false,
    });
    expect(registry.validate('nope', {})).toEqual({ ok: false, message: 'unknown tool "nope"' });
    expect(registry.specs().map((s) => s.name)).toEqual([
      'get_weather',
      'get_time',
      'calculator',
      'write_file',
      'delete_file',
      'search_docs',
      'build_index',
    ]);
  });

  test('weather is repeatable per place, converts units and says it is demo data', () => {
    const a = call('get_weather', { location: 'Oslo' }) as { temperature: number; source: string };
    expect(call('get_weather', { location: ' oslo ' })).toEqual({ ...a, location: ' oslo ' });
    const f = call('get_weather', { location: 'Oslo', unit: 'fahrenheit' }) as { temperature: number };
    expect(f.temperature).toBe(Math.round((a.temperature * 9) / 5 + 32));
    expect(a.source).toMatch(/demo data/);
  });

  test('time answers in the asked time zone and refuses an unknown one', () => {
    expect(call('get_time', { timezone: 'Asia/Tokyo' })).toMatchObject({ timezone: 'Asia/Tokyo' });
    expect(() => call('get_time', { timezone: 'Mars/Olympus' })).toThrow(/unknown time zone "Mars\/Olympus"/);
  });

  test('write_file writes into the session workspace, within its limits', () => {
    const ctx = { ...context(), workspace: new Workspace({ maxFiles: 2, maxFileChars: 10 }) };
    expect(call('write_file', { path: './notes//a.md', content: 'hello' }, ctx)).toEqual({
      path: 'notes/a.md',
      chars: 5,
      created: true,
      files: 1,
    });
    expect(ctx.workspace.read('notes/a.md')).toBe('hello');
    expect(() => call('write_file', { path: '../etc/passwd', content: '' }, ctx)).toThrow(
      /may not contain ".."/,
    );
    expect(() => call('write_file', { path: 'b', content: 'x'.repeat(11) }, ctx)).toThrow(/limit is 10/);
    call('write_file', { path: 'b', content: '1' }, ctx);
    expect(() => call('write_file', { path: 'c', content: '1' }, ctx)).toThrow(/already holds 2 files/);
  });

  test('delete_file removes a file of the workspace, refuses a missing one, and asks for approval by default', () => {
    const ctx = context();
    ctx.workspace.write('notes.md', 'draft');
    expect(call('delete_file', { path: 'notes.md' }, ctx)).toEqual({ deleted: 'notes.md', files: 0 });
    expect(() => call('delete_file', { path: 'notes.md' }, ctx)).toThrow(ToolError);
    expect(registry.get('delete_file')!.approval).toBe('session');
  });

  test('build_index reports its progress source by source, and stops when told', async () => {
    const reports: unknown[] = [];
    const ctx = { ...context(), progress: (update: unknown) => void reports.push(update) };
    const result = await call('build_index', { sources: ['a', 'b'] }, ctx);
    expect(result).toEqual({ indexed: 2, documents: 84 });
    expect(reports).toEqual([
      { progress: 0, total: 2, message: 'Indexing a' },
      { progress: 1, total: 2, message: 'Indexing b' },
      { progress: 2, total: 2, message: 'Done' },
    ]);
    const stop = new AbortController();
    const running = call('build_index', { sources: ['a', 'b', 'c'] }, { ...context(), signal: stop.signal });
    stop.abort();
    await expect(running).rejects.toThrow(ToolError);
  });

  test('search finds the passage that matches best', () => {
    const found = call('search_docs', { query: 'refresh resume elapsed' }) as {
      results: Array<{ title: string }>;
    };
    expect(found.results[0]?.title).toBe('Resume after refresh');
    expect((call('search_docs', { query: 'zzzz' }) as { results: unknown[] }).results).toEqual([]);
  });
});
