/**
 * The trading day's times, written by hand (not taken from ingest/feed/tradingHours.ts), for
 * the generator's tests, and the cheap check their hot loops use.
 */
import * as assert from 'uvu/assert';

export const ms = (h: number, m: number, s = 0, f = 0): number => ((h * 60 + m) * 60 + s) * 1000 + f;
export const T_0915 = ms(9, 15);
export const T_0920 = ms(9, 20);
export const T_0925 = ms(9, 25);
export const T_0930 = ms(9, 30);
export const T_1130 = ms(11, 30);
export const T_1300 = ms(13, 0);
/** The closing call auction: orders from 14:57, matched at 15:00:00.000 (both exchanges since 2018). */
export const T_1457 = ms(14, 57);
export const T_1500 = ms(15, 0);

/** assert.ok without building the message unless it fails (the loops are hot). */
export function check(cond: unknown, msg: () => string): void {
  if (!cond) assert.unreachable(msg());
}
