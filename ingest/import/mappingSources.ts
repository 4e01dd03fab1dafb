/**
 * What a mapping says each part of a row comes from (mapping.ts parses and compiles a mapping;
 * mappingDirectives.ts parses its lines): its own module, so the directive parsers and the
 * mapping share these without importing each other.
 */
import type { SymbolForm } from './sourceSymbol.js';
import type { TimeForm } from './sourceTime.js';

/** Where the row's symbol comes from. */
export interface SymbolSource {
  readonly line: number;
  readonly column: string;
  readonly form: SymbolForm;
  /** `bare+exchange`: the column naming the exchange, and source values → SH/SZ/BJ. */
  readonly exchangeColumn: string | null;
  readonly exchangeLetters: ReadonlyMap<string, string>;
}

/** Where the row's trade date comes from. */
export type TradedateSource =
  | { readonly line: number; readonly from: 'column'; readonly column: string }
  | { readonly line: number; readonly from: 'file'; readonly pattern: RegExp }
  | { readonly line: number; readonly from: 'hive' }
  | { readonly line: number; readonly from: 'time' };

export interface TimeSource {
  readonly line: number;
  readonly column: string;
  readonly form: TimeForm;
}

/** One `field` or `code` line. */
export interface FieldMapping {
  readonly line: number;
  readonly field: string;
  readonly column: string;
  /** `code` lines: source value → letter (empty when the source holds the letters). */
  readonly letters: ReadonlyMap<string, string>;
  readonly directive: 'field' | 'code';
}
