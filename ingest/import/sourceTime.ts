/**
 * The time forms an import mapping can name (docs/import-mappings.md), each read into
 * milliseconds since midnight, exchange local time (Asia/Shanghai, UTC+08:00 all year: China
 * has had no daylight saving since 1991), plus the date when the source carries one. The
 * mapper then writes the dataset's feed form (api-contract: The feed).
 *
 * Readers go by character codes, not regular expressions: one runs per imported row, and the
 * import must keep up with hundreds of thousands of rows a second.
 */
import { isValidDateText } from '../../shared/timeFormat.js';

export type TimeForm = 'hhmmssmmm' | 'hhmmss' | 'hh:mm:ss.fff' | 'epoch_ms' | 'epoch_us' | 'datetime';
export const TIME_FORMS: readonly TimeForm[] = ['hhmmssmmm', 'hhmmss', 'hh:mm:ss.fff', 'epoch_ms', 'epoch_us', 'datetime'];

/** True for the forms whose values name the day as well as the time. */
export function timeFormHasDate(form: TimeForm): boolean {
  return form === 'epoch_ms' || form === 'epoch_us' || form === 'datetime';
}

/** One source time: milliseconds since local midnight and, for forms that carry it, the date as YYYYMMDD. */
export interface SourceTime {
  readonly ms: number;
  readonly date: string | null;
}

/** A source time, or the reason the cell is not one. */
export type TimeReader = (cell: unknown) => SourceTime | string;

const SHANGHAI_OFFSET_MS = 8 * 3_600_000;
const MS_PER_DAY = 86_400_000;

const D0 = 48; // '0'
const COLON = 58;
const DOT = 46;

/** `HHMMSSmmm` as an integer (93000120 or 093000120 alike) → ms, or -1 when a part is out of range. */
function clockOfInteger(x: number): number {
  const h = Math.floor(x / 10_000_000);
  const m = Math.floor(x / 100_000) % 100;
  const s = Math.floor(x / 1000) % 100;
  if (h > 23 || m > 59 || s > 59) return -1;
  return ((h * 60 + m) * 60 + s) * 1000 + (x % 1000);
}

/** A string of 1 to `maxDigits` digits as its value, else -1. */
function digitsValue(s: string, maxDigits: number): number {
  const n = s.length;
  if (n === 0 || n > maxDigits) return -1;
  let x = 0;
  for (let i = 0; i < n; i++) {
    const d = s.charCodeAt(i) - D0;
    if (d < 0 || d > 9) return -1;
    x = x * 10 + d;
  }
  return x;
}

/** A whole number ≥ 0 from a number, bigint or digit-string cell, else -1. */
function wholeOf(cell: unknown, maxDigits: number): number {
  if (typeof cell === 'string') return digitsValue(cell, maxDigits);
  if (typeof cell === 'number') return Number.isSafeInteger(cell) && cell >= 0 && cell < 10 ** maxDigits ? cell : -1;
  if (typeof cell === 'bigint') return cell >= 0n && cell < 10n ** BigInt(maxDigits) ? Number(cell) : -1;
  return -1;
}

/**
 * `H:MM:SS` or `HH:MM:SS`, optionally `.f` with any number of fraction digits, starting at
 * `at` and running to the end of `s` → ms, else -1. Digits past the millisecond are dropped,
 * not rounded: a feed time has millisecond precision, and rounding up could cross a second.
 */
function clockAt(s: string, at: number): number {
  const n = s.length;
  let i = at;
  let h = 0;
  let hd = 0;
  for (; i < n && hd < 3; i++, hd++) {
    const d = s.charCodeAt(i) - D0;
    if (d < 0 || d > 9) break;
    h = h * 10 + d;
  }
  if (hd < 1 || hd > 2 || s.charCodeAt(i) !== COLON) return -1;
  const m = two(s, i + 1);
  if (m < 0 || s.charCodeAt(i + 3) !== COLON) return -1;
  const sec = two(s, i + 4);
  if (sec < 0) return -1;
  i += 6;
  let f = 0;
  if (i < n) {
    if (s.charCodeAt(i) !== DOT || i + 1 >= n) return -1;
    let k = 0;
    for (i++; i < n; i++, k++) {
      const d = s.charCodeAt(i) - D0;
      if (d < 0 || d > 9) return -1;
      if (k < 3) f = f * 10 + d;
    }
    if (k === 1) f *= 100;
    else if (k === 2) f *= 10;
  }
  if (h > 23 || m > 59 || sec > 59) return -1;
  return ((h * 60 + m) * 60 + sec) * 1000 + f;
}

/** Two digits at `i` as a number, else -1. */
function two(s: string, i: number): number {
  const a = s.charCodeAt(i) - D0;
  const b = s.charCodeAt(i + 1) - D0;
  if (!(a >= 0 && a <= 9 && b >= 0 && b <= 9)) return -1;
  return a * 10 + b;
}

/**
 * The date of a day number (days since 1970-01-01) as YYYYMMDD. One file holds one or a few
 * days, so the last answer is kept rather than a Date made per row.
 */
function dayText(): (day: number) => string {
  let lastDay = NaN;
  let lastText = '';
  return (day) => {
    if (day !== lastDay) {
      lastDay = day;
      lastText = new Date(day * MS_PER_DAY).toISOString().slice(0, 10).replace(/-/g, '');
    }
    return lastText;
  };
}

/** Wall time (ms since 1970 in local terms) → date and time of day. */
function fromWallMs(wall: number, dayOf: (day: number) => string): SourceTime {
  const day = Math.floor(wall / MS_PER_DAY);
  return { ms: wall - day * MS_PER_DAY, date: dayOf(day) };
}

const show = (cell: unknown): string => (typeof cell === 'string' ? JSON.stringify(cell.slice(0, 40)) : String(cell));

/** The reader of one time form. Each call makes a reader with its own date memory. */
export function timeReader(form: TimeForm): TimeReader {
  switch (form) {
    case 'hhmmssmmm':
      return (cell) => {
        const x = wholeOf(cell, 9);
        const ms = x < 0 ? -1 : clockOfInteger(x);
        return ms < 0 ? `time ${show(cell)} is not HHMMSSmmm` : { ms, date: null };
      };
    case 'hhmmss':
      return (cell) => {
        const x = wholeOf(cell, 6);
        const ms = x < 0 ? -1 : clockOfInteger(x * 1000);
        return ms < 0 ? `time ${show(cell)} is not HHMMSS` : { ms, date: null };
      };
    case 'hh:mm:ss.fff':
      return (cell) => {
        const ms = typeof cell === 'string' ? clockAt(cell, 0) : -1;
        return ms < 0 ? `time ${show(cell)} is not HH:MM:SS[.fff]` : { ms, date: null };
      };
    case 'epoch_ms':
    case 'epoch_us': {
      const dayOf = dayText();
      const perMs = form === 'epoch_ms' ? 1 : 1000;
      return (cell) => {
        let utc: number;
        if (cell instanceof Date) utc = cell.getTime();
        else {
          const x = wholeOf(cell, 16); // epoch microseconds of this century: 16 digits, below 2^53
          if (x < 0) return `time ${show(cell)} is not ${form === 'epoch_ms' ? 'epoch milliseconds' : 'epoch microseconds'}`;
          utc = Math.floor(x / perMs);
        }
        if (!Number.isFinite(utc)) return `time ${show(cell)} is not a valid instant`;
        return fromWallMs(utc + SHANGHAI_OFFSET_MS, dayOf);
      };
    }
    case 'datetime': {
      const dayOf = dayText();
      let lastDate = '';
      let lastOk = false;
      return (cell) => {
        // A Parquet TIMESTAMP column without a UTC adjustment arrives from hyparquet as a
        // Date whose UTC fields are the wall time written: take them as Shanghai wall time.
        if (cell instanceof Date) {
          const t = cell.getTime();
          return Number.isFinite(t) ? fromWallMs(t, dayOf) : `time ${show(cell)} is not a valid date and time`;
        }
        const bad = () => `time ${show(cell)} is not YYYY-MM-DD HH:MM:SS[.fff]`;
        if (typeof cell !== 'string' || cell.length < 18) return bad();
        const sep = cell.charCodeAt(4);
        if ((sep !== 45 && sep !== 47) || cell.charCodeAt(7) !== sep) return bad(); // '-' or '/'
        const sp = cell.charCodeAt(10);
        if (sp !== 32 && sp !== 84) return bad(); // ' ' or 'T'
        const date = cell.slice(0, 4) + cell.slice(5, 7) + cell.slice(8, 10);
        if (date !== lastDate) {
          lastDate = date;
          lastOk = isValidDateText(date);
        }
        if (!lastOk) return bad();
        const ms = clockAt(cell, 11);
        return ms < 0 ? bad() : { ms, date };
      };
    }
  }
}
