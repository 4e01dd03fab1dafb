/**
 * JSON text written straight into bytes. A full-day level2 page is ~250,000 numbers; V8's
 * double-to-string plus string concatenation and the final UTF-8 encode cost several times
 * what writing digits into a Buffer does. The output is byte-for-byte what JSON.stringify
 * gives (the tests check this on the data and on random and edge-case doubles); numbers are
 * written by shared/jsonNumber.ts, as the feed generator's are.
 */
import { JSON_NUMBER_MAX_BYTES, writeJsonNumber } from '../../shared/jsonNumber.js';

export class JsonBytesWriter {
  buf: Buffer;
  pos = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** Text already known to be valid JSON (punctuation, literals, pre-quoted strings). */
  raw(text: string): void {
    this.ensure(text.length * 3);
    this.pos += this.buf.write(text, this.pos, 'utf8');
  }

  /** A JSON string value. Plain printable ASCII is copied; anything else goes via JSON.stringify. */
  string(s: string): void {
    const n = s.length;
    this.ensure(n + 2);
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 34;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === 34 || c === 92) {
        this.raw(JSON.stringify(s));
        return;
      }
      buf[p++] = c;
    }
    buf[p++] = 34;
    this.pos = p;
  }

  /** A number as JSON.stringify writes it (NaN = null: the decoder's null marker; shared/jsonNumber.ts). */
  number(v: number): void {
    this.ensure(JSON_NUMBER_MAX_BYTES);
    this.pos = writeJsonNumber(this.buf, this.pos, v);
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
