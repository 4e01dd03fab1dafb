/**
 * Paging cursors of the detailed history interfaces (api-contract: Detailed history, Trades and orders).
 *
 * New kind: `c1` + base64url(payload ‖ mac), where payload is 26 bytes
 *   interface(1: 1 level2_quote_history, 2 level2_trade_history, 3 level2_order_history)
 *   ‖ symbol NNNNNN.XX (9 ASCII) ‖ tradedate (u32 BE, YYYYMMDD as a number)
 *   ‖ start_time ms (i32 BE, -1 = none) ‖ end_time ms (i32 BE, -1 = none)
 *   ‖ position (u32 BE: file row of the next row)
 * and mac is the first 16 bytes of HMAC-SHA256(key, payload). A cursor on a restated
 * symbol-day's version 2 or later (api-contract: Corrections) has a 28-byte payload: the same
 * 26 bytes ‖ version (u16 BE); a version-1 cursor keeps the 26 bytes, so the tokens of data
 * never restated are what they always were. A cursor on a live day (api-contract: The live day)
 * has a 38-byte payload: the 26 bytes (position 0) ‖ the last answered row's time (i32 BE) ‖
 * its id (f64 BE; 0 for snapshots, whose key is the time alone): rows staged later may land
 * before any position, so a live cursor continues after a sort key, not at a row number. The key is the data
 * directory's cursor.key, so every server process on the directory, before and after a
 * restart, issues and accepts the same cursors; a forged or altered token fails the MAC.
 * The `c` prefix keeps a token from ever looking like the older, all-digit kind. The first
 * byte was a format version when level 2 was the only interface: its value 1 stays level 2's,
 * so tokens issued before the trade and order interfaces existed still page; a token names
 * its interface, so one interface's cursor is refused by another.
 *
 * Older kind: a plain decimal string, the zero-based position of the next row within the
 * day AFTER the time filters. It carries nothing else, so it needs `tradedate` (and the same
 * time filters) alongside.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DetailedApiName } from '../access/plans.js';

export interface CursorState {
  /** The interface that issued the cursor. */
  readonly apiname: DetailedApiName;
  readonly symbol: string;
  readonly tradedate: string;
  readonly startMs: number | null;
  readonly endMs: number | null;
  /** Row position in the file of the next row to return. */
  readonly position: number;
  /** The version of the symbol-day the cursor pages (1 as sealed). */
  readonly version: number;
  /** On a live day: the sort key of the last row answered; the next page starts after it. */
  readonly after?: LiveKey;
}

/** A row's sort key on a live day: its time, then (trades and orders) its id. */
export interface LiveKey {
  readonly timeMs: number;
  readonly id: number;
}

export type ParsedCursor = { readonly kind: 'token'; readonly state: CursorState } | { readonly kind: 'offset'; readonly offset: number };

export type CursorResult = { readonly ok: true; readonly cursor: ParsedCursor } | { readonly ok: false; readonly reason: string };

const INTERFACE_BYTE: Readonly<Record<DetailedApiName, number>> = { level2_quote_history: 1, level2_trade_history: 2, level2_order_history: 3 };
const INTERFACE_OF_BYTE = new Map(Object.entries(INTERFACE_BYTE).map(([api, b]) => [b, api as DetailedApiName]));
const PAYLOAD_BYTES = 26;
const VERSIONED_PAYLOAD_BYTES = 28;
const LIVE_PAYLOAD_BYTES = 38;
const MAX_VERSION = 0xffff;
const MAC_BYTES = 16;
const PREFIX = 'c1';
const SYMBOL_RE = /^\d{6}\.(SH|SZ|BJ)$/;
const MAX_POSITION = 0xffffffff;

export class CursorCodec {
  constructor(private readonly key: Buffer) {
    if (key.length < 16) throw new Error('cursor key must be at least 16 bytes');
  }

  private mac(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, MAC_BYTES);
  }

  encode(s: CursorState): string {
    if (!SYMBOL_RE.test(s.symbol)) throw new RangeError(`cursor symbol ${s.symbol} is not canonical`);
    if (!/^\d{8}$/.test(s.tradedate)) throw new RangeError(`cursor date ${s.tradedate} is not YYYYMMDD`);
    if (!Number.isInteger(s.position) || s.position < 0 || s.position > MAX_POSITION) throw new RangeError('cursor position out of range');
    if (!Number.isInteger(s.version) || s.version < 1 || s.version > MAX_VERSION) throw new RangeError('cursor version out of range');
    if (s.after !== undefined && (s.version !== 1 || s.position !== 0)) throw new RangeError('a live cursor has no version or position');
    const p = Buffer.alloc(s.after !== undefined ? LIVE_PAYLOAD_BYTES : s.version === 1 ? PAYLOAD_BYTES : VERSIONED_PAYLOAD_BYTES);
    p[0] = INTERFACE_BYTE[s.apiname];
    p.write(s.symbol, 1, 9, 'latin1');
    p.writeUInt32BE(Number(s.tradedate), 10);
    p.writeInt32BE(s.startMs ?? -1, 14);
    p.writeInt32BE(s.endMs ?? -1, 18);
    p.writeUInt32BE(s.position, 22);
    if (s.version > 1) p.writeUInt16BE(s.version, 26);
    if (s.after !== undefined) {
      p.writeInt32BE(s.after.timeMs, 26);
      p.writeDoubleBE(s.after.id, 30);
    }
    return PREFIX + Buffer.concat([p, this.mac(p)]).toString('base64url');
  }

  /** Parses either kind; a token that is malformed or fails its MAC is rejected. */
  parse(text: string): CursorResult {
    if (/^\d+$/.test(text)) {
      const offset = Number(text);
      if (!Number.isSafeInteger(offset)) return { ok: false, reason: 'is a row position too large to be real' };
      return { ok: true, cursor: { kind: 'offset', offset } };
    }
    const invalid: CursorResult = { ok: false, reason: 'is not a cursor issued by this service (altered, truncated or forged)' };
    if (!text.startsWith(PREFIX) || !/^[A-Za-z0-9_-]+$/.test(text.slice(PREFIX.length))) return invalid;
    const raw = Buffer.from(text.slice(PREFIX.length), 'base64url');
    const payloadBytes = raw.length - MAC_BYTES;
    if (payloadBytes !== PAYLOAD_BYTES && payloadBytes !== VERSIONED_PAYLOAD_BYTES && payloadBytes !== LIVE_PAYLOAD_BYTES) return invalid;
    const payload = raw.subarray(0, payloadBytes);
    if (!timingSafeEqual(raw.subarray(payloadBytes), this.mac(payload))) return invalid;
    const live = payloadBytes === LIVE_PAYLOAD_BYTES;
    const version = payloadBytes === VERSIONED_PAYLOAD_BYTES ? payload.readUInt16BE(26) : 1;
    if (payloadBytes === VERSIONED_PAYLOAD_BYTES && version < 2) return invalid; // a version-1 cursor is never written long
    if (live && payload.readUInt32BE(22) !== 0) return invalid;
    // Canonical base64url only: a different spelling of the same bytes is not our token.
    if (PREFIX + raw.toString('base64url') !== text) return invalid;
    const apiname = INTERFACE_OF_BYTE.get(payload[0]);
    if (apiname === undefined) return invalid;
    const symbol = payload.toString('latin1', 1, 10);
    const start = payload.readInt32BE(14);
    const end = payload.readInt32BE(18);
    return {
      ok: true,
      cursor: {
        kind: 'token',
        state: {
          apiname,
          symbol,
          tradedate: String(payload.readUInt32BE(10)).padStart(8, '0'),
          startMs: start < 0 ? null : start,
          endMs: end < 0 ? null : end,
          position: payload.readUInt32BE(22),
          version,
          ...(live ? { after: { timeMs: payload.readInt32BE(26), id: payload.readDoubleBE(30) } } : {}),
        },
      },
    };
  }
}
