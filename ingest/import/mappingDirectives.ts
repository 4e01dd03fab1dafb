/**
 * The directives of an import mapping (docs/import-mappings.md), one parser each. A parser reads
 * its line's arguments into the mapping being built and throws at the first fault, naming the
 * line; the table says which directives may be given only once and how many arguments each
 * takes, so those checks are made in one place (parseMapping in mapping.ts, which splits the
 * text into lines, dispatches each through the table and checks what the lines say together).
 */
import { DATASETS, SCHEMAS, type Dataset } from '../../shared/schema.js';
import { SYMBOL_FORMS, type SymbolForm } from './sourceSymbol.js';
import { TIME_FORMS, type TimeForm } from './sourceTime.js';
import type { FieldMapping, SymbolSource, TimeSource, TradedateSource } from './mappingSources.js';

/** What the lines read so far say; the Mapping is assembled from it once every line is read. */
export interface MappingDraft {
  dataset: Dataset | null;
  datasetLine: number | null;
  delimiter: string;
  readonly nulls: string[];
  symbol: SymbolSource | null;
  tradedate: TradedateSource | null;
  time: TimeSource | null;
  priceScale: number;
  volumeUnit: 'shares' | 'lots';
  readonly zeroNull: Map<string, number>;
  readonly fields: FieldMapping[];
}

/** A mapping of no lines: the defaults a mapping states only when it differs from them. */
export function emptyDraft(): MappingDraft {
  return {
    dataset: null,
    datasetLine: null,
    delimiter: ',',
    nulls: [],
    symbol: null,
    tradedate: null,
    time: null,
    priceScale: 1,
    volumeUnit: 'shares',
    zeroNull: new Map(),
    fields: [],
  };
}

/** One directive line as its parser sees it. */
export interface DirectiveLine {
  readonly line: number;
  readonly args: readonly string[];
  /** Throws MappingError naming this line. */
  fail(detail: string): never;
}

export interface DirectiveParser {
  /** Given at most once in a mapping: a second line names the first. */
  readonly once: boolean;
  /** Least and most arguments, and how to write them (`DIRECTIVE takes USAGE` when the count is off). */
  readonly arity: readonly [min: number, max: number, usage: string];
  parse(at: DirectiveLine, draft: MappingDraft): void;
}

const DELIMITER_NAMES: Readonly<Record<string, string>> = { tab: '\t', comma: ',', semicolon: ';', pipe: '|', space: ' ' };

/** Every value field name of any dataset: a mapping without a dataset line is checked against these. */
const ANY_FIELD = new Set(DATASETS.flatMap((d) => SCHEMAS[d].valueFields.map((f) => f.name)));
const KEY_FIELDS = new Set(['symbol', 'tradedate', 'time']);

const DEFAULT_FILE_DATE = /(?<!\d)(\d{8})(?!\d)/;

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

function parseDataset(at: DirectiveLine, draft: MappingDraft): void {
  const [name] = at.args;
  if (!(DATASETS as readonly string[]).includes(name)) at.fail(`unknown dataset ${name} (${DATASETS.join(', ')})`);
  draft.dataset = name as Dataset;
  draft.datasetLine = at.line;
}

function parseDelimiter(at: DirectiveLine, draft: MappingDraft): void {
  const [given] = at.args;
  const d = DELIMITER_NAMES[given] ?? given;
  if (d.length !== 1 || d === '"' || d === '\n' || d === '\r')
    at.fail(`delimiter ${JSON.stringify(given)} is not one character other than a quote (or tab, comma, semicolon, pipe, space)`);
  draft.delimiter = d;
}

function parseNull(at: DirectiveLine, draft: MappingDraft): void {
  draft.nulls.push(...at.args);
}

/** A symbol line's `key=value` options: the form, and for `bare+exchange:COLUMN` its column and letters. */
function symbolOptions(at: DirectiveLine, options: readonly [string, string][]): Omit<SymbolSource, 'line' | 'column'> {
  let form: SymbolForm | null = null;
  let exchangeColumn: string | null = null;
  const letters = new Map<string, string>();
  for (const [key, value] of options) {
    if (key === 'form') {
      const plus = value.startsWith('bare+exchange:') ? value.slice('bare+exchange:'.length) : null;
      if (plus !== null) {
        if (plus === '') at.fail('form=bare+exchange: names no exchange column');
        form = 'bare+exchange';
        exchangeColumn = plus;
      } else if ((SYMBOL_FORMS as readonly string[]).includes(value) && value !== 'bare+exchange') form = value as SymbolForm;
      else at.fail(`unknown symbol form ${value} (prefixed, suffixed, bare, bare+exchange:COLUMN)`);
    } else {
      if (!/^(SH|SZ|BJ)$/i.test(value)) at.fail(`exchange value ${key}=${value}: the exchange must be SH, SZ or BJ`);
      letters.set(key, value.toUpperCase());
    }
  }
  if (form === null) return at.fail('symbol needs form=prefixed|suffixed|bare|bare+exchange:COLUMN');
  if (letters.size > 0 && form !== 'bare+exchange') at.fail('exchange values (1=SH …) only go with form=bare+exchange:COLUMN');
  return { form, exchangeColumn, exchangeLetters: letters };
}

function parseSymbol(at: DirectiveLine, draft: MappingDraft): void {
  const [column, ...rest] = at.args;
  const options = pairs(rest);
  if (options === null) return at.fail('symbol takes a column, then key=value options');
  draft.symbol = { line: at.line, column, ...symbolOptions(at, options) };
}

/** `tradedate file`'s `pattern=REGEX` (absent: the first 8-digit run of the name). */
function filePattern(at: DirectiveLine, option: string | undefined): RegExp {
  if (option === undefined) return DEFAULT_FILE_DATE;
  if (!option.startsWith('pattern=')) at.fail(`tradedate file takes pattern=REGEX, not ${option}`);
  let pattern: RegExp;
  try {
    pattern = new RegExp(option.slice('pattern='.length));
  } catch (e) {
    return at.fail(`pattern is not a regular expression: ${(e as Error).message}`);
  }
  // One capture group, so there is no doubt which part is the date.
  const groups = new RegExp(`${pattern.source}|`).exec('')!.length - 1;
  if (groups !== 1) at.fail(`pattern ${pattern.source} must have exactly one capture group (the 8-digit date), has ${groups}`);
  return pattern;
}

function parseTradedate(at: DirectiveLine, draft: MappingDraft): void {
  const [what, option] = at.args;
  const line = at.line;
  if (what === 'file') draft.tradedate = { line, from: 'file', pattern: filePattern(at, option) };
  else if (option !== undefined) at.fail(`tradedate ${what} takes nothing more`);
  else if (what === 'hive') draft.tradedate = { line, from: 'hive' };
  else if (what === 'time') draft.tradedate = { line, from: 'time' };
  else draft.tradedate = { line, from: 'column', column: what.startsWith('column=') ? what.slice('column='.length) : what };
}

function parseTime(at: DirectiveLine, draft: MappingDraft): void {
  const [column, option] = at.args;
  const form = option.startsWith('form=') ? option.slice('form='.length) : null;
  if (form === null || !(TIME_FORMS as readonly string[]).includes(form)) at.fail(`time form must be form=${TIME_FORMS.join('|')}, not ${option}`);
  draft.time = { line: at.line, column, form: form as TimeForm };
}

function parsePriceScale(at: DirectiveLine, draft: MappingDraft): void {
  const s = Number(at.args[0]);
  if (!Number.isSafeInteger(s) || s < 1) at.fail(`price_scale ${at.args[0]} is not a whole number ≥ 1`);
  draft.priceScale = s;
}

function parseVolumeUnit(at: DirectiveLine, draft: MappingDraft): void {
  const [unit] = at.args;
  if (unit !== 'lots' && unit !== 'shares') return at.fail(`volume_unit ${unit} is not lots or shares`);
  draft.volumeUnit = unit;
}

function parseZeroNull(at: DirectiveLine, draft: MappingDraft): void {
  for (const t of at.args) {
    const names = expandRange(t);
    if (names === null) return at.fail(`bad field range ${t}`);
    for (const name of names) {
      if (!ANY_FIELD.has(name)) at.fail(`unknown field ${name}`);
      draft.zeroNull.set(name, at.line);
    }
  }
}

/** `field` and `code` lines: one parser, the directive recorded for checkFields (mapping.ts). */
function fieldParser(directive: 'field' | 'code'): DirectiveParser['parse'] {
  return (at, draft) => {
    const [field, column, ...rest] = at.args;
    if (KEY_FIELDS.has(field)) at.fail(`${field} has its own line: ${field} COLUMN …`);
    if (!ANY_FIELD.has(field)) at.fail(`unknown field ${field}${draft.dataset === null ? '' : ` for ${draft.dataset}`}`);
    const prev = draft.fields.find((f) => f.field === field);
    if (prev) at.fail(`field ${field} is already mapped on line ${prev.line}`);
    const kv = pairs(rest);
    if (kv === null) return at.fail('code letters are written VALUE=LETTER, e.g. 1=B 2=S');
    const letters = new Map<string, string>();
    for (const [value, letter] of kv) {
      if (letters.has(value)) at.fail(`value ${value} is given two letters`);
      letters.set(value, letter);
    }
    draft.fields.push({ line: at.line, field, column, letters, directive });
  };
}

export type Directive = 'dataset' | 'delimiter' | 'null' | 'symbol' | 'tradedate' | 'time' | 'price_scale' | 'volume_unit' | 'zero_null' | 'field' | 'code';

/** Every directive, in the order the unknown-directive error lists them. */
export const DIRECTIVES: Readonly<Record<Directive, DirectiveParser>> = {
  dataset: { once: true, arity: [1, 1, `one of ${DATASETS.join(', ')}`], parse: parseDataset },
  delimiter: { once: true, arity: [1, 1, 'one character, or tab, comma, semicolon, pipe or space'], parse: parseDelimiter },
  null: { once: false, arity: [1, Infinity, 'the texts meaning null, e.g. null NA - ""'], parse: parseNull },
  symbol: {
    once: true,
    arity: [1, Infinity, 'a column, then form=prefixed|suffixed|bare|bare+exchange:COLUMN and, for an exchange column, VALUE=SH|SZ|BJ pairs'],
    parse: parseSymbol,
  },
  tradedate: { once: true, arity: [1, 2, 'a column, column=NAME, file [pattern=REGEX], hive or time'], parse: parseTradedate },
  time: { once: true, arity: [2, 2, `a column and form=${TIME_FORMS.join('|')}`], parse: parseTime },
  price_scale: { once: true, arity: [1, 1, 'a whole number ≥ 1 (10000 for prices stored ×10000)'], parse: parsePriceScale },
  volume_unit: { once: true, arity: [1, 1, 'lots or shares'], parse: parseVolumeUnit },
  zero_null: { once: false, arity: [1, Infinity, 'field names or ranges like bid1-10'], parse: parseZeroNull },
  field: { once: false, arity: [2, 2, 'a field name and a column'], parse: fieldParser('field') },
  code: { once: false, arity: [2, Infinity, 'a code field, a column and VALUE=LETTER pairs'], parse: fieldParser('code') },
};

/** Own keys only: a line starting `constructor` or `toString` is an unknown directive, not Object's. */
export function isDirective(word: string): word is Directive {
  return Object.hasOwn(DIRECTIVES, word);
}
