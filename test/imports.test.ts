/**
 * The source tree's import graph has no circle: a module that imports itself through others
 * sees half-initialised bindings at load time (serve/app → metrics → openapiRoute → openapi →
 * app once did). Every relative import counts, type-only ones too, so a circle cannot sneak
 * in as a type and become real when the import gains a value.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const test = suite('imports');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE_DIRS = ['shared', 'storage', 'calendar', 'ingest', 'serve', 'client', 'cli', 'bench'];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/** file → the source files it imports (relative specifiers, `.js` resolved to `.ts`). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCE_DIRS.flatMap((d) => sourceFiles(join(ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    const deps = [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(file), m[1])).replace(/\.js$/, '.ts'));
    graph.set(file, deps);
  }
  return graph;
}

/** Every import circle, each as the list of files around it (depth-first search, iterative). */
function circles(graph: Map<string, string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>();
  const found: string[][] = [];
  for (const start of graph.keys()) {
    if (state.has(start)) continue;
    const stack: { file: string; next: number }[] = [{ file: start, next: 0 }];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const deps = graph.get(top.file) ?? [];
      if (top.next >= deps.length) {
        state.set(top.file, 'done');
        stack.pop();
        continue;
      }
      const dep = deps[top.next++];
      if (!graph.has(dep)) continue;
      const s = state.get(dep);
      if (s === 'open') found.push([...stack.slice(stack.findIndex((f) => f.file === dep)).map((f) => f.file), dep]);
      else if (s === undefined) {
        state.set(dep, 'open');
        stack.push({ file: dep, next: 0 });
      }
    }
  }
  return found;
}

test('the checker finds a circle when there is one', () => {
  const g = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  assert.equal(circles(g), [['a', 'b', 'c', 'a']]);
  assert.equal(
    circles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
});

test('no import circle among the source files', () => {
  const graph = importGraph();
  assert.ok(graph.size > 100, `read ${graph.size} source files`);
  const found = circles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(' → '));
  assert.equal(found, []);
});

test('every relative import names a source file that exists', () => {
  const missing: string[] = [];
  for (const [file, deps] of importGraph()) {
    for (const dep of deps)
      if (!dep.endsWith('.json') && !statSync(dep, { throwIfNoEntry: false })) missing.push(`${relative(ROOT, file)} → ${relative(ROOT, dep)}`);
  }
  assert.equal(missing, []);
});

test.run();
