/**
 * Numbers written into bytes exactly as JSON.stringify writes them, for the two writers that
 * make JSON without strings: the feed generator's lines (ingest/feed/jsonLineBuffer.ts) and the
 * detailed-history rows (storage/rowText/jsonBytes.ts). V8's number-to-string plus
 * string building cost several times what writing digits into a buffer does.
 *
 * Integers are written digit by digit (two at a time from a table below 2^31). A value on the
 * 0.01 or 0.0001 grid is written from its scaled integer c: when c / 100 (or c / 10^4) equals
 * the value, that decimal is the double's shortest round-trip form as long as the value is far
 * enough below 2^53 / scale that no other decimal with as few digits lies within its rounding
 * distance — which is what ECMAScript's Number::toString prints. Anything else goes through
 * String(n). null, NaN and ±Infinity are `null`, as JSON.stringify writes them.
 */

/** Room a caller must leave for one number: String(n) of a double is at most 24 characters. */
export const JSON_NUMBER_MAX_BYTES = 25;

const ZERO = 48;
/** Integers below this are handled with int32 arithmetic. */
const INT32_LIMIT = 2 ** 31;
/** Bounds of the 0.01 and 0.0001 grids' fast paths (see above). */
const MAX_CENTS_VALUE = 1e12;
const MAX_BASIS_VALUE = 1e10;
/** ASCII of "00".."99", two bytes each. */
export const PAIRS = Buffer.from(Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0')).join(''), 'latin1');

/** Writes `n` at `pos` (room for JSON_NUMBER_MAX_BYTES assumed); returns the position after it. */
export function writeJsonNumber(buf: Buffer, pos: number, n: number | null): number {
  if (n === null || n !== n || n === Infinity || n === -Infinity) {
    buf[pos] = 110; // n
    buf[pos + 1] = 117; // u
    buf[pos + 2] = 108; // l
    buf[pos + 3] = 108; // l
    return pos + 4;
  }
  let p = pos;
  let a = n;
  if (a < 0) {
    a = -a;
    buf[p++] = 45;
  }
  if (a < INT32_LIMIT) {
    // Most values of a row (prices, volumes, ids) lie here: int32 arithmetic throughout.
    const i = a | 0;
    if (i === a) return writeDigits(buf, p, i);
    const c = Math.round(a * 100);
    if (c / 100 === a) return c < INT32_LIMIT ? writeCents(buf, p, c) : writeScaled(buf, p, c, 2, 100);
    const b = Math.round(a * 10_000);
    if (b / 10_000 === a) return writeScaled(buf, p, b, 4, 10_000);
    return pos + buf.write(String(n), pos, 'latin1');
  }
  if (a <= Number.MAX_SAFE_INTEGER && Math.floor(a) === a) return writeDigits(buf, p, a);
  if (a < MAX_CENTS_VALUE) {
    const c = Math.round(a * 100);
    // c / 100 is the double nearest to that decimal (division rounds correctly), so equal means a is it.
    if (c / 100 === a) return writeScaled(buf, p, c, 2, 100);
    if (a < MAX_BASIS_VALUE) {
      const b = Math.round(a * 10_000);
      if (b / 10_000 === a) return writeScaled(buf, p, b, 4, 10_000);
    }
  }
  return pos + buf.write(String(n), pos, 'latin1');
}

/** `cents / 100` (0 < cents < 2^31, not a multiple of 100): writeScaled's digits in int32 arithmetic. */
function writeCents(buf: Buffer, pos: number, cents: number): number {
  const whole = (cents / 100) | 0;
  const frac = cents - whole * 100;
  const p = writeDigits(buf, pos, whole);
  buf[p] = 46;
  const tens = (frac / 10) | 0;
  const units = frac - tens * 10;
  buf[p + 1] = ZERO + tens;
  if (units === 0) return p + 2;
  buf[p + 2] = ZERO + units;
  return p + 3;
}

/** A non-negative safe integer's digits at `pos`; returns the position after them. */
export function writeDigits(buf: Buffer, pos: number, n: number): number {
  if (n >= INT32_LIMIT) {
    // Split so each part fits int32 arithmetic: high digits, then exactly eight low digits.
    const hi = Math.floor(n / 1e8);
    return writePadded(buf, writeDigits(buf, pos, hi), n - hi * 1e8, 8);
  }
  const len = n < 10 ? 1 : n < 100 ? 2 : n < 1e3 ? 3 : n < 1e4 ? 4 : n < 1e5 ? 5 : n < 1e6 ? 6 : n < 1e7 ? 7 : n < 1e8 ? 8 : n < 1e9 ? 9 : 10;
  const end = pos + len;
  let p = end;
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
  return end;
}

/** `digits` digits of n (0 ≤ n < 10^digits < 2^31), zero-padded; returns the position after them. */
export function writePadded(buf: Buffer, pos: number, n: number, digits: number): number {
  const end = pos + digits;
  for (let p = end - 1; p >= pos; p--) {
    const q = (n / 10) | 0;
    buf[p] = ZERO + (n - q * 10);
    n = q;
  }
  return end;
}

/** `scaled / unit` with `decimals` places, trailing zeros dropped (never all: the value is not an integer). */
function writeScaled(buf: Buffer, pos: number, scaled: number, decimals: number, unit: number): number {
  const whole = Math.floor(scaled / unit);
  let frac = scaled - whole * unit;
  let p = writeDigits(buf, pos, whole);
  buf[p++] = 46;
  while (frac % 10 === 0) {
    frac /= 10;
    decimals--;
  }
  return writePadded(buf, p, frac, decimals);
}
