/**
 * JSON Lines written straight into bytes: the generator's lines without a string per line.
 * Making a line as a string (parts joined, then encoded into a Buffer) cost about half of
 * `generate`'s time in string building, number-to-text and the garbage they leave; here each
 * digit is stored once, into a chunk that goes to the compressor as it is.
 *
 * Numbers are written exactly as JSON.stringify (String(n)) writes them, by
 * shared/jsonNumber.ts (the detailed-history rows use the same writer). Text must be ASCII
 * (feed members and codes are).
 *
 * Full chunks collect in `ready` (taken with `take`), so a caller hands them on between
 * lines of its own choosing; a chunk never splits a line.
 */
import { writeJsonNumber, writePadded } from '../../shared/jsonNumber.js';

export const CHUNK_BYTES = 4 << 20;

export type LineKind = 'level2' | 'index' | 'trade' | 'order';
export const LINE_KINDS: readonly LineKind[] = ['level2', 'index', 'trade', 'order'];
const KIND_PREFIXES = LINE_KINDS.map((k) => `{"kind":"${k}"`);
/** Each kind's first letter as the 10th character of its lines (`{"kind":"l…`): one compare picks the candidate. */
const KIND_AT = LINE_KINDS.map((k) => k.charCodeAt(0));

/** A kind's index in LINE_KINDS by the line's start (every line, a bad one too, begins with its kind), or -1. */
export function kindOfLine(line: string): number {
  const k = KIND_AT.indexOf(line.charCodeAt(9));
  return k >= 0 && line.startsWith(KIND_PREFIXES[k]) ? k : -1;
}

/** The bytes of ASCII text, for fragments written many times. */
export function asciiBytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** A member name as written before its value: `,"name":`. */
export function memberBytes(name: string): Uint8Array {
  return asciiBytes(`,"${name}":`);
}

/** Whole lines as bytes (the buffer is the taker's), with how many lines of each kind (-1 lines in none). */
export interface LineChunk {
  readonly bytes: Buffer;
  readonly lines: number;
  readonly perKind: readonly number[];
}

export class JsonLineBuffer {
  private buf: Buffer;
  private pos = 0;
  /** Lines in the current chunk, and of them per kind (LINE_KINDS order). */
  private lines = 0;
  private perKind = [0, 0, 0, 0];
  private readonly ready: LineChunk[] = [];

  constructor(private readonly chunkBytes = CHUNK_BYTES) {
    this.buf = Buffer.allocUnsafe(chunkBytes);
  }

  /**
   * Makes room for a line of up to `bytes` bytes: a line that would not fit closes the
   * chunk. Call before each line with a bound on its length.
   */
  room(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    this.seal();
    if (bytes > this.buf.length) this.buf = Buffer.allocUnsafe(bytes);
  }

  /** Ends the current line; `kind` is its index in LINE_KINDS (-1: none). */
  endLine(kind: number): void {
    this.buf[this.pos++] = 10;
    this.lines++;
    if (kind >= 0) this.perKind[kind]++;
  }

  /** A whole line given as text (an order, a trade, an injected fault), counted by its start. */
  line(text: string): void {
    this.room(text.length + 1);
    this.ascii(text);
    this.endLine(kindOfLine(text));
  }

  /** Full chunks since the last call, in order; `all` takes the partial one too. */
  take(all = false): LineChunk[] {
    if (all) this.seal();
    return this.ready.splice(0);
  }

  private seal(): void {
    if (this.pos === 0) return;
    this.ready.push({ bytes: this.buf.subarray(0, this.pos), lines: this.lines, perKind: this.perKind });
    this.buf = Buffer.allocUnsafe(this.chunkBytes);
    this.pos = 0;
    this.lines = 0;
    this.perKind = [0, 0, 0, 0];
  }

  bytes(b: Uint8Array): void {
    const buf = this.buf;
    const p = this.pos;
    // Fragments are short: a loop beats TypedArray.set's call overhead below ~64 bytes.
    if (b.length > 64) buf.set(b, p);
    else for (let i = 0; i < b.length; i++) buf[p + i] = b[i];
    this.pos = p + b.length;
  }

  /** A member: its name as `,"name":` bytes, then its number value. */
  member(name: Uint8Array, value: number | null): void {
    this.bytes(name);
    this.num(value);
  }

  /** ASCII text (the caller's promise; anything else would be mangled). */
  ascii(text: string): void {
    const buf = this.buf;
    const p = this.pos;
    if (text.length > 64) {
      this.pos = p + buf.write(text, p, 'latin1');
      return;
    }
    for (let i = 0; i < text.length; i++) buf[p + i] = text.charCodeAt(i);
    this.pos = p + text.length;
  }

  /** A JSON string of ASCII text without characters to escape: `"text"`. */
  quoted(text: string): void {
    this.buf[this.pos++] = 34;
    this.ascii(text);
    this.buf[this.pos++] = 34;
  }

  /** A number or null exactly as JSON.stringify writes it (shared/jsonNumber.ts). */
  num(n: number | null): void {
    this.pos = writeJsonNumber(this.buf, this.pos, n);
  }

  /** `digits` digits of n (0 ≤ n < 10^digits), zero-padded: the parts of a time. */
  padded(n: number, digits: number): void {
    this.pos = writePadded(this.buf, this.pos, n, digits);
  }

  /** A level-2 time `HHMMSSmmm` from milliseconds since midnight (formatLevel2Time's form). */
  level2Time(ms: number): void {
    const s = (ms / 1000) | 0;
    this.padded((s / 3600) | 0, 2);
    this.padded(((s / 60) | 0) % 60, 2);
    this.padded(s % 60, 2);
    this.padded(ms - s * 1000, 3);
  }

  /** A date YYYYMMDD as `YYYY-MM-DD` (an index time's first part). */
  dashedDate(date: string): void {
    const buf = this.buf;
    const p = this.pos;
    for (let i = 0; i < 4; i++) buf[p + i] = date.charCodeAt(i);
    buf[p + 4] = 45;
    buf[p + 5] = date.charCodeAt(4);
    buf[p + 6] = date.charCodeAt(5);
    buf[p + 7] = 45;
    buf[p + 8] = date.charCodeAt(6);
    buf[p + 9] = date.charCodeAt(7);
    this.pos = p + 10;
  }

  /** An index time's `HH:mm:ss.SSS` part (formatIndexTime's form after the date). */
  clockTime(ms: number): void {
    const s = (ms / 1000) | 0;
    const buf = this.buf;
    this.padded((s / 3600) | 0, 2);
    buf[this.pos++] = 58;
    this.padded(((s / 60) | 0) % 60, 2);
    buf[this.pos++] = 58;
    this.padded(s % 60, 2);
    buf[this.pos++] = 46;
    this.padded(ms - s * 1000, 3);
  }
}
