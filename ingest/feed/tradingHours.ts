/**
 * The phases of a generated trading day, in ms since midnight (exchange time). Shared by the
 * snapshot generator and the tick-by-tick market so that both agree on when each phase starts.
 */
export const AUCTION_START = (9 * 60 + 15) * 60_000;
/** The call auction's match: the first snapshot at or after it is the first continuous one. */
export const AUCTION_END = (9 * 60 + 25) * 60_000;
/** Before this time cancellations are accepted in the call auction (exchange rule). */
export const AUCTION_CANCEL_END = (9 * 60 + 20) * 60_000;
export const SESSIONS: readonly [number, number][] = [
  [(9 * 60 + 30) * 60_000, (11 * 60 + 30) * 60_000],
  [13 * 60 * 60_000, 15 * 60 * 60_000],
];

/** Earliest time an event of the snapshot at `timeMs` may carry: the start of its phase. */
export function phaseStart(timeMs: number): number {
  if (timeMs < AUCTION_END) return AUCTION_START;
  if (timeMs < SESSIONS[0][0]) return AUCTION_END;
  return timeMs < SESSIONS[1][0] ? SESSIONS[0][0] : SESSIONS[1][0];
}
