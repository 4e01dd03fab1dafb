/**
 * Value cells of an imported row → the feed's values (api-contract: The feed): prices divided
 * by the mapping's price scale, volumes from lots to shares, code fields through their letter
 * map, everything else as is. Exactness over leniency: a price off the scale's grid or a
 * volume that is not a whole number of shares rejects the row — rounding would store a number
 * the source never said.
 */
import { SCHEMAS, type Dataset, type FieldDef } from '../../shared/schema.js';

/**
 * How a field's source value becomes the stored one. `price`: yuan (or index points) after the
 * price scale; `volume`: shares after the volume unit; `code`: a letter; `plain`: as is
 * (amounts in yuan, ids, counts, percentages).
 */
export type FieldUnit = 'price' | 'volume' | 'code' | 'plain';

const PRICE = /^(open|high|low|close|pre_close|price|bid\d+|ask\d+)$/;
const VOLUME = /^(volume|vol|bid_vol\d+|ask_vol\d+)$/;

/** The unit of a value field of `dataset`, by its name in shared/schema.ts. */
export function fieldUnit(field: FieldDef): FieldUnit {
  if (field.type === 'code') return 'code';
  if (PRICE.test(field.name)) return 'price';
  if (VOLUME.test(field.name)) return 'volume';
  return 'plain';
}

/** The value fields of `dataset` that have `unit`, by name: for the documentation and its test. */
export function fieldsOfUnit(dataset: Dataset, unit: FieldUnit): string[] {
  return SCHEMAS[dataset].valueFields.filter((f) => fieldUnit(f) === unit).map((f) => f.name);
}

/**
 * The texts that mean null in a column besides the empty text (always null: `+''` is 0, and an
 * empty cell never meant zero).
 */
export class NullTexts {
  private readonly texts: ReadonlySet<string>;
  /** True when some null text reads as a number (`-1`, `0`…): then every numeric text is looked up too. */
  readonly numeric: boolean;

  constructor(texts: readonly string[]) {
    this.texts = new Set(texts.filter((t) => t !== ''));
    this.numeric = [...this.texts].some((t) => t.trim() !== '' && Number.isFinite(+t));
  }

  has(text: string): boolean {
    return this.texts.has(text);
  }
}

/**
 * A cell as a number: null when it means null, NaN when it is no number. Text goes through
 * `+s` (JavaScript's number grammar, as JSON.parse reads the feed's numbers); the costly set
 * lookup only runs for text that is no number, unless a null text is itself numeric. A NaN
 * double (pandas' missing value) is null; a bigint (Parquet INT64) counts when exact.
 */
export function cellNumber(cell: unknown, nulls: NullTexts): number | null {
  if (typeof cell === 'string') {
    if (cell.length === 0) return null;
    const x = +cell;
    if (x === x) {
      if (x === 0 && cell.trim() === '') return null; // `+'  '` is 0 too
      if (nulls.numeric && nulls.has(cell)) return null;
      return x;
    }
    return nulls.has(cell) ? null : NaN;
  }
  if (typeof cell === 'number') return cell === cell ? cell : null;
  if (cell === null || cell === undefined) return null;
  if (typeof cell === 'bigint') {
    const x = Number(cell);
    return Number.isSafeInteger(x) ? x : NaN;
  }
  return NaN;
}

const show = (cell: unknown): string => (typeof cell === 'string' ? JSON.stringify(cell.slice(0, 40)) : String(cell));

/** Text of a numeric source value as a reason quotes it: `102300.5`, not `"102300.5"`. */
const showNumber = (cell: unknown): string => (typeof cell === 'string' ? cell.slice(0, 40) : String(cell));

/**
 * Writes one field's value of a row into `out` (at the field's position) and answers null, or
 * answers why the row is rejected.
 */
export type ValueWriter = (cell: unknown, out: (number | string | null)[]) => string | null;

export interface ValueRule {
  readonly field: FieldDef;
  /** The field's position in the dataset's value fields. */
  readonly position: number;
  readonly nulls: NullTexts;
  /** Prices: the source's integer multiple of a yuan (1: already yuan). */
  readonly priceScale: number;
  /** Volumes: true when the source counts lots of 100 shares. */
  readonly lots: boolean;
  /** A zero means absent (an empty book level): stored as null. */
  readonly zeroNull: boolean;
  /** Code fields: source value → letter; null or empty when the source holds the letters. */
  readonly letters: ReadonlyMap<string, string> | null;
}

/** The writer of one mapped field. */
export function valueWriter(rule: ValueRule): ValueWriter {
  const { field, position: i, nulls, priceScale, lots, zeroNull } = rule;
  const name = field.name;
  const unit = fieldUnit(field);
  const notNumber = (cell: unknown) => `${name} ${show(cell)} is not a number`;

  if (unit === 'code') {
    const letters = rule.letters !== null && rule.letters.size > 0 ? rule.letters : null;
    const codes = field.codes ?? '';
    return (cell, out) => {
      if (cell === null || cell === undefined || cell === '') {
        out[i] = null;
        return null;
      }
      const text = typeof cell === 'string' ? cell : String(cell);
      if (nulls.has(text)) {
        out[i] = null;
        return null;
      }
      if (letters === null) {
        out[i] = text; // validateFields checks the letter
        return null;
      }
      const letter = letters.get(text);
      if (letter !== undefined) out[i] = letter;
      else if (text.length === 1 && codes.includes(text)) out[i] = text;
      else return `${name} ${show(cell)} is not ${[...codes].join('/')} and the mapping gives it no letter`;
      return null;
    };
  }

  if (unit === 'price' && priceScale !== 1) {
    return (cell, out) => {
      let x = cellNumber(cell, nulls);
      if (x !== null) {
        if (!Number.isFinite(x)) return notNumber(cell);
        // The source stores whole multiples of 1/scale yuan; anything else is a damaged or
        // misdescribed value, and no rounding of it is the price the source meant.
        if (!Number.isInteger(x)) return `${name} price ${showNumber(cell)} is off the ×${priceScale} grid`;
        // For an integer numerator, one IEEE division is the double nearest the decimal
        // quotient: 102300 / 10000 === 10.23.
        x = x / priceScale;
        if (zeroNull && x === 0) x = null;
      }
      out[i] = x;
      return null;
    };
  }

  if (unit === 'volume' && lots) {
    return (cell, out) => {
      let x = cellNumber(cell, nulls);
      if (x !== null) {
        if (!Number.isFinite(x)) return notNumber(cell);
        // Decimal lots (12.34) are whole shares (1234) once multiplied, up to the binary
        // representation's error (12.34 * 100 is 1233.9999999999998); a remainder larger
        // than that error is a fraction of a share, which no source means.
        const y = x * 100;
        const r = Math.round(y);
        if (Math.abs(y - r) >= 1e-6 * Math.max(1, Math.abs(y))) return `${name} volume ${showNumber(cell)} lots is not a whole number of shares`;
        x = r === 0 && zeroNull ? null : r + 0; // + 0: no -0
      }
      out[i] = x;
      return null;
    };
  }

  return (cell, out) => {
    let x = cellNumber(cell, nulls);
    if (x !== null) {
      if (!Number.isFinite(x)) return notNumber(cell);
      if (zeroNull && x === 0) x = null;
    }
    out[i] = x;
    return null;
  };
}
