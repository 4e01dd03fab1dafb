/**
 * Thrift compact-protocol serialisation of the few Parquet metadata structs the seal writer
 * emits (PageHeader, FileMetaData). Field ids follow apache/parquet-format's parquet.thrift;
 * only the fields this writer needs are modelled.
 */

/** Parquet physical types (parquet.thrift `Type`). */
export const enum PhysicalType {
  INT64 = 2,
  DOUBLE = 5,
  BYTE_ARRAY = 6,
}

/** Parquet `Encoding`. */
export const enum Encoding {
  PLAIN = 0,
  RLE = 3,
  RLE_DICTIONARY = 8,
}

export const enum Repetition {
  REQUIRED = 0,
  OPTIONAL = 1,
}

export const CODEC_ZSTD = 6;

const enum PageType {
  DATA_PAGE = 0,
  DICTIONARY_PAGE = 2,
}

const enum CType {
  BOOL_TRUE = 1,
  BOOL_FALSE = 2,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  BINARY = 8,
  LIST = 9,
  STRUCT = 12,
}

const CONVERTED_UTF8 = 0;
const utf8 = new TextEncoder();

/** Growable byte buffer speaking the compact protocol; nested structs keep their own field-id deltas. */
class CompactWriter {
  private buf = new Uint8Array(256);
  private pos = 0;
  private lastId = 0;
  private readonly idStack: number[] = [];

  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** Unsigned varint of a non-negative safe integer (file offsets can exceed 2^31). */
  private varint(n: number): void {
    this.ensure(10);
    while (n >= 0x80) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  private zigzag(n: number): void {
    this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  private fieldHeader(id: number, type: CType): void {
    const delta = id - this.lastId;
    if (delta > 0 && delta <= 15) this.byte((delta << 4) | type);
    else {
      this.byte(type);
      this.zigzag(id);
    }
    this.lastId = id;
  }

  i32(id: number, v: number): void {
    this.fieldHeader(id, CType.I32);
    this.zigzag(v);
  }

  i16(id: number, v: number): void {
    this.fieldHeader(id, CType.I16);
    this.zigzag(v);
  }

  i64(id: number, v: number): void {
    this.fieldHeader(id, CType.I64);
    this.zigzag(v);
  }

  bool(id: number, v: boolean): void {
    this.fieldHeader(id, v ? CType.BOOL_TRUE : CType.BOOL_FALSE);
  }

  binary(id: number, v: Uint8Array): void {
    this.fieldHeader(id, CType.BINARY);
    this.rawBinary(v);
  }

  string(id: number, v: string): void {
    this.binary(id, utf8.encode(v));
  }

  private rawBinary(v: Uint8Array): void {
    this.varint(v.length);
    this.ensure(v.length);
    this.buf.set(v, this.pos);
    this.pos += v.length;
  }

  structBegin(id: number): void {
    this.fieldHeader(id, CType.STRUCT);
    this.enterStruct();
  }

  /** Begins a struct that is a list element (no field header). */
  enterStruct(): void {
    this.idStack.push(this.lastId);
    this.lastId = 0;
  }

  structEnd(): void {
    this.byte(0);
    this.lastId = this.idStack.pop() ?? 0;
  }

  listBegin(id: number, elem: CType, size: number): void {
    this.fieldHeader(id, CType.LIST);
    if (size < 15) this.byte((size << 4) | elem);
    else {
      this.byte(0xf0 | elem);
      this.varint(size);
    }
  }

  i32Elem(v: number): void {
    this.zigzag(v);
  }

  stringElem(v: string): void {
    this.rawBinary(utf8.encode(v));
  }
}

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
      w.i32(4, CODEC_ZSTD);
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
