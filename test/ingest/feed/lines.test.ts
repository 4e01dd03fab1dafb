import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { compressionOf, readFeedLines, type LineBatch } from '../../../ingest/feed/lines.js';
import { FeedWriter } from '../../../ingest/feed/writer.js';
import { commandOnPath } from '../../support/commandOnPath.js';
import { tempDir } from '../../support/tempDir.js';

const dir = tempDir('tickvault-feedlines-');
let fileNo = 0;
const path = (suffix: string) => join(dir, `f${++fileNo}${suffix}`);

const ZSTD_CLI = commandOnPath('zstd');

/** Writes raw bytes as a .zst with the zstd CLI when present, else with FeedWriter (text only). */
async function writeZst(target: string, raw: Buffer, cliArgs: string[] = []): Promise<void> {
  if (ZSTD_CLI) {
    const src = target + '.src';
    writeFileSync(src, raw);
    execFileSync('zstd', ['-q', '-f', ...cliArgs, src, '-o', target]);
    return;
  }
  const text = raw.toString('utf8');
  const w = new FeedWriter(target);
  const parts = text.split('\n');
  // FeedWriter always ends with a newline; only used for newline-terminated text here.
  if (parts[parts.length - 1] === '') parts.pop();
  for (const l of parts) await w.writeLine(l);
  await w.close();
}

/** `raw` written to a new file, compressed as its suffix says (.jsonl, .jsonl.gz, .jsonl.zst). */
async function writeFeed(suffix: string, raw: string): Promise<string> {
  const p = path(suffix);
  if (suffix === '.jsonl') writeFileSync(p, raw);
  else if (suffix === '.jsonl.gz') writeFileSync(p, gzipSync(Buffer.from(raw)));
  else await writeZst(p, Buffer.from(raw));
  return p;
}

interface Read {
  lines: string[];
  batches: LineBatch[];
}

async function readAll(p: string, batchLines?: number): Promise<Read> {
  const lines: string[] = [];
  const batches: LineBatch[] = [];
  for await (const b of readFeedLines(p, batchLines)) {
    batches.push(b);
    lines.push(...b.lines);
  }
  return { lines, batches };
}

/** Line numbers are contiguous from 1 and batches never exceed the batch size. */
function checkNumbering(r: Read, batchLines: number): void {
  let next = 1;
  let lastBytes = 0;
  for (const b of r.batches) {
    assert.is(b.firstLineNo, next, 'firstLineNo continues from the previous batch');
    assert.ok(b.lines.length > 0, 'no empty batches');
    assert.ok(b.lines.length <= batchLines, `batch of ${b.lines.length} > ${batchLines}`);
    assert.ok(b.bytesRead >= lastBytes, 'bytesRead never goes back');
    lastBytes = b.bytesRead;
    next += b.lines.length;
  }
}

/** Sample feed: distinct JSON lines, some with multi-byte characters. */
function sampleLines(n: number, from = 0): string[] {
  return Array.from({ length: n }, (_, k) => {
    const i = from + k;
    return JSON.stringify({ kind: 'level2', n: i, note: i % 3 === 0 ? '沪深京·指数' : 'ascii', x: i / 7 });
  });
}

// ---------------------------------------------------------------------------------------------
const kinds = suite('compressionOf');

kinds('by extension', () => {
  const cases = [
    ['a.jsonl', 'none'],
    ['a.jsonl.gz', 'gzip'],
    ['a.jsonl.zst', 'zstd'],
    ['/x/y.jsonl.zst', 'zstd'],
  ];
  for (const [path, want] of cases) assert.is(compressionOf(path), want, path);
});

// ---------------------------------------------------------------------------------------------
const formats = suite('readFeedLines: the same content in every format');

formats('.jsonl, .jsonl.gz, .jsonl.zst (CLI and FeedWriter) read back identically', async () => {
  const lines = sampleLines(500);
  const raw = Buffer.from(lines.join('\n') + '\n');
  const plain = path('.jsonl');
  writeFileSync(plain, raw);
  const gz = path('.jsonl.gz');
  writeFileSync(gz, gzipSync(raw));
  const zst = path('.jsonl.zst');
  await writeZst(zst, raw);
  const viaWriter = path('.jsonl.zst');
  const w = new FeedWriter(viaWriter);
  for (const l of lines) await w.writeLine(l);
  await w.close();
  const gzWriter = path('.jsonl.gz');
  const wg = new FeedWriter(gzWriter);
  for (const l of lines) await wg.writeLine(l);
  await wg.close();
  for (const p of [plain, gz, zst, viaWriter, gzWriter]) {
    const r = await readAll(p);
    assert.equal(r.lines, lines, p);
    checkNumbering(r, 4096);
  }
  // the zstd CLI (independent decoder) agrees with what FeedWriter wrote
  if (ZSTD_CLI) assert.is(execFileSync('zstd', ['-dc', viaWriter]).toString('utf8'), raw.toString('utf8'));
});

formats('bytesRead ends at the file size for plain and zstd files', async () => {
  const raw = Buffer.from(sampleLines(3000).join('\n') + '\n');
  const plain = path('.jsonl');
  writeFileSync(plain, raw);
  const zst = path('.jsonl.zst');
  await writeZst(zst, raw);
  const gz = path('.jsonl.gz');
  writeFileSync(gz, gzipSync(raw));
  for (const p of [plain, zst]) {
    const r = await readAll(p);
    assert.is(r.batches[r.batches.length - 1].bytesRead, statSync(p).size, p);
  }
  const r = await readAll(gz);
  const last = r.batches[r.batches.length - 1].bytesRead;
  assert.ok(last > 0 && last <= statSync(gz).size, `gz bytesRead ${last}`);
});

// ---------------------------------------------------------------------------------------------
const zstd = suite('readFeedLines: zstd frames');

zstd('a multi-frame file (frames concatenated, with and without checksums)', async () => {
  const a = sampleLines(2000, 0);
  const b = sampleLines(2000, 2000);
  const c = sampleLines(10, 4000);
  const fa = path('.jsonl.zst');
  const fb = path('.jsonl.zst');
  const fc = path('.jsonl.zst');
  await writeZst(fa, Buffer.from(a.join('\n') + '\n'));
  await writeZst(fb, Buffer.from(b.join('\n') + '\n'), ZSTD_CLI ? ['--no-check'] : []);
  await writeZst(fc, Buffer.from(c.join('\n') + '\n'), ZSTD_CLI ? ['-19'] : []);
  const multi = path('.jsonl.zst');
  writeFileSync(multi, Buffer.concat([readFileSync(fa), readFileSync(fb), readFileSync(fc)]));
  const r = await readAll(multi);
  assert.equal(r.lines, [...a, ...b, ...c]);
  checkNumbering(r, 4096);
});

zstd('a frame boundary inside a line, and an empty frame', async () => {
  const lines = sampleLines(100);
  const text = lines.join('\n') + '\n';
  const cut = text.indexOf('\n', 2000) - 5; // inside a line
  const f1 = path('.jsonl.zst');
  const f2 = path('.jsonl.zst');
  const fe = path('.jsonl.zst');
  await writeZst(f1, Buffer.from(text.slice(0, cut)));
  await writeZst(f2, Buffer.from(text.slice(cut)));
  const hasEmpty = ZSTD_CLI;
  if (hasEmpty) await writeZst(fe, Buffer.alloc(0));
  const multi = path('.jsonl.zst');
  writeFileSync(multi, Buffer.concat([readFileSync(f1), ...(hasEmpty ? [readFileSync(fe)] : []), readFileSync(f2)]));
  assert.equal((await readAll(multi)).lines, lines);
});

zstd('skippable frames (as seekable-zstd writers emit) are skipped', async () => {
  const lines = sampleLines(300);
  const fz = path('.jsonl.zst');
  await writeZst(fz, Buffer.from(lines.join('\n') + '\n'));
  const skippable = Buffer.concat([Buffer.from([0x50, 0x2a, 0x4d, 0x18]), Buffer.from([4, 0, 0, 0]), Buffer.from('skip')]);
  const p = path('.jsonl.zst');
  writeFileSync(p, Buffer.concat([skippable, readFileSync(fz), skippable]));
  if (ZSTD_CLI) assert.is(execFileSync('zstd', ['-dc', p]).toString('utf8'), lines.join('\n') + '\n', 'zstd CLI reads it');
  assert.equal((await readAll(p)).lines, lines);
});

zstd('FeedWriter: lines and byte chunks interleaved are written in the order given, in every format', async () => {
  const lines = sampleLines(9_000);
  for (const ext of ['.jsonl', '.jsonl.gz', '.jsonl.zst']) {
    const p = path(ext);
    const w = new FeedWriter(p);
    for (let i = 0; i < lines.length; i += 1000) {
      // A third of the lines one by one, the rest as one chunk of bytes (the generator's way).
      const group = lines.slice(i, i + 1000);
      for (const l of group.slice(0, 300)) await w.writeLine(l);
      await w.writeBytes(Buffer.from(group.slice(300).join('\n') + '\n'));
    }
    await w.close();
    assert.equal((await readAll(p)).lines, lines, ext);
    if (ext === '.jsonl.zst' && ZSTD_CLI) assert.is(execFileSync('zstd', ['-dc', p]).toString('utf8'), lines.join('\n') + '\n');
  }
});

zstd('FeedWriter output over 4 MiB is several frames and reads back whole', async () => {
  const lines = sampleLines(30_000).map((l) => l + ' '.repeat(120)); // ~5.5 MB
  const p = path('.jsonl.zst');
  const w = new FeedWriter(p);
  for (const l of lines) await w.writeLine(l);
  await w.close();
  if (ZSTD_CLI) {
    const info = execFileSync('zstd', ['-lv', p], { stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
    const m = /Zstandard Frames:\s*(\d+)/.exec(info);
    assert.ok(m, `zstd -lv output: ${info}`);
    assert.ok(Number(m![1]) >= 2, `expected several frames, zstd -l says ${m![1]}`);
  }
  const r = await readAll(p);
  assert.is(r.lines.length, lines.length);
  assert.equal(r.lines, lines);
  checkNumbering(r, 4096);
});

zstd('a truncated .zst is an error, not silently short', async () => {
  const raw = Buffer.from(sampleLines(2000).join('\n') + '\n');
  const fz = path('.jsonl.zst');
  await writeZst(fz, raw);
  const bytes = readFileSync(fz);
  const cut = path('.jsonl.zst');
  writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
  let threw = false;
  try {
    await readAll(cut);
  } catch {
    threw = true;
  }
  assert.ok(threw, 'reading a truncated zstd file must fail');
});

// ---------------------------------------------------------------------------------------------
const text = suite('readFeedLines: line endings, batches, line numbers');

text('CRLF line endings are stripped; LF and CRLF may mix', async () => {
  const lines = sampleLines(50);
  const raw = lines.map((l, i) => l + (i % 2 === 0 ? '\r\n' : '\n')).join('');
  for (const suffix of ['.jsonl', '.jsonl.gz', '.jsonl.zst']) {
    const p = await writeFeed(suffix, raw);
    const r = await readAll(p);
    assert.equal(r.lines, lines, suffix);
    for (const l of r.lines) assert.not.ok(l.includes('\r'), 'no CR left');
  }
});

text('no trailing newline: the last line still counts', async () => {
  const lines = sampleLines(10);
  const p = path('.jsonl');
  writeFileSync(p, lines.join('\n'));
  assert.equal((await readAll(p)).lines, lines);
  const g = path('.jsonl.gz');
  writeFileSync(g, gzipSync(Buffer.from(lines.join('\r\n'))));
  assert.equal((await readAll(g)).lines, lines);
  const one = path('.jsonl');
  writeFileSync(one, '{"a":1}');
  assert.equal((await readAll(one)).lines, ['{"a":1}']);
});

text('a trailing newline adds no empty line; an empty file yields nothing', async () => {
  const p = path('.jsonl');
  writeFileSync(p, '{"a":1}\n{"a":2}\n');
  assert.equal((await readAll(p)).lines, ['{"a":1}', '{"a":2}']);
  const e = path('.jsonl');
  writeFileSync(e, '');
  assert.equal((await readAll(e)).batches, []);
  const eg = path('.jsonl.gz');
  writeFileSync(eg, gzipSync(Buffer.alloc(0)));
  assert.equal((await readAll(eg)).batches, []);
});

text('blank lines keep their place in the numbering', async () => {
  const p = path('.jsonl');
  writeFileSync(p, 'a\n\nb\n   \nc\n');
  const r = await readAll(p);
  assert.equal(r.lines, ['a', '', 'b', '   ', 'c']);
  assert.is(r.lines.indexOf('c') + r.batches[0].firstLineNo, 5);
});

text('more lines than one batch: default batch size', async () => {
  const n = 10_000;
  const lines = sampleLines(n);
  const p = path('.jsonl.gz');
  writeFileSync(p, gzipSync(Buffer.from(lines.join('\n') + '\n')));
  const r = await readAll(p);
  assert.equal(r.lines, lines);
  assert.equal(
    r.batches.map((b) => b.firstLineNo),
    [1, 4097, 8193],
  );
  assert.equal(
    r.batches.map((b) => b.lines.length),
    [4096, 4096, n - 8192],
  );
  checkNumbering(r, 4096);
});

text('line numbers with a small batch size: line k is lines[k - firstLineNo]', async () => {
  const lines = sampleLines(103);
  const p = path('.jsonl');
  writeFileSync(p, lines.join('\r\n') + '\r\n');
  const r = await readAll(p, 7);
  checkNumbering(r, 7);
  assert.is(r.batches.length, Math.ceil(103 / 7));
  for (const b of r.batches) {
    b.lines.forEach((l, i) => assert.is(JSON.parse(l).n, b.firstLineNo + i - 1, `line ${b.firstLineNo + i}`));
  }
});

text('multi-byte characters and CRLF split across 1 MiB read chunks', async () => {
  // Lines of 3-byte characters so that 1 MiB chunk boundaries fall inside characters, plus
  // one line placed so that its CR is the last byte of the first chunk.
  const chunk = 1 << 20;
  const lines: string[] = [];
  let bytes = 0;
  const prefix = '{"s":"';
  // fill to chunk - 1 - len(prefix) - 2 bytes with ASCII lines, then one line ending exactly at the boundary with CR
  while (bytes < chunk - 5000) {
    const l = JSON.stringify({ s: '中'.repeat(300), n: lines.length });
    lines.push(l);
    bytes += Buffer.byteLength(l) + 1;
  }
  const remaining = chunk - bytes - 1; // the CR must be byte chunk-1 (0-based)
  const pad = 'x'.repeat(remaining - prefix.length - 2);
  const crLine = `${prefix}${pad}"}`;
  assert.is(bytes + Buffer.byteLength(crLine), chunk - 1);
  const tail = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ s: '京'.repeat(i % 400), n: i }));
  const raw = lines.join('\n') + '\n' + crLine + '\r\n' + tail.join('\n') + '\n';
  const all = [...lines, crLine, ...tail];
  assert.is(Buffer.from(raw)[chunk - 1], 13, 'CR at the end of the first chunk');
  for (const suffix of ['.jsonl', '.jsonl.gz', '.jsonl.zst']) {
    const p = await writeFeed(suffix, raw);
    const r = await readAll(p);
    assert.is(r.lines.length, all.length, suffix);
    assert.ok(
      r.lines.every((l, i) => l === all[i]),
      `${suffix}: every line intact`,
    );
  }
});

text('a missing file is an error', async () => {
  let threw = false;
  try {
    await readAll(join(dir, 'no-such-file.jsonl'));
  } catch {
    threw = true;
  }
  assert.ok(threw);
});

// ---------------------------------------------------------------------------------------------
const writer = suite('FeedWriter: errors');

writer('an unwritable path fails as an error the caller can catch, for every format', async () => {
  for (const name of ['x.jsonl', 'x.jsonl.gz', 'x.jsonl.zst']) {
    let caught: unknown = null;
    try {
      const w = new FeedWriter(join(dir, 'missing-dir', name));
      await w.writeLine('{}');
      await w.close();
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof Error, `${name}: error surfaced`);
    assert.match((caught as Error).message, /ENOENT/);
  }
});

writer('an empty feed is an empty file that reads back as no lines', async () => {
  for (const suffix of ['.jsonl', '.jsonl.gz', '.jsonl.zst']) {
    const p = path(suffix);
    await new FeedWriter(p).close();
    assert.equal((await readAll(p)).lines, [], suffix);
  }
});

kinds.run();
writer.run();
formats.run();
zstd.run();
text.run();
