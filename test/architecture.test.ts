/**
 * Holds the code to architecture.json: imports point only down the layers it names,
 * packages import only the packages it allows, and no files import each other in a circle.
 * Imports are read by TypeScript's own pre-processor (type-only imports count: a circle of
 * types is still a circle a reader has to untangle).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const architecture = JSON.parse(readFileSync(join(root, 'architecture.json'), 'utf8')) as {
  packages: Record<string, string[] | string>;
  layers: Record<string, string[][]>;
};
const packages = Object.keys(architecture.packages).filter((name) => !name.startsWith('$'));

/** Every TypeScript source file below `dir`, as paths relative to the repository. */
function sources(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.includes('generated'))
    .map((file) => join(dir, file).split(sep).join('/'));
}

interface Imports {
  /** Files of this repository the file imports, by relative specifier. */
  files: string[];
  /** Bare specifiers (packages). */
  bare: string[];
}

function importsOf(file: string): Imports {
  const text = readFileSync(join(root, file), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const files: string[] = [];
  const bare: string[] = [];
  for (const { fileName } of importedFiles) {
    if (fileName.startsWith('.')) {
      const target = relative(root, resolve(root, dirname(file), fileName))
        .split(sep)
        .join('/');
      files.push(target.replace(/\.js$/, '.ts'));
    } else bare.push(fileName);
  }
  return { files, bare };
}

const allSources = packages.flatMap((name) => sources(`${name}/src`));
const graph = new Map(allSources.map((file) => [file, importsOf(file)]));

describe('architecture.json', () => {
  it('names only folders that exist, each once', () => {
    for (const [base, layers] of Object.entries(architecture.layers)) {
      const named = layers.flat();
      expect(new Set(named).size, `${base}: a folder named twice`).toBe(named.length);
      const folders = readdirSync(join(root, base), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
      // Every folder has its place: a new folder must be put in a layer on purpose.
      expect([...folders, '.'].sort(), `${base}: folders and layers differ`).toEqual([...named].sort());
    }
  });

  for (const [base, layers] of Object.entries(architecture.layers)) {
    it(`${base}: every import points down the layers`, () => {
      const layerOf = new Map<string, number>();
      layers.forEach((group, index) => group.forEach((folder) => layerOf.set(folder, index)));
      const folderOf = (file: string) => {
        const inside = relative(base, file).split('/');
        return inside.length === 1 ? '.' : inside[0]!;
      };
      const wrong: string[] = [];
      for (const [file, { files }] of graph) {
        if (!file.startsWith(`${base}/`)) continue;
        const from = folderOf(file);
        for (const target of files) {
          if (!target.startsWith(`${base}/`)) continue;
          const to = folderOf(target);
          if (to === from) continue;
          const below = layerOf.get(to)! < layerOf.get(from)!;
          if (!below) wrong.push(`${file} -> ${target} (${from} may not import ${to})`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it('packages import only the packages they may', () => {
    const wrong: string[] = [];
    for (const [file, { bare }] of graph) {
      const own = file.split('/')[0]!;
      const allowed = architecture.packages[own] as string[];
      for (const specifier of bare) {
        const match = /^@aalis\/([^/]+)/.exec(specifier);
        if (match && match[1] !== own && !allowed.includes(match[1]!))
          wrong.push(`${file} imports ${specifier}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('no files import each other in a circle', () => {
    // Tarjan's strongly connected components: any component of more than one file is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
    let next = 0;
    const visit = (file: string) => {
      index.set(file, next);
      low.set(file, next++);
      stack.push(file);
      onStack.add(file);
      for (const target of graph.get(file)?.files ?? []) {
        if (!graph.has(target)) continue;
        if (!index.has(target)) {
          visit(target);
          low.set(file, Math.min(low.get(file)!, low.get(target)!));
        } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
      if (low.get(file) === index.get(file)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== file);
        if (component.length > 1) circles.push(component.sort());
      }
    };
    for (const file of graph.keys()) if (!index.has(file)) visit(file);
    expect(circles).toEqual([]);
  });

  it('reads the imports it judges (a check that sees no arrows could not fail)', () => {
    const arrows = [...graph.values()].reduce((sum, { files }) => sum + files.length, 0);
    expect(graph.size).toBeGreaterThan(100);
    expect(arrows).toBeGreaterThan(graph.size);
  });
});
