/**
 * Import mappings: how a desk's CSV or foreign-layout Parquet file says what the feed says
 * (api-contract: Import and mirror). A mapping is a line-oriented text file, one directive a
 * line, so every error can name the line to fix; the format is documented in
 * docs/import-mappings.md. `parseMapping` reads the text, `compileMapping` checks it against one
 * data file's columns and returns a per-row mapper whose output feeds `validateFields`
 * (ingest/staging/validate.ts), which makes the final checks as it does for the feed.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { hiveFolderOf } from './hiveFolder.js';
import { DATASETS, SCHEMAS, type Dataset, type FieldDef } from '../../shared/schema.js';
import { formatIndexTime, formatLevel2Time, isValidDateText } from '../../shared/timeFormat.js';
import { symbolReader, SYMBOL_FORMS, type SymbolForm } from './sourceSymbol.js';
import { timeFormHasDate, timeReader, TIME_FORMS, type TimeForm } from './sourceTime.js';
import { fieldUnit, NullTexts, valueWriter, type ValueWriter } from './sourceValue.js';

/** A mapping that cannot be read, or does not fit a data file: `mapping FILE:LINE: detail`. */
export class MappingError extends Error {
  override name = 'MappingError';
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly detail: string,
  ) {
    super(`mapping ${file}${line === null ? '' : `:${line}`}: ${detail}`);
  }
}

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

export interface Mapping {
  readonly path: string;
  readonly dataset: Dataset | null;
  /** The `dataset` line, for errors about fields that dataset lacks. */
  readonly datasetLine: number | null;
  readonly delimiter: string;
  /** Texts meaning null in every column, besides the empty text (always null). */
  readonly nulls: readonly string[];
  readonly symbol: SymbolSource;
  readonly tradedate: TradedateSource;
  readonly time: TimeSource;
  /** Prices are stored as whole multiples of 1/priceScale yuan; 1 means yuan. */
  readonly priceScale: number;
  readonly volumeUnit: 'shares' | 'lots';
  /** Fields whose zero means absent, each with the line that named it. */
  readonly zeroNull: ReadonlyMap<string, number>;
  readonly fields: readonly FieldMapping[];
}

/**
 * One source row as the feed's validation takes it (validateFields): a mapping produces
 * canonical text and numbers; a file in the lake's own columns (lakeColumns.ts) passes its
 * cells as they are, for validation to judge.
 */
export interface MappedRow {
  readonly symbol: unknown;
  readonly tradedate: unknown;
  readonly time: unknown;
  readonly values: readonly unknown[];
}

export interface RowMapper {
  readonly dataset: Dataset;
  /**
   * The trade date of every row of the file when its path names it (a file-name pattern, a
   * hive `date=` folder), else null: the import seals a day once no later file can hold it.
   */
  readonly fileDate: string | null;
  /**
   * One row's cells in the data file's column order (strings for CSV; number, bigint, string,
   * Date or null for Parquet) → the row for validateFields, or why it is rejected.
   */
  map(cells: ArrayLike<unknown>): MappedRow | string;
}

// ---------------------------------------------------------------------------------------------
// Reading the text

/**
 * A line's tokens: runs of non-blank characters; `"…"` quotes blanks and `#` into a token (the
 * quotes themselves are dropped, so `""` is the empty token); `#` at the start of a token begins
 * a comment. Null on an unclosed quote.
 */
function tokenize(line: string): string[] | null {
  const out: string[] = [];
  const n = line.length;
  let i = 0;
  for (;;) {
    while (i < n && (line[i] === ' ' || line[i] === '\t' || line[i] === '\r')) i++;
    if (i >= n || line[i] === '#') return out;
    let tok = '';
    while (i < n && line[i] !== ' ' && line[i] !== '\t' && line[i] !== '\r') {
      if (line[i] === '"') {
        const end = line.indexOf('"', i + 1);
        if (end < 0) return null;
        tok += line.slice(i + 1, end);
        i = end + 1;
      } else tok += line[i++];
    }
    out.push(tok);
  }
}

const DELIMITER_NAMES: Readonly<Record<string, string>> = { tab: '\t', comma: ',', semicolon: ';', pipe: '|', space: ' ' };

/** Every value field name of any dataset: a mapping without a dataset line is checked against these. */
const ANY_FIELD = new Set(DATASETS.flatMap((d) => SCHEMAS[d].valueFields.map((f) => f.name)));
const KEY_FIELDS = new Set(['symbol', 'tradedate', 'time']);

/** `bid1-10` → bid1 … bid10; a plain name → itself. */
function expandRange(token: string): string[] | null {
  const m = /^([a-z_]*[a-z_])(\d+)-(\d+)$/.exec(token);
  if (!m) return [token];
  const from = +m[2];
  const to = +m[3];
  if (from > to || to - from > 100) return null;
  return Array.from({ length: to - from + 1 }, (_, k) => `${m[1]}${from + k}`);
}

/** `key=value` tokens → pairs; null when a token has no `=`. */
function pairs(tokens: readonly string[]): [string, string][] | null {
  const out: [string, string][] = [];
  for (const t of tokens) {
    const eq = t.indexOf('=');
    if (eq <= 0) return null;
    out.push([t.slice(0, eq), t.slice(eq + 1)]);
  }
  return out;
}

function fieldOf(dataset: Dataset, name: string): FieldDef | undefined {
  return SCHEMAS[dataset].valueFields.find((f) => f.name === name);
}

const DEFAULT_FILE_DATE = /(?<!\d)(\d{8})(?!\d)/;

/** Reads a mapping's text; `path` names it in errors. Throws MappingError at the first fault. */
export function parseMapping(text: string, path: string): Mapping {
  const fail = (line: number | null, detail: string): never => {
    throw new MappingError(path, line, detail);
  };
  let dataset: Dataset | null = null;
  let datasetLine: number | null = null;
  let delimiter = ',';
  const nulls: string[] = [];
  let symbol: SymbolSource | null = null;
  let tradedate: TradedateSource | null = null;
  let time: TimeSource | null = null;
  let priceScale = 1;
  let volumeUnit: 'shares' | 'lots' = 'shares';
  const zeroNull = new Map<string, number>();
  const fields: FieldMapping[] = [];
  const seen = new Map<string, number>(); // single-use directive → its line

  const lines = text.split('\n');
  for (let k = 0; k < lines.length; k++) {
    const ln = k + 1;
    const toks = tokenize(lines[k]);
    if (toks === null) fail(ln, 'unclosed quote');
    if (toks!.length === 0) continue;
    const [directive, ...args] = toks!;
    const once = () => {
      const first = seen.get(directive);
      if (first !== undefined) fail(ln, `${directive} is already given on line ${first}`);
      seen.set(directive, ln);
    };
    const arity = (min: number, max: number, usage: string) => {
      if (args.length < min || args.length > max) fail(ln, `${directive} takes ${usage}`);
    };
    switch (directive) {
      case 'dataset': {
        once();
        arity(1, 1, `one of ${DATASETS.join(', ')}`);
        if (!(DATASETS as readonly string[]).includes(args[0])) fail(ln, `unknown dataset ${args[0]} (${DATASETS.join(', ')})`);
        dataset = args[0] as Dataset;
        datasetLine = ln;
        break;
      }
      case 'delimiter': {
        once();
        arity(1, 1, 'one character, or tab, comma, semicolon, pipe or space');
        const d = DELIMITER_NAMES[args[0]] ?? args[0];
        if (d.length !== 1 || d === '"' || d === '\n' || d === '\r')
          fail(ln, `delimiter ${JSON.stringify(args[0])} is not one character other than a quote (or tab, comma, semicolon, pipe, space)`);
        delimiter = d;
        break;
      }
      case 'null': {
        arity(1, Infinity, 'the texts meaning null, e.g. null NA - ""');
        nulls.push(...args);
        break;
      }
      case 'symbol': {
        once();
        arity(1, Infinity, 'a column, then form=prefixed|suffixed|bare|bare+exchange:COLUMN and, for an exchange column, VALUE=SH|SZ|BJ pairs');
        const opts = pairs(args.slice(1));
        if (opts === null) fail(ln, 'symbol takes a column, then key=value options');
        let form: SymbolForm | null = null;
        let exchangeColumn: string | null = null;
        const letters = new Map<string, string>();
        for (const [key, value] of opts!) {
          if (key === 'form') {
            const plus = value.startsWith('bare+exchange:') ? value.slice('bare+exchange:'.length) : null;
            if (plus !== null) {
              if (plus === '') fail(ln, 'form=bare+exchange: names no exchange column');
              form = 'bare+exchange';
              exchangeColumn = plus;
            } else if ((SYMBOL_FORMS as readonly string[]).includes(value) && value !== 'bare+exchange') form = value as SymbolForm;
            else fail(ln, `unknown symbol form ${value} (prefixed, suffixed, bare, bare+exchange:COLUMN)`);
          } else {
            if (!/^(SH|SZ|BJ)$/i.test(value)) fail(ln, `exchange value ${key}=${value}: the exchange must be SH, SZ or BJ`);
            letters.set(key, value.toUpperCase());
          }
        }
        if (form === null) fail(ln, 'symbol needs form=prefixed|suffixed|bare|bare+exchange:COLUMN');
        if (letters.size > 0 && form !== 'bare+exchange') fail(ln, 'exchange values (1=SH …) only go with form=bare+exchange:COLUMN');
        symbol = { line: ln, column: args[0], form: form!, exchangeColumn, exchangeLetters: letters };
        break;
      }
      case 'tradedate': {
        once();
        arity(1, 2, 'a column, column=NAME, file [pattern=REGEX], hive or time');
        const [what, opt] = args;
        if (what === 'file') {
          let pattern = DEFAULT_FILE_DATE;
          if (opt !== undefined) {
            if (!opt.startsWith('pattern=')) fail(ln, `tradedate file takes pattern=REGEX, not ${opt}`);
            try {
              pattern = new RegExp(opt.slice('pattern='.length));
            } catch (e) {
              fail(ln, `pattern is not a regular expression: ${(e as Error).message}`);
            }
            // One capture group, so there is no doubt which part is the date.
            const groups = new RegExp(`${pattern.source}|`).exec('')!.length - 1;
            if (groups !== 1) fail(ln, `pattern ${pattern.source} must have exactly one capture group (the 8-digit date), has ${groups}`);
          }
          tradedate = { line: ln, from: 'file', pattern };
        } else if (opt !== undefined) fail(ln, `tradedate ${what} takes nothing more`);
        else if (what === 'hive') tradedate = { line: ln, from: 'hive' };
        else if (what === 'time') tradedate = { line: ln, from: 'time' };
        else tradedate = { line: ln, from: 'column', column: what.startsWith('column=') ? what.slice('column='.length) : what };
        break;
      }
      case 'time': {
        once();
        arity(2, 2, `a column and form=${TIME_FORMS.join('|')}`);
        const form = args[1].startsWith('form=') ? args[1].slice('form='.length) : null;
        if (form === null || !(TIME_FORMS as readonly string[]).includes(form)) fail(ln, `time form must be form=${TIME_FORMS.join('|')}, not ${args[1]}`);
        time = { line: ln, column: args[0], form: form as TimeForm };
        break;
      }
      case 'price_scale': {
        once();
        arity(1, 1, 'a whole number ≥ 1 (10000 for prices stored ×10000)');
        const s = Number(args[0]);
        if (!Number.isSafeInteger(s) || s < 1) fail(ln, `price_scale ${args[0]} is not a whole number ≥ 1`);
        priceScale = s;
        break;
      }
      case 'volume_unit': {
        once();
        arity(1, 1, 'lots or shares');
        if (args[0] !== 'lots' && args[0] !== 'shares') fail(ln, `volume_unit ${args[0]} is not lots or shares`);
        volumeUnit = args[0] as 'lots' | 'shares';
        break;
      }
      case 'zero_null': {
        arity(1, Infinity, 'field names or ranges like bid1-10');
        for (const t of args) {
          const names = expandRange(t);
          if (names === null) fail(ln, `bad field range ${t}`);
          for (const name of names!) {
            if (!ANY_FIELD.has(name)) fail(ln, `unknown field ${name}`);
            zeroNull.set(name, ln);
          }
        }
        break;
      }
      case 'field':
      case 'code': {
        if (directive === 'field') arity(2, 2, 'a field name and a column');
        else arity(2, Infinity, 'a code field, a column and VALUE=LETTER pairs');
        const [field, column, ...rest] = args;
        if (KEY_FIELDS.has(field)) fail(ln, `${field} has its own line: ${field} COLUMN …`);
        if (!ANY_FIELD.has(field)) fail(ln, `unknown field ${field}${dataset === null ? '' : ` for ${dataset}`}`);
        const prev = fields.find((f) => f.field === field);
        if (prev) fail(ln, `field ${field} is already mapped on line ${prev.line}`);
        const kv = pairs(rest);
        if (kv === null) fail(ln, 'code letters are written VALUE=LETTER, e.g. 1=B 2=S');
        const letters = new Map<string, string>();
        for (const [value, letter] of kv!) {
          if (letters.has(value)) fail(ln, `value ${value} is given two letters`);
          letters.set(value, letter);
        }
        fields.push({ line: ln, field, column, letters, directive });
        break;
      }
      default:
        fail(ln, `unknown directive ${directive} (dataset, delimiter, null, symbol, tradedate, time, price_scale, volume_unit, zero_null, field, code)`);
    }
  }

  if (symbol === null) fail(null, 'has no symbol line');
  if (time === null) fail(null, 'has no time line');
  const t = time!;
  if (tradedate === null) {
    // A time that carries its date needs no other source of it.
    if (timeFormHasDate(t.form)) tradedate = { line: t.line, from: 'time' };
    else fail(null, 'has no tradedate line (a column, file [pattern=REGEX], hive, or time with a datetime or epoch time)');
  }
  const td = tradedate!;
  if (td.from === 'time' && !timeFormHasDate(t.form))
    fail(td.line, `tradedate time needs a time form that carries the date (datetime, epoch_ms, epoch_us), not ${t.form}`);
  const mapping: Mapping = {
    path,
    dataset,
    datasetLine,
    delimiter,
    nulls,
    symbol: symbol!,
    tradedate: td,
    time: t,
    priceScale,
    volumeUnit,
    zeroNull,
    fields,
  };
  if (dataset !== null) checkFields(mapping, dataset);
  return mapping;
}

/** The fields' names and letters against one dataset (the mapping's, or the one the CLI gives). */
function checkFields(m: Mapping, dataset: Dataset): void {
  for (const f of m.fields) {
    const def = fieldOf(dataset, f.field);
    if (def === undefined) throw new MappingError(m.path, f.line, `unknown field ${f.field} for ${dataset}`);
    if (f.directive === 'code') {
      if (def.type !== 'code') throw new MappingError(m.path, f.line, `${f.field} is not a code field of ${dataset}; use field`);
      for (const [value, letter] of f.letters) {
        if (letter.length !== 1 || !def.codes!.includes(letter)) {
          throw new MappingError(m.path, f.line, `${value}=${letter}: ${f.field} letters are ${[...def.codes!].join(', ')}`);
        }
      }
    }
  }
  for (const [name, line] of m.zeroNull) {
    const def = fieldOf(dataset, name);
    if (def === undefined) throw new MappingError(m.path, line, `unknown field ${name} for ${dataset}`);
    if (def.type === 'code') throw new MappingError(m.path, line, `${name} is a code field; zero_null is for numbers`);
  }
}

/** readFileSync + parseMapping; a file that cannot be read is a MappingError without a line. */
export function readMapping(path: string): Mapping {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new MappingError(path, null, code === 'ENOENT' ? 'no such file' : `cannot be read: ${(e as Error).message}`);
  }
  return parseMapping(text, path);
}

// ---------------------------------------------------------------------------------------------
// Compiling against a data file

/** The date named by a cell of a tradedate column, as YYYYMMDD, or null. */
function dateOfCell(cell: unknown): string | null {
  if (typeof cell === 'string') {
    let d: string;
    if (cell.length === 8) d = cell;
    else if (cell.length >= 10 && (cell[4] === '-' || cell[4] === '/') && cell[7] === cell[4] && (cell.length === 10 || cell[10] === ' ' || cell[10] === 'T')) {
      d = cell.slice(0, 4) + cell.slice(5, 7) + cell.slice(8, 10);
    } else return null;
    return isValidDateText(d) ? d : null;
  }
  if (typeof cell === 'number' || typeof cell === 'bigint') return dateOfCell(String(cell));
  // hyparquet gives a DATE column as a Date at UTC midnight of the day.
  if (cell instanceof Date && Number.isFinite(cell.getTime())) return dateOfCell(cell.toISOString().slice(0, 10));
  return null;
}

/** The date a data file's path names, by the mapping's tradedate line; throws MappingError. */
function dateOfPath(m: Mapping, td: TradedateSource & { from: 'file' | 'hive' }, dataFile: string): string {
  if (td.from === 'file') {
    const name = basename(dataFile);
    const hit = td.pattern.exec(name);
    const d = hit?.[1];
    if (d === undefined) throw new MappingError(m.path, td.line, `file name ${name} does not match pattern ${td.pattern.source}`);
    if (!isValidDateText(d)) throw new MappingError(m.path, td.line, `file name ${name}: ${d} is not a YYYYMMDD date`);
    return d;
  }
  const hive = hiveFolderOf(dataFile);
  if (hive === null) throw new MappingError(m.path, td.line, `${dataFile} is in no date=YYYYMMDD folder`);
  if (hive.date === null) throw new MappingError(m.path, td.line, `folder ${hive.folder} of ${dataFile} names no valid date`);
  return hive.date;
}

/**
 * Checks the mapping against a data file's columns and compiles it into a per-row mapper.
 * `dataset` (the CLI's `--dataset`) overrides the mapping's. Throws MappingError: no dataset,
 * a field the dataset lacks, a mapped column missing from the file, no date in the file's path.
 */
export function compileMapping(mapping: Mapping, columns: readonly string[], dataFile: string, dataset?: Dataset): RowMapper {
  const ds = dataset ?? mapping.dataset;
  if (ds === null) throw new MappingError(mapping.path, null, 'names no dataset: add a dataset line or pass --dataset');
  if (ds !== mapping.dataset) checkFields(mapping, ds);
  const schema = SCHEMAS[ds];

  // Exact names first; a header's stray blanks or different case still find the column when
  // that leaves no doubt.
  const exact = new Map<string, number>();
  columns.forEach((c, i) => {
    if (!exact.has(c)) exact.set(c, i);
  });
  const loose = new Map<string, number | null>();
  columns.forEach((c, i) => {
    const k = c.trim().toLowerCase();
    loose.set(k, loose.has(k) ? null : i);
  });
  const columnOf = (name: string, line: number, what: string): number => {
    const i = exact.get(name) ?? loose.get(name.trim().toLowerCase());
    if (i === undefined || i === null) throw new MappingError(mapping.path, line, `column ${name} (${what}) is not in ${dataFile}`);
    return i;
  };

  const sym = mapping.symbol;
  const symCol = columnOf(sym.column, sym.line, 'symbol');
  const exCol = sym.exchangeColumn === null ? -1 : columnOf(sym.exchangeColumn, sym.line, 'symbol exchange');
  const readSymbol = symbolReader(sym.form, schema.symbols, sym.exchangeLetters);

  const timeCol = columnOf(mapping.time.column, mapping.time.line, 'time');
  const readTime = timeReader(mapping.time.form);

  const td = mapping.tradedate;
  const fixedDate = td.from === 'file' || td.from === 'hive' ? dateOfPath(mapping, td, dataFile) : null;
  const dateCol = td.from === 'column' ? columnOf(td.column, td.line, 'tradedate') : -1;
  const dateFromTime = td.from === 'time';

  const nulls = new NullTexts(mapping.nulls);
  const cols: number[] = [];
  const writers: ValueWriter[] = [];
  for (const f of mapping.fields) {
    const def = fieldOf(ds, f.field)!;
    cols.push(columnOf(f.column, f.line, `field ${f.field}`));
    writers.push(
      valueWriter({
        field: def,
        position: schema.valueFields.indexOf(def),
        nulls,
        priceScale: mapping.priceScale,
        lots: mapping.volumeUnit === 'lots' && fieldUnit(def) === 'volume',
        zeroNull: mapping.zeroNull.has(f.field),
        letters: f.letters,
      }),
    );
  }
  const width = schema.valueFields.length;
  const nWriters = writers.length;
  const level2Time = schema.timeForm === 'level2';

  let lastDateCell: unknown = undefined;
  let lastDate: string | null = null;

  return {
    dataset: ds,
    fileDate: fixedDate,
    map(cells: ArrayLike<unknown>): MappedRow | string {
      const s = readSymbol(cells[symCol], exCol < 0 ? undefined : cells[exCol]);
      if (!s.ok) return s.reason;
      const t = readTime(cells[timeCol]);
      if (typeof t === 'string') return t;
      let tradedate: string;
      if (fixedDate !== null) tradedate = fixedDate;
      else if (dateFromTime) tradedate = t.date!;
      else {
        const cell = cells[dateCol];
        if (cell !== lastDateCell || lastDate === null) {
          lastDateCell = cell;
          lastDate = dateOfCell(cell);
        }
        if (lastDate === null) {
          return cell === null || cell === undefined || cell === ''
            ? 'tradedate is missing'
            : `tradedate ${typeof cell === 'string' ? JSON.stringify(cell.slice(0, 40)) : String(cell)} is not YYYYMMDD or YYYY-MM-DD`;
        }
        tradedate = lastDate;
      }
      if (t.date !== null && t.date !== tradedate) return `time date ${t.date} does not match tradedate ${tradedate}`;
      const values: (number | string | null)[] = new Array(width).fill(null);
      for (let k = 0; k < nWriters; k++) {
        const reason = writers[k](cells[cols[k]], values);
        if (reason !== null) return reason;
      }
      return {
        symbol: s.symbol,
        tradedate,
        time: level2Time ? formatLevel2Time(t.ms) : formatIndexTime(tradedate, t.ms),
        values,
      };
    },
  };
}
