/**
 * Time-of-day and date text formats used by the feed and the API. Times are handled as
 * milliseconds since midnight (exchange local time), which sorts and compares cheaply.
 */
export const MS_PER_MINUTE = 60_000;
export const MS_PER_DAY = 86_400_000;

function hmsToMs(h: number, m: number, s: number, ms: number): number | null {
  if (h > 23 || m > 59 || s > 59 || ms > 999) return null;
  return ((h * 60 + m) * 60 + s) * 1000 + ms;
}

/** The number the ASCII digits text[from, from + n) spell; -1 when any is not a digit. */
function digitsAt(text: string, from: number, n: number): number {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/**
 * The one parser of each stored time form (feeds are checked with it and files read with it):
 * char codes rather than a regular expression, as the server reads every row's time of a file
 * it touches first.
 */

/** Level-2 feed/file form `HHMMSSmmm` (exactly nine digits). */
export function parseLevel2Time(text: unknown): number | null {
  if (typeof text !== 'string' || text.length !== 9) return null;
  const h = digitsAt(text, 0, 2),
    m = digitsAt(text, 2, 2),
    s = digitsAt(text, 4, 2),
    f = digitsAt(text, 6, 3);
  if (h < 0 || m < 0 || s < 0 || f < 0) return null;
  return hmsToMs(h, m, s, f);
}

/**
 * The clock of the index feed/file form `YYYY-MM-DD HH:mm:ss.SSS`, in ms since midnight; null
 * when the text is not of that form or the clock is out of range. The date is checked for its
 * shape only: parseIndexTime also checks that it names a real day (a stored file's is its
 * tradedate, checked when it was staged).
 */
export function parseIndexClock(text: unknown): number | null {
  if (typeof text !== 'string' || text.length !== 23) return null;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== ' ' || text[13] !== ':' || text[16] !== ':' || text[19] !== '.') return null;
  if (digitsAt(text, 0, 4) < 0 || digitsAt(text, 5, 2) < 0 || digitsAt(text, 8, 2) < 0) return null;
  const h = digitsAt(text, 11, 2),
    m = digitsAt(text, 14, 2),
    s = digitsAt(text, 17, 2),
    f = digitsAt(text, 20, 3);
  if (h < 0 || m < 0 || s < 0 || f < 0) return null;
  return hmsToMs(h, m, s, f);
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;
const pad3 = (n: number) => (n < 10 ? '00' : n < 100 ? '0' : '') + n;

function splitMs(ms: number): [number, number, number, number] {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  return [h, m, s, ms % 1000];
}

export function formatLevel2Time(ms: number): string {
  const [h, m, s, f] = splitMs(ms);
  return pad2(h) + pad2(m) + pad2(s) + pad3(f);
}

/** Index feed/file form `YYYY-MM-DD HH:mm:ss.SSS`; returns the date as YYYYMMDD and the time. */
export function parseIndexTime(text: unknown): { date: string; ms: number } | null {
  const ms = parseIndexClock(text);
  if (ms === null) return null;
  const t = text as string;
  const date = t.slice(0, 4) + t.slice(5, 7) + t.slice(8, 10);
  return isValidDateText(date) ? { date, ms } : null;
}

export function formatIndexTime(date: string, ms: number): string {
  const [h, m, s, f] = splitMs(ms);
  return `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)} ${pad2(h)}:${pad2(m)}:${pad2(s)}.${pad3(f)}`;
}

/** Strict YYYYMMDD naming a real calendar date. */
export function isValidDateText(text: unknown): text is string {
  if (typeof text !== 'string' || !/^\d{8}$/.test(text)) return false;
  const y = +text.slice(0, 4);
  const mo = +text.slice(4, 6);
  const d = +text.slice(6, 8);
  if (y < 1990 || mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/** The API's time forms, named together so every message and document lists the same ones. */
export const API_TIME_FORMS = 'HH:MM, HH:MM:SS, HH:MM:SS.mmm, HHMMSS or HHMMSSmmm';

/**
 * API time for `start_time`/`end_time` of both operations: every unambiguous form the contract
 * names for either, `HH:MM`, `HH:MM:SS`, `HH:MM:SS.mmm`, `HHMMSS` and `HHMMSSmmm` (level 2
 * named four, tick_history two; clients send one operation's form to the other). Shorter
 * forms mean the start of the minute/second (api-contract: Detailed history); inclusivity is each operation's.
 */
export function parseApiTime(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  let m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{3}))?)?$/.exec(text);
  if (m) return hmsToMs(+m[1], +m[2], m[3] === undefined ? 0 : +m[3], m[4] === undefined ? 0 : +m[4]);
  m = /^(\d{2})(\d{2})(\d{2})(\d{3})?$/.exec(text);
  if (m) return hmsToMs(+m[1], +m[2], +m[3], m[4] === undefined ? 0 : +m[4]);
  return null;
}

/** `trademin` is `HHMM` or `HH:MM`; returns the minute's start in ms. */
export function parseTrademin(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  // HHMM as the contract writes it, HH:MM as clients in the field also send it (api-contract: tick_history).
  const m = /^(\d{2}):?(\d{2})$/.exec(text);
  if (!m) return null;
  return hmsToMs(+m[1], +m[2], 0, 0);
}
