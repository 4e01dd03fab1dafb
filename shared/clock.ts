/**
 * The service clock. TICKVAULT_NOW pins "now" to an instant at start-up and then lets it
 * advance in real time, so rate limits and leases keep working in tests and replays of the past.
 */
import { DateTime } from 'luxon';

export interface Clock {
  /** Current instant in epoch milliseconds. */
  nowMs(): number;
}

export const BEIJING = 'Asia/Shanghai';

export function systemClock(): Clock {
  return { nowMs: () => Date.now() };
}

/** A clock that starts at `startMs` and advances with the real clock. */
export function offsetClock(startMs: number): Clock {
  const realStart = Date.now();
  return { nowMs: () => startMs + (Date.now() - realStart) };
}

/** Parses an ISO-8601 instant (with offset or Z). Returns null when it is not one. */
export function parseInstant(text: string): number | null {
  const dt = DateTime.fromISO(text, { setZone: true });
  if (!dt.isValid) return null;
  // An ISO string without an offset would silently mean local time; require an explicit zone.
  if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim())) return null;
  return dt.toMillis();
}

/** The Beijing calendar date (YYYYMMDD) of an instant. */
export function beijingDate(ms: number): string {
  return DateTime.fromMillis(ms, { zone: BEIJING }).toFormat('yyyyLLdd');
}

/** Epoch ms of Beijing midnight starting the given YYYYMMDD day. */
export function beijingDayStartMs(date: string): number {
  return DateTime.fromFormat(date, 'yyyyLLdd', { zone: BEIJING }).toMillis();
}
