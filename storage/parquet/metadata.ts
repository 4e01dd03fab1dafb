/**
 * Parquet's metadata structs, both directions, over the one Thrift module: the writer's page
 * headers and footer (FileMetaData) and the fast reader's view of a footer (schema, row groups
 * and where each column chunk lies). Field ids follow apache/parquet-format's parquet.thrift;
 * only the fields this project writes or needs are modelled.
 */
import type { ByteSource } from './byteSource.js';
import { Codec, CONVERTED_UTF8, Encoding, PageType, PARQUET_MAGIC, PhysicalType, Repetition, UnsupportedParquetError } from './format.js';
import { CompactReader, CompactWriter, CType, list, num, struct } from './thrift.js';

const utf8 = new TextDecoder('utf-8');

// ---- written by the sealer ----------------------------------------------------------------

export interface Statistics {
  nullCount: number;
  /** PLAIN-encoded bounds; absent when the chunk holds only nulls. */
  min?: Uint8Array;
  max?: Uint8Array;
}

function writeStatistics(w: CompactWriter, id: number, s: Statistics): void {
  w.structBegin(id);
  w.i64(3, s.nullCount);
  if (s.max && s.min) {
    w.binary(5, s.max);
    w.binary(6, s.min);
    w.bool(7, true);
    w.bool(8, true);
  }
  w.structEnd();
}

export interface PageHeaderSpec {
  kind: 'data' | 'dictionary';
  uncompressedSize: number;
  compressedSize: number;
  numValues: number;
  encoding: Encoding;
}

/** Serialised PageHeader for a v1 data page or a dictionary page. */
export function pageHeader(p: PageHeaderSpec): Uint8Array {
  const w = new CompactWriter();
  w.i32(1, p.kind === 'data' ? PageType.DATA_PAGE : PageType.DICTIONARY_PAGE);
  w.i32(2, p.uncompressedSize);
  w.i32(3, p.compressedSize);
  if (p.kind === 'data') {
    w.structBegin(5);
    w.i32(1, p.numValues);
    w.i32(2, p.encoding);
    w.i32(3, Encoding.RLE);
    w.i32(4, Encoding.RLE);
    w.structEnd();
  } else {
    w.structBegin(7);
    w.i32(1, p.numValues);
    w.i32(2, p.encoding);
    w.structEnd();
  }
  w.structEnd();
  return w.bytes();
}

export interface SchemaLeaf {
  name: string;
  type: PhysicalType;
  repetition: Repetition;
  /** BYTE_ARRAY annotated as STRING (logical) / UTF8 (converted). */
  utf8: boolean;
}

export interface ColumnChunkMeta {
  type: PhysicalType;
  encodings: readonly Encoding[];
  path: string;
  numValues: number;
  totalUncompressedSize: number;
  totalCompressedSize: number;
  dataPageOffset: number;
  dictionaryPageOffset?: number;
  statistics: Statistics;
}

export interface RowGroupMeta {
  columns: ColumnChunkMeta[];
  numRows: number;
  fileOffset: number;
  /** Index of the column the rows are sorted by (ascending), if any. */
  sortedBy?: number;
}

export interface FileMeta {
  schema: readonly SchemaLeaf[];
  numRows: number;
  rowGroups: readonly RowGroupMeta[];
  createdBy: string;
  /** Key-value metadata (a restated file's version); none written when empty. */
  keyValues?: readonly (readonly [string, string])[];
}

/** Serialised FileMetaData (the footer, without its length and magic). */
export function fileMetaData(m: FileMeta): Uint8Array {
  const w = new CompactWriter();
  w.i32(1, 1);

  w.listBegin(2, CType.STRUCT, m.schema.length + 1);
  w.enterStruct();
  w.string(4, 'schema');
  w.i32(5, m.schema.length);
  w.structEnd();
  for (const leaf of m.schema) {
    w.enterStruct();
    w.i32(1, leaf.type);
    w.i32(3, leaf.repetition);
    w.string(4, leaf.name);
    if (leaf.utf8) {
      w.i32(6, CONVERTED_UTF8);
      w.structBegin(10); // LogicalType union
      w.structBegin(1); // STRING
      w.structEnd();
      w.structEnd();
    }
    w.structEnd();
  }

  w.i64(3, m.numRows);

  w.listBegin(4, CType.STRUCT, m.rowGroups.length);
  m.rowGroups.forEach((rg, ordinal) => {
    let uncompressed = 0;
    let compressed = 0;
    w.enterStruct();
    w.listBegin(1, CType.STRUCT, rg.columns.length);
    for (const c of rg.columns) {
      uncompressed += c.totalUncompressedSize;
      compressed += c.totalCompressedSize;
      w.enterStruct();
      w.i64(2, c.dictionaryPageOffset ?? c.dataPageOffset);
      w.structBegin(3);
      w.i32(1, c.type);
      w.listBegin(2, CType.I32, c.encodings.length);
      for (const e of c.encodings) w.i32Elem(e);
      w.listBegin(3, CType.BINARY, 1);
      w.stringElem(c.path);
      w.i32(4, Codec.ZSTD);
      w.i64(5, c.numValues);
      w.i64(6, c.totalUncompressedSize);
      w.i64(7, c.totalCompressedSize);
      w.i64(9, c.dataPageOffset);
      if (c.dictionaryPageOffset !== undefined) w.i64(11, c.dictionaryPageOffset);
      writeStatistics(w, 12, c.statistics);
      w.structEnd();
      w.structEnd();
    }
    w.i64(2, uncompressed);
    w.i64(3, rg.numRows);
    if (rg.sortedBy !== undefined) {
      w.listBegin(4, CType.STRUCT, 1);
      w.enterStruct();
      w.i32(1, rg.sortedBy);
      w.bool(2, false);
      w.bool(3, false);
      w.structEnd();
    }
    w.i64(5, rg.fileOffset);
    w.i64(6, compressed);
    if (ordinal <= 0x7fff) w.i16(7, ordinal);
    w.structEnd();
  });

  if (m.keyValues !== undefined && m.keyValues.length > 0) {
    w.listBegin(5, CType.STRUCT, m.keyValues.length);
    for (const [key, value] of m.keyValues) {
      w.enterStruct();
      w.string(1, key);
      w.string(2, value);
      w.structEnd();
    }
  }

  w.string(6, m.createdBy);

  // TYPE_ORDER for every leaf, so readers trust min_value/max_value of the string columns.
  w.listBegin(7, CType.STRUCT, m.schema.length);
  for (let i = 0; i < m.schema.length; i++) {
    w.enterStruct();
    w.structBegin(1);
    w.structEnd();
    w.structEnd();
  }

  w.structEnd();
  return w.bytes();
}

// ---- read by the fast reader --------------------------------------------------------------

export interface ColumnDesc {
  readonly name: string;
  readonly physicalType: number;
  readonly optional: boolean;
}

export interface ChunkDesc {
  /** First byte of the chunk (dictionary page if any, else first data page). */
  readonly start: number;
  readonly length: number;
  readonly codec: number;
  readonly numValues: number;
}

export interface RowGroupDesc {
  readonly numRows: number;
  /** Row position of the group's first row in the file. */
  readonly firstRow: number;
  /** Byte span of all its column chunks. */
  readonly start: number;
  readonly end: number;
  readonly chunks: readonly ChunkDesc[];
}

export interface ParquetFooter {
  readonly numRows: number;
  readonly columns: readonly ColumnDesc[];
  readonly rowGroups: readonly RowGroupDesc[];
}

export function parseFooter(meta: Uint8Array): ParquetFooter {
  const fmd = new CompactReader(meta).struct();
  const schema = list(fmd[2], 'schema').map((s) => struct(s, 'schema element'));
  const root = schema[0];
  const nChildren = num(root?.[5], 'schema root num_children');
  if (schema.length !== nChildren + 1) throw new UnsupportedParquetError('nested schemas are not supported');
  const columns: ColumnDesc[] = schema.slice(1).map((s) => {
    if (s[5] !== undefined) throw new UnsupportedParquetError('nested schemas are not supported');
    const rep = num(s[3], 'repetition');
    if (rep === Repetition.REPEATED) throw new UnsupportedParquetError('repeated columns are not supported');
    const name = s[4];
    if (!(name instanceof Uint8Array)) throw new UnsupportedParquetError('column without a name');
    return { name: utf8.decode(name), physicalType: num(s[1], 'physical type'), optional: rep === Repetition.OPTIONAL };
  });
  let firstRow = 0;
  const rowGroups: RowGroupDesc[] = list(fmd[4], 'row groups').map((rgv) => {
    const rg = struct(rgv, 'row group');
    const numRows = num(rg[3], 'row group num_rows');
    const chunks: ChunkDesc[] = list(rg[1], 'column chunks').map((ccv) => {
      const cc = struct(ccv, 'column chunk');
      if (cc[1] !== undefined) throw new UnsupportedParquetError('column chunks in other files are not supported');
      const md = struct(cc[3], 'column metadata');
      const dataOffset = num(md[9], 'data_page_offset');
      const dictOffset = md[11] === undefined ? undefined : num(md[11], 'dictionary_page_offset');
      return {
        start: dictOffset !== undefined && dictOffset > 0 && dictOffset < dataOffset ? dictOffset : dataOffset,
        length: num(md[7], 'total_compressed_size'),
        codec: num(md[4], 'codec'),
        numValues: num(md[5], 'num_values'),
      };
    });
    if (chunks.length !== columns.length) throw new UnsupportedParquetError('row group column count differs from the schema');
    const start = Math.min(...chunks.map((c) => c.start));
    const end = Math.max(...chunks.map((c) => c.start + c.length));
    const desc: RowGroupDesc = { numRows, firstRow, start, end, chunks };
    firstRow += numRows;
    return desc;
  });
  return { numRows: num(fmd[3], 'num_rows'), columns, rowGroups };
}

/** Reads and parses the footer of an open file. */
export async function readFooter(fh: ByteSource, fileBytes: number): Promise<ParquetFooter> {
  if (fileBytes < 12) throw new UnsupportedParquetError('file too short for Parquet');
  const tail = Buffer.allocUnsafe(8);
  await fh.read(tail, 0, 8, fileBytes - 8);
  if (tail.toString('latin1', 4, 8) !== PARQUET_MAGIC) throw new UnsupportedParquetError('not a Parquet file');
  const metaLen = tail.readUInt32LE(0);
  if (metaLen + 12 > fileBytes) throw new UnsupportedParquetError('footer length exceeds the file');
  const meta = Buffer.allocUnsafe(metaLen);
  await fh.read(meta, 0, metaLen, fileBytes - 8 - metaLen);
  return parseFooter(meta);
}
