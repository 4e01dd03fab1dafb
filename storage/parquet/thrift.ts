/**
 * The Thrift compact protocol, both directions, for Parquet's metadata structs (page headers
 * and the footer): a writer that emits fields by id and a reader of generic values (structs
 * as objects keyed by field id). What the structs mean lives in metadata.ts; this module only
 * knows the wire format, so the writer and the readers cannot drift apart on it.
 */
import { UnsupportedParquetError } from './format.js';

// ---- writing ----------------------------------------------------------------------------

export const enum CType {
  BOOL_TRUE = 1,
  BOOL_FALSE = 2,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  BINARY = 8,
  LIST = 9,
  STRUCT = 12,
}

const utf8 = new TextEncoder();

/** Growable byte buffer speaking the compact protocol; nested structs keep their own field-id deltas. */
export class CompactWriter {
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

// ---- reading ----------------------------------------------------------------------------

export type TValue = number | boolean | Uint8Array | TValue[] | TStruct;
export interface TStruct {
  [fieldId: number]: TValue;
}

export class CompactReader {
  pos: number;
  constructor(
    private readonly buf: Uint8Array,
    start = 0,
  ) {
    this.pos = start;
  }

  private varint(): number {
    let result = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new UnsupportedParquetError('truncated thrift varint');
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
  }

  private zigzag(): number {
    const n = this.varint();
    // Arithmetic rather than bit operations: i64 offsets may exceed 32 bits.
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  private value(type: number): TValue {
    switch (type) {
      case 1:
        return true;
      case 2:
        return false;
      case 3: {
        const b = this.buf[this.pos++];
        return b > 127 ? b - 256 : b;
      }
      case 4:
      case 5:
      case 6:
        return this.zigzag();
      case 7: {
        const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
        this.pos += 8;
        return v;
      }
      case 8: {
        const len = this.varint();
        const v = this.buf.subarray(this.pos, this.pos + len);
        this.pos += len;
        return v;
      }
      case 9:
      case 10:
        return this.list();
      case 11:
        return this.map();
      case 12:
        return this.struct();
      default:
        throw new UnsupportedParquetError(`unknown thrift type ${type}`);
    }
  }

  private list(): TValue[] {
    const header = this.buf[this.pos++];
    let size = header >> 4;
    const elem = header & 0x0f;
    if (size === 15) size = this.varint();
    const out: TValue[] = new Array(size);
    for (let i = 0; i < size; i++) {
      // In lists a bool is a whole byte, not folded into a type nibble.
      out[i] = elem === 1 || elem === 2 ? this.buf[this.pos++] === 1 : this.value(elem);
    }
    return out;
  }

  private map(): TValue[] {
    const size = this.varint();
    if (size === 0) return [];
    const types = this.buf[this.pos++];
    const out: TValue[] = [];
    for (let i = 0; i < size; i++) out.push([this.value(types >> 4), this.value(types & 0x0f)]);
    return out;
  }

  struct(): TStruct {
    const out: TStruct = {};
    let lastId = 0;
    for (;;) {
      const header = this.buf[this.pos++];
      if (header === undefined) throw new UnsupportedParquetError('truncated thrift struct');
      if (header === 0) return out;
      const delta = header >> 4;
      const type = header & 0x0f;
      const id = delta === 0 ? this.zigzag() : lastId + delta;
      lastId = id;
      out[id] = this.value(type);
    }
  }
}

export const num = (v: TValue | undefined, what: string): number => {
  if (typeof v !== 'number') throw new UnsupportedParquetError(`missing ${what}`);
  return v;
};
export const struct = (v: TValue | undefined, what: string): TStruct => {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Uint8Array) {
    throw new UnsupportedParquetError(`missing ${what}`);
  }
  return v as TStruct;
};
export const list = (v: TValue | undefined, what: string): TValue[] => {
  if (!Array.isArray(v)) throw new UnsupportedParquetError(`missing ${what}`);
  return v;
};
