/**
 * Symbol parsing and canonicalisation (api-contract: Symbols). Pure. A symbol only reaches a file path
 * after matching one of these patterns, so nothing here can carry a path fragment.
 */
export type Exchange = 'SH' | 'SZ' | 'BJ';

export type SymbolResult = { ok: true; symbol: string } | { ok: false; reason: string };

const SUFFIX_TO_EXCHANGE: Readonly<Record<string, Exchange>> = {
  SH: 'SH',
  XSHG: 'SH',
  SZ: 'SZ',
  XSHE: 'SZ',
  BJ: 'BJ',
};

/** The exchange a bare six-digit stock code belongs to, or null when the code names none. */
export function exchangeOfCode(code: string): Exchange | null {
  if (code.startsWith('92') || code[0] === '4' || code[0] === '8') return 'BJ';
  if (code[0] === '6' || code[0] === '9') return 'SH';
  if (code[0] === '0' || code[0] === '2' || code[0] === '3') return 'SZ';
  return null;
}

const BARE = /^(\d{6})$/;
const SUFFIXED = /^(\d{6})\.([A-Za-z]{2,4})$/;
const PREFIXED = /^([A-Za-z]{2})(\d{6})$/;

/**
 * Parses a stock code in any accepted form (`600000`, `600000.SH`, `600000.sh`, `SH600000`,
 * `sh600000`, `600000.XSHG`, likewise SZ/XSHE and BJ) into the canonical `NNNNNN.XX`.
 */
export function parseStockSymbol(input: unknown): SymbolResult {
  if (typeof input !== 'string') return { ok: false, reason: 'must be a string' };
  let m = BARE.exec(input);
  if (m) {
    const ex = exchangeOfCode(m[1]);
    if (!ex) return { ok: false, reason: `six-digit code ${m[1]} belongs to no stock exchange` };
    return { ok: true, symbol: `${m[1]}.${ex}` };
  }
  m = SUFFIXED.exec(input);
  if (m) {
    const ex = SUFFIX_TO_EXCHANGE[m[2].toUpperCase()];
    if (!ex) return { ok: false, reason: `unknown exchange suffix .${m[2]}` };
    return { ok: true, symbol: `${m[1]}.${ex}` };
  }
  m = PREFIXED.exec(input);
  if (m) {
    const prefix = m[1].toUpperCase();
    // Only the two-letter exchange names work as prefixes; XSHG600000 is no known form.
    if (prefix !== 'SH' && prefix !== 'SZ' && prefix !== 'BJ') {
      return { ok: false, reason: `unknown exchange prefix ${m[1]}` };
    }
    return { ok: true, symbol: `${m[2]}.${prefix}` };
  }
  return { ok: false, reason: 'is not a stock code (NNNNNN, NNNNNN.SH/.SZ/.BJ, SH/SZ/BJNNNNNN or NNNNNN.XSHG/.XSHE)' };
}

/** Index codes are exactly six digits with no suffix (api-contract: Symbols). */
export function parseIndexSymbol(input: unknown): SymbolResult {
  if (typeof input !== 'string') return { ok: false, reason: 'must be a string' };
  if (!BARE.test(input)) return { ok: false, reason: 'is not a six-digit index code' };
  return { ok: true, symbol: input };
}

/** True for a canonical stock code `NNNNNN.XX`. */
export function isCanonicalStock(symbol: string): boolean {
  return /^\d{6}\.(SH|SZ|BJ)$/.test(symbol);
}
