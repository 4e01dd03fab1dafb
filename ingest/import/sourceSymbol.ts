/**
 * The symbol forms an import mapping can name (docs/import-mappings.md), read into the
 * service's canonical symbol: `NNNNNN.XX` for stocks, six digits for indexes
 * (api-contract: Symbols). Each form takes only its own shape, so a mapping that names the
 * wrong form (or the wrong column) shows in the first rejected rows rather than as symbols
 * quietly guessed.
 */
import { exchangeOfCode, parseStockSymbol, type Exchange, type SymbolResult } from '../../shared/symbols.js';

export type SymbolForm = 'prefixed' | 'suffixed' | 'bare' | 'bare+exchange';
export const SYMBOL_FORMS: readonly SymbolForm[] = ['prefixed', 'suffixed', 'bare', 'bare+exchange'];

/** The symbol of one row from its code cell and, for `bare+exchange`, its exchange cell. */
export type SymbolReader = (code: unknown, exchange: unknown) => SymbolResult;

/** Exchange names every `bare+exchange` column may hold, in any case. */
const EXCHANGE_NAMES: Readonly<Record<string, Exchange>> = { SH: 'SH', XSHG: 'SH', SSE: 'SH', SZ: 'SZ', XSHE: 'SZ', SZSE: 'SZ', BJ: 'BJ', BSE: 'BJ' };

const PREFIXED = /^([A-Za-z]{2})(\d{6})$/;
const SUFFIXED = /^(\d{6})\.([A-Za-z]{2,4})$/;
const BARE = /^\d{1,6}$/;

const fail = (reason: string): SymbolResult => ({ ok: false, reason });

/**
 * A bare code as six digits: numeric cells (a Parquet INT column, or a CSV that went through
 * a spreadsheet) have lost their leading zeros, so `1` is `000001`.
 */
function bareCode(cell: unknown): string | null {
  let s: string;
  if (typeof cell === 'string') s = cell;
  else if (typeof cell === 'number' && Number.isSafeInteger(cell)) s = String(cell);
  else if (typeof cell === 'bigint') s = String(cell);
  else return null;
  return BARE.test(s) ? s.padStart(6, '0') : null;
}

const show = (cell: unknown): string => (typeof cell === 'string' ? JSON.stringify(cell.slice(0, 40)) : String(cell));

function readOne(form: SymbolForm, symbols: 'stock' | 'index', code: unknown, exchange: unknown, exchangeLetters: ReadonlyMap<string, string>): SymbolResult {
  if (code === null || code === undefined || code === '') return fail('symbol is missing');
  switch (form) {
    case 'bare': {
      const c = bareCode(code);
      if (c === null) return fail(`symbol ${show(code)} is not a bare code of up to six digits`);
      if (symbols === 'index') return { ok: true, symbol: c };
      const ex = exchangeOfCode(c);
      return ex ? { ok: true, symbol: `${c}.${ex}` } : fail(`symbol six-digit code ${c} belongs to no stock exchange`);
    }
    case 'prefixed': {
      const m = typeof code === 'string' ? PREFIXED.exec(code) : null;
      if (!m) return fail(`symbol ${show(code)} is not prefixed like sh600000`);
      return symbols === 'index' ? { ok: true, symbol: m[2] } : asSymbolReason(parseStockSymbol(code));
    }
    case 'suffixed': {
      const m = typeof code === 'string' ? SUFFIXED.exec(code) : null;
      if (!m) return fail(`symbol ${show(code)} is not suffixed like 600000.SH`);
      return symbols === 'index' ? { ok: true, symbol: m[1] } : asSymbolReason(parseStockSymbol(code));
    }
    case 'bare+exchange': {
      const c = bareCode(code);
      if (c === null) return fail(`symbol ${show(code)} is not a bare code of up to six digits`);
      if (symbols === 'index') return { ok: true, symbol: c };
      if (exchange === null || exchange === undefined || exchange === '') return fail('symbol exchange is missing');
      const raw = typeof exchange === 'string' ? exchange : String(exchange);
      const ex = EXCHANGE_NAMES[(exchangeLetters.get(raw) ?? raw).toUpperCase()];
      return ex ? { ok: true, symbol: `${c}.${ex}` } : fail(`symbol exchange ${show(exchange)} is not SH, SZ or BJ`);
    }
  }
}

/** parseStockSymbol's reasons begin with what they describe; ours begin with the field. */
function asSymbolReason(r: SymbolResult): SymbolResult {
  return r.ok ? r : fail(`symbol ${r.reason}`);
}

/**
 * The reader of one symbol form. Answers are remembered per code (and exchange): a file holds
 * one or a few thousand symbols, consecutive rows usually the same one, so most rows cost a
 * string comparison with the previous row's.
 */
export function symbolReader(form: SymbolForm, symbols: 'stock' | 'index', exchangeLetters: ReadonlyMap<string, string> = new Map()): SymbolReader {
  const memo = new Map<unknown, SymbolResult>();
  let lastCode: unknown = undefined;
  let lastExchange: unknown = undefined;
  let last: SymbolResult | null = null;
  const withExchange = form === 'bare+exchange' && symbols === 'stock';
  return (code, exchange) => {
    if (last !== null && code === lastCode && (!withExchange || exchange === lastExchange)) return last;
    const key = withExchange ? `${typeof code === 'string' ? code : String(code)}\u0000${String(exchange)}` : code;
    let r = memo.get(key);
    if (r === undefined) {
      r = readOne(form, symbols, code, exchange, exchangeLetters);
      if (memo.size >= 100_000) memo.clear(); // bounded: the cells are outside data
      memo.set(key, r);
    }
    lastCode = code;
    lastExchange = exchange;
    last = r;
    return r;
  };
}
