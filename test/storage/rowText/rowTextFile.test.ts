/**
 * Row text (storage/rowText/): what the seal writes beside each level-2, trade and order file
 * reads back, row group by row group, as the rows DuckDB reads from the Parquet file (the
 * independent reader), bound to the file's SHA-256; and every kind of damage to it is caught
 * (CRC-32, lengths, a truncation, a foreign trailer) rather than read as rows.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { constants, crc32, deflateRawSync, gunzipSync, inflateRawSync } from 'node:zlib';
import { gzipSpliced } from '../../../serve/http/gzipSplice.js';
import type { JsonPiece } from '../../../serve/http/jsonPieces.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { rowTextRelPath } from '../../../storage/layout.js';
import {
  decodeRowTextGroup,
  decodeRowTextIndex,
  decodeWholeRowTextIndex,
  indexFrameRange,
  encodeRowText,
  RowTextDamagedError,
  ROW_TEXT_TRAILER_BYTES,
  rowTextWindowBits,
  type RowTextIndex,
} from '../../../storage/rowText/rowTextFile.js';
import { serializeRows, type SerializedRows } from '../../../storage/rowText/rowJson.js';
import { rowTextOf } from '../../../storage/rowText/rowTextBuild.js';
import { duckRows, sqlString } from '../../support/duckdb.js';
import { preparedFiles } from '../../support/server.js';

const test = suite('storage/rowText');

const lake = () => preparedFiles({ ticks: 1 });

const parse = decodeWholeRowTextIndex;

async function allText(buf: Buffer, index: RowTextIndex): Promise<string> {
  const parts: string[] = [];
  for (const g of index.groups) {
    const rows = await decodeRowTextGroup(g, buf.subarray(g.frameOffset, g.frameOffset + g.frameBytes));
    // Every row offset points at a row's '['; the last is past the text, as if a comma followed.
    for (let r = 0; r < g.rows; r++) assert.is(rows.bytes[rows.offsets[r]!], 0x5b);
    parts.push(rows.bytes.toString('utf8'));
  }
  return parts.join(',');
}

/** A DuckDB value as our JSON writes it: int64 as a number, everything else as it is. */
function plain(v: unknown): unknown {
  return typeof v === 'bigint' ? Number(v) : (v ?? null);
}

test("a replay kept row text for every level-2 file, none for trades, orders and indexes: DuckDB's rows, bound to the file", async () => {
  const { dataDir, files } = await lake();
  const counts: Record<string, number> = {};
  for (const file of files) {
    const path = join(dataDir, rowTextRelPath(file.path));
    if (file.dataset !== 'level2') {
      assert.not.ok(existsSync(path), `${path}: no row text for a ${file.dataset} file (level 2 only, issue 52)`);
      counts[file.dataset] = (counts[file.dataset] ?? 0) + 1;
      continue;
    }
    const buf = readFileSync(path);
    const index = await parse(buf);
    assert.is(index.parquetSha256, file.sha256, file.path);
    assert.is(index.groups.length, Math.ceil(file.rows / file.rowGroupSize), file.path);
    const want = await duckRows(`SELECT * FROM read_parquet(${sqlString(join(dataDir, file.path))}, hive_partitioning = false)`);
    const names = SCHEMAS[file.dataset].fieldNames;
    const expected = JSON.stringify(want.map((r) => names.map((n) => plain(r[n]))));
    assert.is(`[${await allText(buf, index)}]`, expected, file.path);
    counts[file.dataset] = (counts[file.dataset] ?? 0) + 1;
  }
  assert.ok((counts.level2 ?? 0) >= 10 && (counts.trade ?? 0) >= 1 && (counts.order ?? 0) >= 1 && (counts.index ?? 0) >= 1, JSON.stringify(counts));
});

test('made again from the Parquet bytes (doctor --rebuild), row text is byte-identical to what the replay kept', async () => {
  const { dataDir, files } = await lake();
  const some = files.filter((f) => f.dataset === 'level2').slice(0, 9);
  assert.is(some.length, 9);
  for (const file of some) {
    const again = await rowTextOf(readFileSync(join(dataDir, file.path)), file.dataset, file.sha256, file.path);
    assert.ok(again.equals(readFileSync(join(dataDir, rowTextRelPath(file.path)))), file.path);
  }
});

test("row text made with its dataset's window (4 KiB for trades and orders) splices into gzip answers beside text deflated now", async () => {
  const { dataDir, files } = await lake();
  for (const dataset of ['level2', 'trade', 'order'] as const) {
    const file = files.find((f) => f.dataset === dataset)!;
    const buf = await rowTextOf(readFileSync(join(dataDir, file.path)), dataset, file.sha256, file.path);
    const index = await parse(buf);
    const pieces: JsonPiece[] = [Buffer.from('{"items":[' + 'x'.repeat(5000))];
    const texts: Buffer[] = [pieces[0] as Buffer];
    for (const g of index.groups) {
      const rows = await decodeRowTextGroup(g, buf.subarray(g.frameOffset, g.frameOffset + g.frameBytes));
      pieces.push(
        { chunk: rows.deflated!.chunk, textBytes: rows.bytes.length, textCrc32: rows.deflated!.textCrc32, text: async () => rows.bytes },
        Buffer.from(','),
      );
      texts.push(rows.bytes, Buffer.from(','));
    }
    assert.ok(gunzipSync(await gzipSpliced(pieces)).equals(Buffer.concat(texts)), dataset);
  }
  assert.is(rowTextWindowBits('trade'), 12);
});

/** A row text as written before row lengths: the index holds every group's rows+1 u32 offsets. */
async function legacyRowText(groups: readonly SerializedRows[], sha: string): Promise<Buffer> {
  const frames = groups.map((g) => deflateRawSync(g.bytes, { level: 1, finishFlush: constants.Z_SYNC_FLUSH }));
  const entries = groups.flatMap((g, i) => [
    frames.slice(0, i).reduce((a, f) => a + f.length, 0),
    frames[i]!.length,
    crc32(frames[i]!),
    g.bytes.length,
    g.offsets.length - 1,
    crc32(g.bytes),
  ]);
  const index = Buffer.concat([
    Buffer.from(Uint32Array.from([groups.length]).buffer),
    Buffer.from(sha, 'hex'),
    Buffer.from(Uint32Array.from(entries).buffer),
    ...groups.map((g) => Buffer.from(g.offsets.buffer, g.offsets.byteOffset, g.offsets.byteLength)),
  ]);
  const frame = deflateRawSync(index);
  const trailer = Buffer.alloc(ROW_TEXT_TRAILER_BYTES);
  trailer.writeUInt32LE(frame.length, 0);
  trailer.writeUInt32LE(crc32(frame), 4);
  trailer.write('TVRT', 8, 'latin1');
  return Buffer.concat([...frames, frame, trailer]);
}

test('rows stored as their lengths read back as the offsets they were; row text written with u32 offsets still reads', async () => {
  const strs = Array.from({ length: 300 }, (_, i) => 'x'.repeat(i % 7 === 0 ? 200 + i * 40 : i % 13)); // rows of 3 to ~12,000 bytes
  const cols = [{ kind: 'string' as const, values: strs }];
  const groups = [serializeRows(cols, 0, 128), serializeRows(cols, 128, 129), serializeRows(cols, 129, 300)];
  const sha = 'cd'.repeat(32);
  for (const [what, buf] of [
    ['row lengths', await encodeRowText(groups, sha)],
    ['u32 offsets', await legacyRowText(groups, sha)],
  ] as const) {
    const index = await parse(buf);
    assert.is(index.parquetSha256, sha, what);
    index.groups.forEach((g, i) => assert.equal([...g.offsets], [...groups[i]!.offsets], `${what}: group ${i}`));
    assert.is(await allText(buf, index), groups.map((g) => g.bytes.toString()).join(','), what);
  }
});

test('an index whose row lengths run past it, or stop short of it, is damage', async () => {
  const groups = [serializeRows([{ kind: 'number' as const, values: Float64Array.from([1, 22, 333]) }], 0, 3)];
  const good = await encodeRowText(groups, 'ef'.repeat(32));
  const range = indexFrameRange(good.subarray(good.length - ROW_TEXT_TRAILER_BYTES), good.length);
  const index = inflateRawSync(good.subarray(range.offset, range.offset + range.bytes));
  const reframed = (bytes: Buffer) => {
    const frame = deflateRawSync(bytes);
    return decodeRowTextIndex(frame, crc32(frame), range.offset);
  };
  assert.equal([...(await reframed(index)).groups[0]!.offsets], [...groups[0]!.offsets]);
  const cases: [string, Buffer][] = [
    ['a row length cut off', index.subarray(0, index.length - 1)],
    ['a varint that never ends', Buffer.concat([index.subarray(0, index.length - 1), Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff])])],
    ['a byte past the last group', Buffer.concat([index, Buffer.from([1])])],
    ['a row count no index could hold', Buffer.concat([index.subarray(0, 36 + 16), Buffer.from([0xff, 0xff, 0xff, 0x0f]), index.subarray(36 + 20)])],
  ];
  for (const [what, bytes] of cases) {
    try {
      await reframed(bytes);
    } catch (e) {
      assert.instance(e, RowTextDamagedError, `${what}: ${String(e)}`);
      continue;
    }
    assert.unreachable(`${what}: read as an index`);
  }
});

test("damage is caught, never read as rows: a flipped byte in a frame or the index, a truncation, another file's bytes", async () => {
  const cols = [{ kind: 'number' as const, values: Float64Array.from({ length: 50 }, (_, i) => i * 1.25) }];
  const groups = [serializeRows(cols, 0, 20), serializeRows(cols, 20, 40), serializeRows(cols, 40, 50)];
  const sha = 'ab'.repeat(32);
  const good = await encodeRowText(groups, sha);
  const index = await parse(good);
  assert.is(index.parquetSha256, sha);
  assert.equal(
    index.groups.map((g) => g.rows),
    [20, 20, 10],
  );
  assert.is(await allText(good, index), groups.map((g) => g.bytes.toString()).join(','));

  const damaged = async (buf: Buffer, what: string) => {
    try {
      const ix = await parse(buf);
      await allText(buf, ix);
    } catch (e) {
      assert.instance(e, RowTextDamagedError, `${what}: ${String(e)}`);
      return;
    }
    assert.unreachable(`${what}: read as rows`);
  };
  for (const at of [3, index.groups[1]!.frameOffset + 5, good.length - ROW_TEXT_TRAILER_BYTES - 4, good.length - 2]) {
    const b = Buffer.from(good);
    b[at] ^= 0x10;
    await damaged(b, `byte ${at} flipped`);
  }
  await damaged(good.subarray(0, good.length - 100), 'truncated');
  await damaged(good.subarray(50), 'head cut off');
  await damaged(Buffer.from('PAR1 not a row text at all, but long enough to have a trailer'), 'another file');
});

test.run();
