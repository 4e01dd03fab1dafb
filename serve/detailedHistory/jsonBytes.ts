/**
 * JSON text written straight into bytes. A full-day level2 page is ~250,000 numbers; V8's
 * double-to-string plus string concatenation and the final UTF-8 encode cost several times
 * what writing digits into a Buffer does. The output is byte-for-byte what JSON.stringify
 * gives (the tests check this on the data and on random and edge-case doubles).
 */
const ZERO = 48;
const SCALE = 10_000;
/** Below this, four fraction digits keep a number under 15 significant digits. */
const FAST_LIMIT = 1e11;
/** Integers below this are handled with int32 arithmetic. */
const SMALL_LIMIT = 2 ** 31;
/** ASCII of "00".."99", two bytes each. */
const PAIRS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), 'latin1');

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

  /** Non-negative integer below 2^53, two digits per step from a table. */
  private digits(n: number): void {
    if (n >= SMALL_LIMIT) {
      // Split so each part fits int32 arithmetic: high digits, then exactly eight low digits.
      const hi = Math.floor(n / 1e8);
      this.digits(hi);
      this.padded8(n - hi * 1e8);
      return;
    }
    const len = n < 10 ? 1 : n < 100 ? 2 : n < 1e3 ? 3 : n < 1e4 ? 4 : n < 1e5 ? 5 : n < 1e6 ? 6 : n < 1e7 ? 7 : n < 1e8 ? 8 : n < 1e9 ? 9 : 10;
    const buf = this.buf;
    let p = this.pos + len;
    this.pos = p;
    while (n >= 100) {
      const q = (n / 100) | 0;
      const r = (n - q * 100) << 1;
      buf[--p] = PAIRS[r + 1];
      buf[--p] = PAIRS[r];
      n = q;
    }
    if (n >= 10) {
      buf[--p] = PAIRS[(n << 1) + 1];
      buf[--p] = PAIRS[n << 1];
    } else {
      buf[--p] = ZERO + n;
    }
  }

  /** 0 <= n < 1e8 as exactly eight digits. */
  private padded8(n: number): void {
    const buf = this.buf;
    let p = this.pos + 8;
    this.pos = p;
    for (let i = 0; i < 4; i++) {
      const q = (n / 100) | 0;
      const r = (n - q * 100) << 1;
      buf[--p] = PAIRS[r + 1];
      buf[--p] = PAIRS[r];
      n = q;
    }
  }

  /**
   * A number as JSON.stringify writes it (NaN = null: the decoder's null marker). Integers and
   * numbers with at most four decimals (prices, amounts) are written from integer arithmetic:
   * when c / 10^4 === v for the integer c, the decimal c·10^-4 is the double's shortest
   * round-trip form below 1e11 (any other decimal of no more digits lies over 10^-4 away,
   * far beyond half an ulp), which is exactly what ECMAScript's Number::toString prints.
   * Everything else falls back to V8.
   */
  number(v: number): void {
    this.ensure(32);
    if (v !== v) {
      const buf = this.buf;
      const p = this.pos;
      buf[p] = 110; // n
      buf[p + 1] = 117; // u
      buf[p + 2] = 108; // l
      buf[p + 3] = 108; // l
      this.pos = p + 4;
      return;
    }
    let a = v;
    if (a < 0) {
      a = -a;
      this.buf[this.pos++] = 45;
    }
    if (a < FAST_LIMIT) {
      const whole = Math.floor(a);
      if (whole === a) {
        this.digits(whole);
        return;
      }
      const c = Math.round(a * SCALE);
      if (c / SCALE === a) {
        const w = Math.floor(c / SCALE);
        let frac = c - w * SCALE;
        this.digits(w);
        const buf = this.buf;
        buf[this.pos++] = 46;
        // Four fraction digits, trailing zeros dropped (frac > 0: a is not an integer).
        let width = 4;
        while (frac % 10 === 0) {
          frac = (frac / 10) | 0;
          width--;
        }
        let p = this.pos + width;
        this.pos = p;
        for (let i = 0; i < width; i++) {
          const q = (frac / 10) | 0;
          buf[--p] = ZERO + (frac - q * 10);
          frac = q;
        }
        return;
      }
    }
    // Undo the sign byte: the fallback writes its own.
    if (v < 0) this.pos--;
    this.raw(JSON.stringify(v));
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
