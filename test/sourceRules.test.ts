/**
 * Rules of the source tree that a reading can check, so that they do not quietly come back
 * (which folder may import which is ESLint's: eslint.config.js, run by npm test):
 * answers leave through Koa (no patched `res.write`/`res.end`, no `ctx.respond = false`);
 * errors are logged whole (`{ err }`, pino's serialiser with the stack), never as their message alone;
 * code cites the contract in the repository (docs/api-contract.md), by section name.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const test = suite('source rules');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SOURCE_DIRS = ['shared', 'storage', 'calendar', 'ingest', 'serve', 'client', 'cli', 'bench'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/** `file:line: text` of every line of the given folders matching `pattern`. */
function grep(dirs: readonly string[], pattern: RegExp): string[] {
  const hits: string[] = [];
  for (const file of dirs.flatMap((d) => sourceFiles(join(ROOT, d)))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line)) hits.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return hits;
}

test('the checker sees the source tree', () => {
  assert.ok(grep(['serve'], /createApp/).length > 0);
});

test('serve/ never patches the response or bypasses Koa writing it', () => {
  assert.equal(grep(['serve'], /\bres\.(write|end)\s*=|ctx\.respond\s*=\s*false/), []);
});

test('errors are logged whole, not as their message', () => {
  assert.equal(grep(SOURCE_DIRS, /\berr: *\(?[a-zA-Z]+( as Error\))?\)?\.message\b/), []);
});

test('comments cite docs/api-contract.md, not a document outside the repository', () => {
  assert.equal(grep([...SOURCE_DIRS, 'test'], /decisions(\.md)? §/), []);
  assert.ok(statSync(join(ROOT, 'docs', 'api-contract.md')).size > 0);
});

test.run();
