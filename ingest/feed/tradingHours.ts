/**
 * The phases of a generated trading day, in ms since midnight (exchange time). Shared by the
 * snapshot generator and the tick-by-tick market so that both agree on when each phase starts.
 *
 * 09:15–09:25 opening call auction (matched at 09:25:00.000), 09:30–11:30 and 13:00–14:57
 * continuous trading, 14:57–15:00 closing call auction (matched at 15:00:00.000), as both
 * Shanghai and Shenzhen have ended the day since 2018.
 */
export const AUCTION_START = (9 * 60 + 15) * 60_000;
/** The call auction's match: the first snapshot at or after it is the first continuous one. */
export const AUCTION_END = (9 * 60 + 25) * 60_000;
/** Before this time cancellations are accepted in the call auction (exchange rule). */
export const AUCTION_CANCEL_END = (9 * 60 + 20) * 60_000;
/** Continuous trading. */
export const SESSIONS: readonly [number, number][] = [
  [(9 * 60 + 30) * 60_000, (11 * 60 + 30) * 60_000],
  [13 * 60 * 60_000, (14 * 60 + 57) * 60_000],
];
/** The closing call auction starts where the afternoon's continuous trading ends: orders collect, nothing trades, no cancellations. */
export const CLOSE_AUCTION_START = SESSIONS[1][1];
/** The closing call auction's match: the first snapshot at or after it carries it, with the day's close. */
export const MARKET_CLOSE = 15 * 60 * 60_000;

/**
 * Earliest time an event of the snapshot at `timeMs` may carry: the start of its phase. The
 * closing match's snapshot belongs to the closing auction (orders still arrive before 15:00).
 */
export function phaseStart(timeMs: number): number {
  if (timeMs < AUCTION_END) return AUCTION_START;
  if (timeMs < SESSIONS[0][0]) return AUCTION_END;
  if (timeMs < SESSIONS[1][0]) return SESSIONS[0][0];
  return timeMs < CLOSE_AUCTION_START ? SESSIONS[1][0] : CLOSE_AUCTION_START;
}
