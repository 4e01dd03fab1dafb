/**
 * The one worker pool (shared/workerPool.ts) with real threads (workerPoolFixture.ts): replies,
 * progress, transfers, dispatch and order; errors arriving as their own class; the one rule for
 * a worker that dies; a pool that never holds a process open. And the check that keeps it the
 * only one: no other source file starts a Worker or speaks to a parent port.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorkerDiedError, WorkerPool, WorkerPoolClosedError } from '../../shared/workerPool.js';
import { DamagedFileError } from '../../storage/damagedFile.js';
import { UnsupportedParquetError } from '../../storage/parquet/format.js';
import { IngestError } from '../../ingest/errors.js';
import type { FixtureRequest } from './workerPoolFixture.js';
import { tempDir } from '../support/tempDir.js';

const test = suite('shared/workerPool');
const FIXTURE = new URL('./workerPoolFixture.js', import.meta.url);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function pool(size = 1, lazy = false): WorkerPool<FixtureRequest, unknown, number> {
  return new WorkerPool<FixtureRequest, unknown, number>({ name: 'fixture worker', url: FIXTURE, size, workerData: 'fixture', lazy });
}

/** The rejection of `p` (failing when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => assert.unreachable(`resolved with ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
}

test('answers; progress values arrive in order before the reply; buffers move both ways', async () => {
  const p = pool();
  try {
    assert.equal(await p.run({ op: 'echo', value: { a: [1, 'x', null] } }), { a: [1, 'x', null] });
    const seen: number[] = [];
    let replied = false;
    const done = p.run({ op: 'progress', count: 5 }, { onProgress: (n) => seen.push(n) }).then((v) => {
      replied = true;
      assert.equal(seen, [1, 2, 3, 4, 5], 'every progress value before the reply');
      return v;
    });
    assert.is(await done, 'done');
    assert.ok(replied);
    const bytes = Uint8Array.from([1, 2, 3, 100]);
    const doubled = (await p.run({ op: 'double', bytes }, { transfer: [bytes.buffer] })) as Uint8Array;
    assert.is(bytes.byteLength, 0, 'the request buffer moved to the worker');
    assert.equal([...doubled], [2, 4, 6, 200]);
  } finally {
    await p.close();
  }
});

test('one worker with a synchronous handler answers in the order it was sent', async () => {
  const p = pool(1);
  try {
    const order: number[] = [];
    await Promise.all(Array.from({ length: 300 }, (_, i) => p.run({ op: 'echo', value: i }).then((v) => order.push(v as number))));
    assert.equal(
      order,
      Array.from({ length: 300 }, (_, i) => i),
    );
  } finally {
    await p.close();
  }
});

test('dispatch: to the worker with fewest in flight; several in flight on one worker', async () => {
  const two = pool(2, true);
  try {
    const ids = await Promise.all([two.run({ op: 'threadId' }), two.run({ op: 'threadId' })]);
    assert.is(new Set(ids).size, 2, 'two requests at once went to two workers');
  } finally {
    await two.close();
  }
  const one = pool(1);
  try {
    const held = [one.run({ op: 'hold' }), one.run({ op: 'hold' }), one.run({ op: 'hold' })];
    assert.is(await one.run({ op: 'release' }), 'release');
    assert.equal(await Promise.all(held), ['released', 'released', 'released']);
  } finally {
    await one.close();
  }
});

test("a handler's error arrives as its own class, with its fields, cause and stack; the worker lives on", async () => {
  const p = pool();
  try {
    const damaged = await rejection(p.run({ op: 'damaged', path: 'level2/date=20250102/600000.SH.parquet' }));
    assert.instance(damaged, DamagedFileError);
    const d = damaged as DamagedFileError;
    assert.is(d.path, 'level2/date=20250102/600000.SH.parquet');
    assert.is(d.message, 'stored file level2/date=20250102/600000.SH.parquet is damaged: pages do not decompress');
    assert.is(d.name, 'DamagedFileError');
    assert.instance(d.cause, Error);
    assert.is((d.cause as Error).name, 'RangeError');
    assert.is((d.cause as Error).message, 'offset out of range');
    assert.match(d.stack ?? '', /workerPoolFixture/, "the worker's stack");

    const ingest = await rejection(p.run({ op: 'ingest' }));
    assert.instance(ingest, IngestError);
    const i = ingest as IngestError;
    assert.equal([i.stage, i.message, i.retriable, i.context], ['decode', 'bad run', true, { topic: 't', partition: 3 }]);

    const unsupported = await rejection(p.run({ op: 'unsupported' }));
    assert.instance(unsupported, UnsupportedParquetError);
    assert.is((unsupported as Error).message, 'snappy pages');

    const odd = (await rejection(p.run({ op: 'odd' }))) as Error & { code?: string };
    assert.is(Object.getPrototypeOf(odd), Error.prototype);
    assert.equal([odd.name, odd.message, odd.code], ['OddError', 'odd failure', 'EODD']);
    assert.match(odd.stack ?? '', /^OddError: odd failure\n.*workerPoolFixture/s);

    assert.is(await p.run({ op: 'echo', value: 'still here' }), 'still here');
  } finally {
    await p.close();
  }
});

test('a worker that exits: every request it held rejects with one WorkerDiedError; the next request gets a fresh worker', async () => {
  const p = pool(1);
  try {
    const before = await p.run({ op: 'threadId' });
    const held = [p.run({ op: 'hold' }), p.run({ op: 'hold' }), p.run({ op: 'exit', code: 7 })];
    const errors = await Promise.all(held.map(rejection));
    for (const e of errors) {
      assert.instance(e, WorkerDiedError);
      assert.is((e as WorkerDiedError).exitCode, 7);
      assert.is((e as WorkerDiedError).worker, 'fixture worker');
    }
    assert.ok(
      errors.every((e) => e === errors[0]),
      'one error for all',
    );
    const after = await p.run({ op: 'threadId' });
    assert.is.not(after, before, 'a new thread');
  } finally {
    await p.close();
  }
});

test('a worker that throws outside any request dies with that error as the cause', async () => {
  const p = pool(1);
  try {
    const held = p.run({ op: 'hold' });
    const e = await rejection(p.run({ op: 'throwUncaught' }));
    assert.instance(e, WorkerDiedError);
    assert.is((e as WorkerDiedError).exitCode, 1);
    assert.is(((e as WorkerDiedError).cause as Error).message, 'boom');
    assert.match((e as Error).message, /fixture worker died \(exit code 1\): boom/);
    assert.is(await rejection(held), e);
  } finally {
    await p.close();
  }
});

test('close: what was held and every later request reject with WorkerPoolClosedError', async () => {
  const p = pool(2);
  const held = [p.run({ op: 'hold' }), p.run({ op: 'hold' })].map(rejection);
  await p.close();
  for (const e of await Promise.all(held)) assert.instance(e, WorkerPoolClosedError);
  assert.instance(await rejection(p.run({ op: 'echo', value: 1 })), WorkerPoolClosedError);
});

/** Runs `body` (ES module code, `pool` in scope) in a new process; its exit code and output. */
function inProcess(body: string): Promise<{ code: number | null; out: string }> {
  const code = `
    const { WorkerPool } = await import(${JSON.stringify(new URL('../../shared/workerPool.js', import.meta.url).href)});
    const pool = new WorkerPool({ name: 'fixture worker', url: new URL(${JSON.stringify(FIXTURE.href)}), size: 2, workerData: 'fixture' });
    ${body}`;
  // A file, not --input-type=module -e: worker threads inherit the flags, and that one fails them.
  const script = join(tempDir('tickvault-pool-'), 'main.mjs');
  writeFileSync(script, code);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    // A pool that holds the process open would make this test hang: stop it and fail instead.
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (exit) => {
      clearTimeout(watchdog);
      resolve({ code: exit, out });
    });
  });
}

test('an idle pool never holds a process open; one owing a reply keeps it until the reply', async () => {
  // Nothing closes the pool: the process ends once the reply it awaited has come.
  const r = await inProcess(`console.log(await pool.run({ op: 'later' }));`);
  assert.equal(r, { code: 0, out: 'later\n' });
  const idle = await inProcess(`console.log('started');`);
  assert.equal(idle, { code: 0, out: 'started\n' });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sourceFiles(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

test('no source file but the pool starts a Worker or speaks to a parent port', () => {
  const files = ['ingest', 'serve', 'shared', 'storage', 'cli'].flatMap((d) => sourceFiles(join(ROOT, d)));
  assert.ok(files.length > 100, `${files.length} source files read`);
  const offenders = files.filter((f) => /new Worker\(|\bparentPort\b/.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
  assert.equal(offenders, ['shared/workerPool.ts']);
});

test.run();
