/**
 * gzip answers spliced from stored row-text chunks (serve/http/gzipSplice.ts): one gzip member
 * whose single DEFLATE stream inflates to the pieces' concatenation, whatever the order of
 * stored chunks and pieces deflated at request time; its trailer's CRC-32 and length are the
 * text's (gunzip checks both).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { constants, crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import { crc32Combine, gzipSpliced, hasStoredChunks } from '../../../serve/http/gzipSplice.js';
import type { JsonPiece } from '../../../serve/http/jsonPieces.js';
import { deflateChunk } from '../../../storage/rowText/rowTextFile.js';
import { serializeRows, sliceRows, type SerializedRows, type StoredRowText } from '../../../storage/rowText/rowJson.js';

const test = suite('serve/http gzip splice');

let seed = 7;
const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

/** Rows with their stored chunk, as row text gives them. */
async function storedRows(n: number): Promise<SerializedRows> {
  const cols = [{ kind: 'number' as const, values: Float64Array.from({ length: n }, () => Math.round(rnd() * 1e6) / 100) }];
  const rows = serializeRows(cols, 0, n);
  return { ...rows, deflated: { chunk: await deflateChunk(rows.bytes), textCrc32: crc32(rows.bytes) } };
}

/** A row group's rows as a stored piece (rows.ts gives such pieces for groups a page holds whole). */
function stored(rows: SerializedRows, onText: () => void = () => undefined): StoredRowText {
  return {
    chunk: rows.deflated!.chunk,
    textBytes: rows.bytes.length,
    textCrc32: rows.deflated!.textCrc32,
    text: async () => {
      onText();
      return rows.bytes;
    },
  };
}

const textOf = (p: JsonPiece): Buffer => (Buffer.isBuffer(p) ? p : inflateRawSync(p.chunk, { finishFlush: constants.Z_SYNC_FLUSH }));

test("stored chunks and request-time pieces in any order: one member, the pieces' text, CRC and length checked", async () => {
  const a = await storedRows(1200);
  const b = await storedRows(700);
  const c = await storedRows(3);
  const head = Buffer.from('{"code":200,"message":"success","data":{"items":[');
  const tail = Buffer.from(']}}');
  const comma = Buffer.from(',');
  const layouts: JsonPiece[][] = [
    [head, stored(a), comma, stored(b), tail],
    [stored(a), stored(b)],
    [head, sliceRows(a, 17, 1200), comma, stored(b), comma, sliceRows(c, 0, 2), tail],
    [head, Buffer.alloc(0), stored(c), Buffer.alloc(0), tail],
    [stored(a)],
  ];
  for (const [i, pieces] of layouts.entries()) {
    assert.ok(hasStoredChunks(pieces), `layout ${i}`);
    const text = Buffer.concat(pieces.map(textOf));
    const gz = await gzipSpliced(pieces);
    assert.ok(gunzipSync(gz).equals(text), `layout ${i}: gunzip`);
    // One member: the whole DEFLATE stream between header and trailer ends in its final block.
    assert.ok(inflateRawSync(gz.subarray(10, gz.length - 8)).equals(text), `layout ${i}: one DEFLATE stream`);
    assert.is(gz.readUInt32LE(gz.length - 8), crc32(text), `layout ${i}: CRC-32`);
    assert.is(gz.readUInt32LE(gz.length - 4), text.length, `layout ${i}: ISIZE`);
  }
  // Part of a row group is text, deflated at request time.
  assert.not.ok(hasStoredChunks([head, sliceRows(a, 0, 1199), tail]));
});

test("rows still stored (never inflated) splice by their text's CRC-32 and length alone", async () => {
  const asked: string[] = [];
  const a = await storedRows(1200);
  const b = await storedRows(1200);
  const head = Buffer.from('{"items":[');
  const pieces: JsonPiece[] = [
    head,
    stored(a, () => asked.push('a')),
    Buffer.from(','),
    stored(b, () => asked.push('b')),
    Buffer.from(','),
    sliceRows(b, 3, 9),
    Buffer.from(']}'),
  ];
  const text = Buffer.concat([head, a.bytes, Buffer.from(','), b.bytes, Buffer.from(','), sliceRows(b, 3, 9), Buffer.from(']}')]);
  const gz = await gzipSpliced(pieces);
  assert.ok(gunzipSync(gz).equals(text));
  assert.ok(inflateRawSync(gz.subarray(10, gz.length - 8)).equals(text), 'one DEFLATE stream');
  assert.equal(asked, [], 'no stored rows were inflated');
});

test('crc32Combine: the CRC-32 of a concatenation, as zlib computes it over the whole', () => {
  for (const [la, lb] of [
    [0, 0],
    [0, 5],
    [5, 0],
    [1, 1],
    [17, 1000],
    [4096, 65_537],
    [1, 1_000_003],
  ]) {
    const a = Buffer.from(Array.from({ length: la }, () => Math.floor(rnd() * 256)));
    const b = Buffer.from(Array.from({ length: lb }, () => Math.floor(rnd() * 256)));
    assert.is(crc32Combine(crc32(a), crc32(b), b.length), crc32(Buffer.concat([a, b])), `${la} + ${lb} bytes`);
  }
});

test.run();
