/**
 * `tickvault/client` as a consumer sees it: resolved through package.json `exports`, and
 * typed: a strict TypeScript consumer in its own folder (the package linked into its
 * node_modules) compiles against the emitted .d.ts, and a wrong parameter is a type error.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as relative from '../../client/index.js';
import { tempDir } from '../support/tempDir.js';

const test = suite('tickvault/client exports');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

test('the package name resolves to the client', async () => {
  // A specifier in a variable: the build type-checks this file before dist/ exists.
  const specifier = 'tickvault/client';
  const byName = (await import(specifier)) as typeof relative;
  assert.equal(Object.keys(byName).sort(), Object.keys(relative).sort());
  assert.ok(typeof byName.TickvaultClient === 'function');
});

function compile(source: string): { code: number | null; out: string } {
  const dir = tempDir('tickvault-consumer-');
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'tickvault'), 'dir');
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(join(dir, 'consumer.ts'), source);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      },
      files: ['consumer.ts'],
    }),
  );
  const r = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

const CONSUMER = `
import { TickvaultClient, TickvaultError, type Level2Page } from 'tickvault/client';
const client = new TickvaultClient({ baseUrl: 'http://localhost:8080', apikey: 'k', retry: { maxWaitSec: 5 } });
export async function run(): Promise<number> {
  const pages: Level2Page[] = [];
  for await (const p of client.level2QuoteHistoryPages({ symbol: '600000', page_size: 10 })) pages.push(p);
  const t = await client.tickHistory({ symbols: ['000300'], trademin: '0931', side: 'before' });
  try {
    await client.downloadLevel2Parquet({ symbol: '600000' }, 'x.parquet');
  } catch (err) {
    if (err instanceof TickvaultError) return err.code + (err.retryAfterSec ?? 0);
  }
  return pages.length + t.data.items.length;
}
`;

test('a strict TypeScript consumer compiles against the declarations', () => {
  const r = compile(CONSUMER);
  assert.is(r.code, 0, r.out);
});

test('the declarations are real types: a wrong parameter does not compile', () => {
  const r = compile(CONSUMER.replace("side: 'before'", "side: 'middle'"));
  assert.is.not(r.code, 0);
  assert.match(r.out, /'"middle"' is not assignable/);
});

test.run();
