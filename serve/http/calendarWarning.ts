/**
 * When the clock has run past the calendar's known range, the latest trading day is a weekday
 * the calendar cannot vouch for: every /api answer says so (an HTTP Warning header, so the
 * envelope stays what clients parse), and the log says so once per such day.
 */
import type { Logger } from '../../shared/logger.js';
import { answerableSpan } from '../reading/answerableDates.js';

export class CalendarWarning {
  private warnedFor = '';

  constructor(private readonly log: Logger) {}

  /** The Warning header's value at `nowMs`, or null while the calendar covers the latest trading day. */
  headerAt(nowMs: number): string | null {
    const span = answerableSpan(nowMs);
    if (span.last === span.knownLast) return null;
    const text = `the latest trading day ${span.last} is past the trading calendar's known range (through ${span.knownLast}); closures after it are unknown`;
    if (this.warnedFor !== span.last) {
      this.warnedFor = span.last;
      this.log.warn({ latest: span.last, knownLast: span.knownLast }, text);
    }
    return `299 tickvault "${text}"`;
  }
}
