/**
 * The tree's floors are ESLint rules (eslint.config.js), run by `npm test`: an import that
 * points up fails the lint. Planted imports, linted as if they were files of each folder, show
 * that each floor refuses what it must and lets through what the tree relies on.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('lint floors');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const eslint = new ESLint({ cwd: ROOT });

/** The no-restricted-imports messages ESLint gives `code` as the file `path` (relative to the root). */
async function floorErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const UPWARD: readonly (readonly [string, string])[] = [
  ['storage/planted.ts', '../ingest/errors.js'],
  ['storage/staging/planted.ts', '../../serve/operations.js'],
  ['shared/planted.ts', '../storage/catalog.js'],
  ['calendar/planted.ts', '../storage/layout.js'],
  ['serve/reading/planted.ts', '../../ingest/diskFault.js'],
  ['ingest/seal/planted.ts', '../../serve/operations.js'],
  ['serve/access/planted.ts', '../http/app.js'],
  ['client/planted.ts', '../shared/sqlite.js'],
  ['ingest/planted.ts', '../cli/main.js'],
];

for (const [path, target] of UPWARD) {
  test(`${path} importing ${target} fails the lint`, async () => {
    const errors = await floorErrors(path, `import { x } from '${target}';\nexport const y = x;\n`);
    assert.is(errors.length, 1, `${path} → ${target}: ${JSON.stringify(errors)}`);
    assert.match(errors[0]!, /must not import from|imports nothing outside/);
  });
}

const DOWNWARD: readonly (readonly [string, string])[] = [
  ['serve/planted.ts', '../storage/catalog.js'],
  ['ingest/planted.ts', '../storage/symbolDayFile.js'],
  ['storage/planted.ts', '../shared/durableFile.js'],
  ['client/planted.ts', '../shared/retry/backoff.js'],
  ['cli/planted.ts', '../serve/operations.js'],
];

for (const [path, target] of DOWNWARD) {
  test(`${path} importing ${target} passes`, async () => {
    assert.equal(await floorErrors(path, `import { x } from '${target}';\nexport const y = x;\n`), []);
  });
}

test('the tree itself has no upward import', async () => {
  const results = await eslint.lintFiles(['shared', 'calendar', 'storage', 'ingest', 'serve', 'client']);
  const upward = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => `${r.filePath}:${m.line}`));
  assert.equal(upward, []);
});

test.run();
