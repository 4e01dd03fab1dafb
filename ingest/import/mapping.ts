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
import { SCHEMAS, type Dataset, type FieldDef } from '../../shared/schema.js';
import { formatIndexTime, formatLevel2Time, isValidDateText } from '../../shared/timeFormat.js';
import { DIRECTIVES, emptyDraft, isDirective, type Directive, type MappingDraft } from './mappingDirectives.js';
import type { FieldMapping, SymbolSource, TimeSource, TradedateSource } from './mappingSources.js';

export type { FieldMapping, SymbolSource, TimeSource, TradedateSource };
import { symbolReader } from './sourceSymbol.js';
import { timeFormHasDate, timeReader } from './sourceTime.js';
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

function fieldOf(dataset: Dataset, name: string): FieldDef | undefined {
  return SCHEMAS[dataset].valueFields.find((f) => f.name === name);
}

/** Reads a mapping's text; `path` names it in errors. Throws MappingError at the first fault. */
export function parseMapping(text: string, path: string): Mapping {
  const draft = emptyDraft();
  const seen = new Map<Directive, number>(); // single-use directive → its line
  text.split('\n').forEach((raw, k) => readLine(raw, { path, line: k + 1 }, draft, seen));
  return assemble(draft, path);
}

/** One line through the directive table (mappingDirectives.ts), after the checks all lines share. */
function readLine(raw: string, where: { path: string; line: number }, draft: MappingDraft, seen: Map<Directive, number>): void {
  const fail = (detail: string): never => {
    throw new MappingError(where.path, where.line, detail);
  };
  const tokens = tokenize(raw);
  if (tokens === null) return fail('unclosed quote');
  if (tokens.length === 0) return;
  const [directive, ...args] = tokens;
  if (!isDirective(directive)) return fail(`unknown directive ${directive} (${Object.keys(DIRECTIVES).join(', ')})`);
  const parser = DIRECTIVES[directive];
  if (parser.once) {
    const first = seen.get(directive);
    if (first !== undefined) fail(`${directive} is already given on line ${first}`);
    seen.set(directive, where.line);
  }
  const [min, max, usage] = parser.arity;
  if (args.length < min || args.length > max) fail(`${directive} takes ${usage}`);
  parser.parse({ line: where.line, args, fail }, draft);
}

/** What the lines say together: the lines a mapping needs, the date's source, the fields. */
function assemble(draft: MappingDraft, path: string): Mapping {
  const fail = (line: number | null, detail: string): never => {
    throw new MappingError(path, line, detail);
  };
  const { symbol, time } = draft;
  if (symbol === null) return fail(null, 'has no symbol line');
  if (time === null) return fail(null, 'has no time line');
  // A time that carries its date needs no other source of it.
  const tradedate: TradedateSource =
    draft.tradedate ??
    (timeFormHasDate(time.form)
      ? { line: time.line, from: 'time' }
      : fail(null, 'has no tradedate line (a column, file [pattern=REGEX], hive, or time with a datetime or epoch time)'));
  if (tradedate.from === 'time' && !timeFormHasDate(time.form))
    fail(tradedate.line, `tradedate time needs a time form that carries the date (datetime, epoch_ms, epoch_us), not ${time.form}`);
  const { dataset, datasetLine, delimiter, nulls, priceScale, volumeUnit, zeroNull, fields } = draft;
  const mapping: Mapping = { path, dataset, datasetLine, delimiter, nulls, symbol, tradedate, time, priceScale, volumeUnit, zeroNull, fields };
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
