/**
 * Import mappings (docs/import-mappings.md): the text format and its errors, each time and
 * symbol form, where the date comes from, the exactness rules for scaled prices and lots, null
 * texts, code letters, and the shipped mappings against their documented headers. Expected
 * answers are worked out by hand in the comments, not taken from the code under test.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileMapping, MappingError, parseMapping, readMapping, type MappedRow, type RowMapper } from '../../../ingest/import/mapping.js';
import { fieldsOfUnit } from '../../../ingest/import/sourceValue.js';
import { validateFields } from '../../../ingest/staging/validate.js';
import { SCHEMAS, type Dataset } from '../../../shared/schema.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const MAP = 'maps/x.map';

function mapper(text: string, columns: readonly string[], dataFile = 'data.csv', dataset?: Dataset): RowMapper {
  return compileMapping(parseMapping(text, MAP), columns, dataFile, dataset);
}

function mapped(m: RowMapper, cells: unknown[]): MappedRow {
  const r = m.map(cells);
  if (typeof r === 'string') throw new Error(`expected a row, got the rejection "${r}"`);
  return r;
}

function rejected(m: RowMapper, cells: unknown[]): string {
  const r = m.map(cells);
  if (typeof r !== 'string') throw new Error(`expected a rejection, got ${JSON.stringify(r)}`);
  return r;
}

/** The value of `field` in a mapped row. */
function value(row: MappedRow, field: string, dataset: Dataset = 'level2'): unknown {
  return row.values[SCHEMAS[dataset].valueFields.findIndex((f) => f.name === field)];
}

function mappingError(fn: () => unknown): MappingError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MappingError) return e;
    throw e;
  }
  throw new Error('expected a MappingError');
}

/** A level-2 mapping of columns S, D, T and the given extra lines; `time` names the form. */
function l2(timeForm: string, extra = ''): string {
  return `dataset level2\nsymbol S form=suffixed\ntradedate D\ntime T form=${timeForm}\n${extra}`;
}
const STD = ['S', 'D', 'T', 'V'];

// ---------------------------------------------------------------------------------------------
const times = suite('time forms');

times('hhmmssmmm: integer and text, with or without the leading zero', () => {
  const m = mapper(l2('hhmmssmmm'), STD);
  for (const t of [93000120, '93000120', '093000120', 93000120n]) {
    assert.is(mapped(m, ['600000.SH', '20250102', t]).time, '093000120', String(t));
  }
  assert.is(mapped(m, ['600000.SH', '20250102', 145959999]).time, '145959999');
  assert.is(rejected(m, ['600000.SH', '20250102', '096000000']), 'time "096000000" is not HHMMSSmmm'); // minute 60
  assert.is(rejected(m, ['600000.SH', '20250102', '09:30:00']), 'time "09:30:00" is not HHMMSSmmm');
  assert.is(rejected(m, ['600000.SH', '20250102', '']), 'time "" is not HHMMSSmmm');
});

times('hhmmss: whole seconds', () => {
  const m = mapper(l2('hhmmss'), STD);
  assert.is(mapped(m, ['600000.SH', '20250102', 93003]).time, '093003000');
  assert.is(mapped(m, ['600000.SH', '20250102', '150000']).time, '150000000');
});

times('hh:mm:ss.fff: fraction of 0 to many digits, digits past the millisecond dropped', () => {
  const m = mapper(l2('hh:mm:ss.fff'), STD);
  const t = (text: string) => mapped(m, ['600000.SH', '20250102', text]).time;
  assert.is(t('09:30:00.12'), '093000120');
  assert.is(t('09:30:00.1'), '093000100');
  assert.is(t('09:30:00.123'), '093000123');
  assert.is(t('09:30:00.123999'), '093000123');
  assert.is(t('9:30:00'), '093000000');
  assert.is(t('14:57:03'), '145703000');
  assert.is(rejected(m, ['600000.SH', '20250102', '09:30']), 'time "09:30" is not HH:MM:SS[.fff]');
  assert.is(rejected(m, ['600000.SH', '20250102', '09:30:00.']), 'time "09:30:00." is not HH:MM:SS[.fff]');
  assert.is(rejected(m, ['600000.SH', '20250102', '24:00:00']), 'time "24:00:00" is not HH:MM:SS[.fff]');
});

times('epoch_ms: a UTC instant shown in Shanghai (+08:00), the date from it', () => {
  const m = mapper('dataset level2\nsymbol S form=suffixed\ntradedate time\ntime T form=epoch_ms\n', ['S', 'T']);
  // 1700000000 s is 2023-11-14 22:13:20 UTC, which is 2023-11-15 06:13:20 in Shanghai.
  const a = mapped(m, ['600000.SH', 1700000000000]);
  assert.is(a.tradedate, '20231115');
  assert.is(a.time, '061320000');
  // 2025-01-01T00:00:00Z is 1735689600 s; a day later plus 01:30:03.120 (09:30:03.120 in
  // Shanghai) is 1735776000 + 5403 s.
  for (const cell of [1735781403120, 1735781403120n, '1735781403120']) {
    const r = mapped(m, ['600000.SH', cell]);
    assert.equal([r.tradedate, r.time], ['20250102', '093003120'], String(cell));
  }
  assert.is(rejected(m, ['600000.SH', '1.7e12']), 'time "1.7e12" is not epoch milliseconds');
});

times('epoch_us: microseconds, the sub-millisecond part dropped', () => {
  const m = mapper('dataset level2\nsymbol S form=suffixed\ntime T form=epoch_us\n', ['S', 'T']); // tradedate from the time when no line names it
  const r = mapped(m, ['600000.SH', 1735781403120999n]);
  assert.equal([r.tradedate, r.time], ['20250102', '093003120']);
});

times('datetime: wall time in Shanghai; its date must be the tradedate', () => {
  const m = mapper(l2('datetime'), STD);
  assert.is(mapped(m, ['600000.SH', '20250102', '2025-01-02 09:30:03.12']).time, '093003120');
  assert.is(mapped(m, ['600000.SH', '20250102', '2025-01-02T09:30:03']).time, '093003000');
  assert.is(rejected(m, ['600000.SH', '20250102', '2025-01-03 09:30:03.120']), 'time date 20250103 does not match tradedate 20250102');
  assert.is(rejected(m, ['600000.SH', '20250102', '2025-02-30 09:30:03']), 'time "2025-02-30 09:30:03" is not YYYY-MM-DD HH:MM:SS[.fff]');
});

times('index: the time is written in the index form, whatever the source form', () => {
  const m = mapper('dataset index\nsymbol S form=bare\ntradedate D\ntime T form=hh:mm:ss.fff\n', STD);
  const r = mapped(m, ['000300', '2025-01-02', '09:30:03.12']);
  assert.equal([r.symbol, r.tradedate, r.time], ['000300', '20250102', '2025-01-02 09:30:03.120']);
  const v = validateFields('index', r.symbol, r.tradedate, r.time, r.values);
  assert.ok(v.ok, JSON.stringify(v));
});

// ---------------------------------------------------------------------------------------------
const symbols = suite('symbol forms');

function symbolOf(line: string, cells: unknown[], dataset: Dataset = 'level2'): string {
  const m = mapper(`dataset ${dataset}\n${line}\ntradedate D\ntime T form=hhmmssmmm\n`, ['S', 'D', 'T', 'E']);
  const r = m.map([cells[0], '20250102', '093000000', cells[1]]);
  return typeof r === 'string' ? `rejected: ${r}` : String(r.symbol);
}

symbols('prefixed, suffixed and bare, each into NNNNNN.XX', () => {
  assert.is(symbolOf('symbol S form=prefixed', ['sh600000']), '600000.SH');
  assert.is(symbolOf('symbol S form=prefixed', ['SZ000001']), '000001.SZ');
  assert.is(symbolOf('symbol S form=suffixed', ['600000.SH']), '600000.SH');
  assert.is(symbolOf('symbol S form=suffixed', ['000001.XSHE']), '000001.SZ');
  assert.is(symbolOf('symbol S form=bare', ['600000']), '600000.SH');
  assert.is(symbolOf('symbol S form=bare', ['830799']), '830799.BJ');
  // A numeric cell has lost its leading zeros.
  assert.is(symbolOf('symbol S form=bare', [1]), '000001.SZ');
  assert.is(symbolOf('symbol S form=bare', ['300750']), '300750.SZ');
});

symbols('a value of another form is rejected, not guessed', () => {
  assert.is(symbolOf('symbol S form=bare', ['sh600000']), 'rejected: symbol "sh600000" is not a bare code of up to six digits');
  assert.is(symbolOf('symbol S form=prefixed', ['600000.SH']), 'rejected: symbol "600000.SH" is not prefixed like sh600000');
  assert.is(symbolOf('symbol S form=suffixed', ['sh600000']), 'rejected: symbol "sh600000" is not suffixed like 600000.SH');
  assert.is(symbolOf('symbol S form=bare', ['500001']), 'rejected: symbol six-digit code 500001 belongs to no stock exchange');
  assert.is(symbolOf('symbol S form=prefixed', ['xx600000']), 'rejected: symbol unknown exchange prefix xx');
  assert.is(symbolOf('symbol S form=bare', ['']), 'rejected: symbol is missing');
});

symbols('bare code plus an exchange column, with or without a value map', () => {
  assert.is(symbolOf('symbol S form=bare+exchange:E', ['600000', 'SH']), '600000.SH');
  assert.is(symbolOf('symbol S form=bare+exchange:E', ['000001', 'xshe']), '000001.SZ');
  assert.is(symbolOf('symbol S form=bare+exchange:E 1=SH 2=SZ', [600000, 1]), '600000.SH');
  assert.is(symbolOf('symbol S form=bare+exchange:E 1=SH 2=SZ', ['1', '2']), '000001.SZ');
  assert.is(symbolOf('symbol S form=bare+exchange:E 1=SH 2=SZ', ['000001', '3']), 'rejected: symbol exchange "3" is not SH, SZ or BJ');
});

symbols('index codes: prefix or suffix dropped, six digits kept', () => {
  assert.is(symbolOf('symbol S form=suffixed', ['000300.SH'], 'index'), '000300');
  assert.is(symbolOf('symbol S form=prefixed', ['sz399001'], 'index'), '399001');
  assert.is(symbolOf('symbol S form=bare', ['000905'], 'index'), '000905');
});

// ---------------------------------------------------------------------------------------------
const dates = suite('tradedate sources');

dates('a column: YYYYMMDD, YYYY-MM-DD, a number', () => {
  const m = mapper(l2('hhmmssmmm'), STD);
  for (const d of ['20250102', '2025-01-02', 20250102, '2025-01-02 00:00:00']) {
    assert.is(mapped(m, ['600000.SH', d, '093000000']).tradedate, '20250102', String(d));
  }
  assert.is(rejected(m, ['600000.SH', '2025-13-02', '093000000']), 'tradedate "2025-13-02" is not YYYYMMDD or YYYY-MM-DD');
  assert.is(rejected(m, ['600000.SH', '', '093000000']), 'tradedate is missing');
});

dates('the file name, by a pattern with one 8-digit group', () => {
  const text = 'dataset level2\nsymbol S form=suffixed\ntradedate file pattern=^snap_(\\d{8})_\ntime T form=hhmmssmmm\n';
  const m = mapper(text, ['S', 'T'], '/archive/2024/snap_20241231_600000.csv.gz');
  assert.is(mapped(m, ['600000.SH', '093000000']).tradedate, '20241231');
  const e = mappingError(() => mapper(text, ['S', 'T'], '/archive/20241231/other.csv'));
  assert.is(e.message, 'mapping maps/x.map:3: file name other.csv does not match pattern ^snap_(\\d{8})_');
  assert.is(e.line, 3);
  const two = mappingError(() => parseMapping('tradedate file pattern=(\\d{4})(\\d{4})\n', MAP));
  assert.is(two.message, 'mapping maps/x.map:1: pattern (\\d{4})(\\d{4}) must have exactly one capture group (the 8-digit date), has 2');
});

dates('the file name without a pattern: its one run of 8 digits', () => {
  const m = mapper('dataset level2\nsymbol S form=suffixed\ntradedate file\ntime T form=hhmmssmmm\n', ['S', 'T'], 'x/600000_20250102.csv');
  assert.is(mapped(m, ['600000.SH', '093000000']).tradedate, '20250102');
});

dates('a hive folder date=YYYYMMDD anywhere in the path, the nearest one', () => {
  const text = 'dataset level2\nsymbol S form=suffixed\ntradedate hive\ntime T form=hhmmssmmm\n';
  assert.is(mapped(mapper(text, ['S', 'T'], '/lake/level2/date=20250103/600000.SH.csv'), ['600000.SH', '093000000']).tradedate, '20250103');
  assert.is(mapped(mapper(text, ['S', 'T'], 'd/date=20250103/part/date=2025-01-06/x.csv'), ['600000.SH', '093000000']).tradedate, '20250106');
  const e = mappingError(() => mapper(text, ['S', 'T'], '/lake/level2/600000.SH.csv'));
  assert.is(e.message, 'mapping maps/x.map:3: /lake/level2/600000.SH.csv is in no date=YYYYMMDD folder');
});

// ---------------------------------------------------------------------------------------------
const values = suite('values: scale, lots, nulls, codes');

values('price scale: integers divided exactly; off-grid rejected, never rounded', () => {
  const m = mapper(l2('hhmmssmmm', 'price_scale 10000\nfield bid1 V\nfield amount A\n'), [...STD, 'A']);
  const r = mapped(m, ['600000.SH', '20250102', '093000000', '102300', '123456']);
  assert.is(value(r, 'bid1'), 10.23);
  assert.is(value(r, 'amount'), 123456); // amounts are not prices: as is
  assert.is(value(mapped(m, ['600000.SH', '20250102', '093000000', 102301n, '']), 'bid1'), 10.2301);
  assert.is(rejected(m, ['600000.SH', '20250102', '093000000', '102300.5', '']), 'bid1 price 102300.5 is off the ×10000 grid');
  assert.is(rejected(m, ['600000.SH', '20250102', '093000000', 102300.5, '']), 'bid1 price 102300.5 is off the ×10000 grid');
});

values('price scale 1 (yuan): decimals as they are', () => {
  const m = mapper(l2('hhmmssmmm', 'field close V\n'), STD);
  assert.is(value(mapped(m, ['600000.SH', '20250102', '093000000', '10.235']), 'close'), 10.235);
});

values('lots: ×100 into shares; decimal lots fine, a fraction of a share rejected', () => {
  const m = mapper(l2('hhmmssmmm', 'volume_unit lots\nfield volume V\nfield close C\n'), [...STD, 'C']);
  const vol = (cell: unknown) => value(mapped(m, ['600000.SH', '20250102', '093000000', cell, '10.5']), 'volume');
  assert.is(vol('12.34'), 1234);
  assert.is(vol(12.34), 1234);
  assert.is(vol('3'), 300);
  assert.is(vol(0.01), 1);
  assert.is(vol(123456789n), 12345678900);
  assert.is(rejected(m, ['600000.SH', '20250102', '093000000', '12.345', '10.5']), 'volume volume 12.345 lots is not a whole number of shares');
  // The close is a price: lots do not touch it.
  assert.is(value(mapped(m, ['600000.SH', '20250102', '093000000', '1', '10.5']), 'close'), 10.5);
});

values('null texts and the empty cell; text that is no number', () => {
  const m = mapper(l2('hhmmssmmm', 'null NA - "n/a"\nfield close V\n'), STD);
  for (const cell of ['', 'NA', '-', 'n/a', '  ', null, undefined, NaN]) {
    assert.is(value(mapped(m, ['600000.SH', '20250102', '093000000', cell]), 'close'), null, JSON.stringify(cell));
  }
  assert.is(value(mapped(m, ['600000.SH', '20250102', '093000000', '0']), 'close'), 0);
  assert.is(rejected(m, ['600000.SH', '20250102', '093000000', 'abc']), 'close "abc" is not a number');
  assert.is(rejected(m, ['600000.SH', '20250102', '093000000', 'Infinity']), 'close "Infinity" is not a number');
  // Without a null line, NA is no number.
  const plain = mapper(l2('hhmmssmmm', 'field close V\n'), STD);
  assert.is(rejected(plain, ['600000.SH', '20250102', '093000000', 'NA']), 'close "NA" is not a number');
});

values('zero_null: zero is null for the listed fields only', () => {
  const m = mapper(l2('hhmmssmmm', 'price_scale 100\nvolume_unit lots\nzero_null bid1-10 bid_vol1-2\nfield bid1 V\nfield bid_vol1 W\nfield volume X\n'), [
    ...STD,
    'W',
    'X',
  ]);
  const r = mapped(m, ['600000.SH', '20250102', '093000000', '0', '0', '0']);
  assert.equal([value(r, 'bid1'), value(r, 'bid_vol1'), value(r, 'volume')], [null, null, 0]);
  const s = mapped(m, ['600000.SH', '20250102', '093000000', '1023', '2', '5']);
  assert.equal([value(s, 'bid1'), value(s, 'bid_vol1'), value(s, 'volume')], [10.23, 200, 500]);
});

values('code letters: a value map, letters themselves, anything else rejected', () => {
  const text = 'dataset trade\nsymbol S form=suffixed\ntradedate D\ntime T form=hhmmssmmm\nfield trade_id I\ncode bs_flag F 1=B 2=S 0=N\n';
  const m = mapper(text, ['S', 'D', 'T', 'I', 'F']);
  const flag = (cell: unknown) => value(mapped(m, ['600000.SH', '20250102', '093000000', '7', cell]), 'bs_flag', 'trade');
  assert.is(flag('1'), 'B');
  assert.is(flag(2), 'S');
  assert.is(flag('0'), 'N');
  assert.is(flag('B'), 'B');
  assert.is(flag(''), null);
  assert.is(rejected(m, ['600000.SH', '20250102', '093000000', '7', '3']), 'bs_flag "3" is not B/S/N and the mapping gives it no letter');
  const r = mapped(m, ['600000.SH', '20250102', '093000000', '7', '2']);
  const v = validateFields('trade', r.symbol, r.tradedate, r.time, r.values);
  assert.ok(v.ok, JSON.stringify(v));
  const bad = mappingError(() => parseMapping(text.replace('0=N', '0=X'), MAP));
  assert.is(bad.message, 'mapping maps/x.map:6: 0=X: bs_flag letters are B, S, N');
});

values('unmapped fields are null; the row passes validateFields', () => {
  const m = mapper(l2('hhmmssmmm', 'field close V\n'), STD);
  const r = mapped(m, ['600000.SH', '20250102', '93003120', '10.5']);
  assert.is(r.values.length, SCHEMAS.level2.valueFields.length);
  assert.is(r.values.filter((v) => v !== null).length, 1);
  const v = validateFields('level2', r.symbol, r.tradedate, r.time, r.values);
  assert.ok(v.ok, JSON.stringify(v));
  if (v.ok) assert.is(v.row.timeMs, ((9 * 60 + 30) * 60 + 3) * 1000 + 120);
});

values('which fields are prices and volumes', () => {
  const lv = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i + 1}`);
  assert.equal(fieldsOfUnit('level2', 'price'), ['open', 'high', 'low', 'close', 'pre_close', ...lv('bid', 10), ...lv('ask', 10)]);
  assert.equal(fieldsOfUnit('level2', 'volume'), ['volume', ...lv('bid_vol', 10), ...lv('ask_vol', 10)]);
  assert.equal(fieldsOfUnit('index', 'price'), ['open', 'high', 'low', 'close', 'pre_close', ...lv('bid', 5), ...lv('ask', 5)]);
  assert.equal(fieldsOfUnit('index', 'volume'), ['vol', ...lv('bid_vol', 5), ...lv('ask_vol', 5)]);
  assert.equal(fieldsOfUnit('index', 'plain'), ['pct_chg', 'amount', 'transaction_num']);
  assert.equal(fieldsOfUnit('trade', 'price'), ['price']);
  assert.equal(fieldsOfUnit('trade', 'volume'), ['volume']);
  assert.equal(fieldsOfUnit('trade', 'plain'), ['trade_id', 'amount', 'buy_order_id', 'sell_order_id']);
  assert.equal(fieldsOfUnit('order', 'plain'), ['order_id', 'amount', 'order_no']);
});

// ---------------------------------------------------------------------------------------------
const errors = suite('mapping errors name the file and line');

errors('unknown directive, unknown field, bad values', () => {
  const text = '# a comment\n\ndataset level2\nsymbol S form=suffixed\ntradedate D\ntime T form=hhmmssmmm\nfeild bid1 B\n';
  let e = mappingError(() => parseMapping(text, MAP));
  assert.is(e.line, 7);
  assert.ok(e.message.startsWith('mapping maps/x.map:7: unknown directive feild'), e.message);
  e = mappingError(() => parseMapping(text.replace('feild bid1 B', 'field bidd1 B'), MAP));
  assert.is(e.message, 'mapping maps/x.map:7: unknown field bidd1 for level2');
  e = mappingError(() => parseMapping(text.replace('feild bid1 B', '   # indented comment\nfield transaction_num N'), MAP));
  assert.is(e.message, 'mapping maps/x.map:8: unknown field transaction_num for level2');
  e = mappingError(() => parseMapping(text.replace('form=hhmmssmmm', 'form=hh:mm'), MAP));
  assert.is(e.message, 'mapping maps/x.map:6: time form must be form=hhmmssmmm|hhmmss|hh:mm:ss.fff|epoch_ms|epoch_us|datetime, not form=hh:mm');
  e = mappingError(() => parseMapping(text.replace('feild bid1 B', 'price_scale 0.01'), MAP));
  assert.is(e.message, 'mapping maps/x.map:7: price_scale 0.01 is not a whole number ≥ 1');
  e = mappingError(() => parseMapping(text.replace('feild bid1 B', 'volume_unit hands'), MAP));
  assert.is(e.message, 'mapping maps/x.map:7: volume_unit hands is not lots or shares');
  e = mappingError(() => parseMapping(text.replace('feild bid1 B', 'field bid1 B\nfield bid1 C'), MAP));
  assert.is(e.message, 'mapping maps/x.map:8: field bid1 is already mapped on line 7');
  e = mappingError(() => parseMapping(text.replace('feild bid1 B', 'zero_null bid1-10 bidd2'), MAP));
  assert.is(e.message, 'mapping maps/x.map:7: unknown field bidd2');
  e = mappingError(() => parseMapping(text.replace('dataset level2', 'dataset level3'), MAP));
  assert.is(e.message, 'mapping maps/x.map:3: unknown dataset level3 (level2, index, trade, order)');
  e = mappingError(() => parseMapping(text.replace('symbol S form=suffixed', 'symbol S form=wind'), MAP));
  assert.is(e.message, 'mapping maps/x.map:4: unknown symbol form wind (prefixed, suffixed, bare, bare+exchange:COLUMN)');
  e = mappingError(() => parseMapping(text.replace('feild bid1 B', 'null "NA'), MAP));
  assert.is(e.message, 'mapping maps/x.map:7: unclosed quote');
  e = mappingError(() => parseMapping(text.replace('time T form=hhmmssmmm', '').replace('feild bid1 B', ''), MAP));
  assert.is(e.message, 'mapping maps/x.map: has no time line');
  assert.is(e.line, null);
});

errors('a mapped column missing from the data file names the column, the field and the line', () => {
  const text = 'dataset level2\nsymbol S form=suffixed\ntradedate D\ntime T form=hhmmssmmm\n\nfield bid1 BidPrice1\nfield ask1 AskPrice1\n';
  const e = mappingError(() => mapper(text, ['S', 'D', 'T', 'BidPrice1'], 'data.csv'));
  assert.is(e.message, 'mapping maps/x.map:7: column AskPrice1 (field ask1) is not in data.csv');
  assert.is(e.file, MAP);
  assert.is(e.line, 7);
  assert.is(e.detail, 'column AskPrice1 (field ask1) is not in data.csv');
  const t = mappingError(() => mapper(text, ['S', 'D', 'BidPrice1', 'AskPrice1'], 'in/data.csv'));
  assert.is(t.message, 'mapping maps/x.map:4: column T (time) is not in in/data.csv');
  // Blanks and case in the header find the column when that leaves no doubt.
  const m = mapper(text, [' s', 'D', 'T', 'bidprice1 ', 'AskPrice1']);
  assert.is(value(mapped(m, ['600000.SH', '20250102', '093000000', '10.5', '10.6']), 'bid1'), 10.5);
});

errors('readMapping: a missing file has no line', () => {
  const e = mappingError(() => readMapping('/nonexistent/dir/x.map'));
  assert.is(e.message, 'mapping /nonexistent/dir/x.map: no such file');
  assert.is(e.line, null);
});

// ---------------------------------------------------------------------------------------------
const datasets = suite('dataset from the mapping or the command line');

datasets('--dataset supplies a mapping without one, and overrides one', () => {
  const text = 'symbol S form=bare\ntradedate D\ntime T form=datetime\nfield close C\n';
  const none = mappingError(() => mapper(text, ['S', 'D', 'T', 'C']));
  assert.is(none.message, 'mapping maps/x.map: names no dataset: add a dataset line or pass --dataset');
  const idx = mapper(text, ['S', 'D', 'T', 'C'], 'data.csv', 'index');
  assert.is(idx.dataset, 'index');
  const r = mapped(idx, ['000300', '20250102', '2025-01-02 09:30:03.120', '3950.5']);
  assert.equal([r.symbol, r.time, value(r, 'close', 'index')], ['000300', '2025-01-02 09:30:03.120', 3950.5]);
  const l2m = mapper(`dataset index\n${text}`, ['S', 'D', 'T', 'C'], 'data.csv', 'level2');
  assert.is(l2m.dataset, 'level2');
  assert.is(mapped(l2m, ['600000', '20250102', '2025-01-02 09:30:03.120', '10.5']).symbol, '600000.SH');
});

datasets('an override checks the fields against its dataset, naming the line', () => {
  const text = 'dataset level2\nsymbol S form=suffixed\ntradedate D\ntime T form=hhmmssmmm\nfield close C\nfield bid7 B\n';
  const e = mappingError(() => mapper(text, ['S', 'D', 'T', 'C', 'B'], 'data.csv', 'index'));
  assert.is(e.message, 'mapping maps/x.map:6: unknown field bid7 for index');
});

// ---------------------------------------------------------------------------------------------
const shipped = suite('shipped mappings');

const lv = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i + 1}`);
/** The headers the shipped mappings are written for, as their comments document them. */
const HEADERS: Record<string, string[]> = {
  'tickvault-level2.map': SCHEMAS.level2.fieldNames as string[],
  'tickvault-index.map': SCHEMAS.index.fieldNames as string[],
  'tickvault-trade.map': SCHEMAS.trade.fieldNames as string[],
  'tickvault-order.map': SCHEMAS.order.fieldNames as string[],
  'ricequant-level2-tick.map': [
    'order_book_id',
    'datetime',
    'trading_date',
    'open',
    'last',
    'high',
    'low',
    'prev_close',
    'volume',
    'total_turnover',
    'limit_up',
    'limit_down',
    ...lv('a', 5),
    ...lv('b', 5),
    ...lv('a', 5).map((a) => `${a}_v`),
    ...lv('b', 5).map((b) => `${b}_v`),
    'change_rate',
    'num_trades',
  ],
};

shipped('every shipped mapping parses and compiles against its documented header', () => {
  const files = readdirSync(join(ROOT, 'mappings'))
    .filter((f) => f.endsWith('.map'))
    .sort();
  assert.equal(files, Object.keys(HEADERS).sort());
  for (const f of files) {
    const m = readMapping(join(ROOT, 'mappings', f));
    assert.ok(compileMapping(m, HEADERS[f], '/in/x.csv'), f);
  }
});

shipped('our own level2 CSV: a row comes back as the row it was', () => {
  const m = compileMapping(readMapping(join(ROOT, 'mappings', 'tickvault-level2.map')), HEADERS['tickvault-level2.map'], 'x.csv');
  const want = SCHEMAS.level2.valueFields.map((f, i) => (i === 5 ? 1234500 : i === 20 ? null : 10 + i / 100));
  const cells = ['600000.SH', '20250102', '093003120', ...want.map((v) => (v === null ? '' : String(v)))];
  const r = mapped(m, cells);
  assert.equal([r.symbol, r.tradedate, r.time], ['600000.SH', '20250102', '093003120']);
  assert.equal(r.values, want);
  assert.ok(validateFields('level2', r.symbol, r.tradedate, r.time, r.values).ok);
});

shipped('our own index and trade CSVs', () => {
  const idx = compileMapping(readMapping(join(ROOT, 'mappings', 'tickvault-index.map')), HEADERS['tickvault-index.map'], 'x.csv');
  const icells = [
    '20250102',
    '000300',
    '2025-01-02 09:30:03.120',
    ...SCHEMAS.index.valueFields.map((f) => (f.name === 'transaction_num' ? '123456' : '3950.25')),
  ];
  const ir = mapped(idx, icells);
  assert.equal([ir.symbol, ir.tradedate, ir.time, value(ir, 'transaction_num', 'index')], ['000300', '20250102', '2025-01-02 09:30:03.120', 123456]);
  assert.ok(validateFields('index', ir.symbol, ir.tradedate, ir.time, ir.values).ok);
  const tr = compileMapping(readMapping(join(ROOT, 'mappings', 'tickvault-trade.map')), HEADERS['tickvault-trade.map'], 'x.csv');
  const r = mapped(tr, ['000001.SZ', '20250102', '093003120', '42', '11.5', '300', '3450', 'S', 'F', '17', '18']);
  assert.equal(r.values, [42, 11.5, 300, 3450, 'S', 'F', 17, 18]);
  assert.ok(validateFields('trade', r.symbol, r.tradedate, r.time, r.values).ok);
});

shipped('RiceQuant ticks: a pre-open row, zeros as null, five levels', () => {
  const m = compileMapping(readMapping(join(ROOT, 'mappings', 'ricequant-level2-tick.map')), HEADERS['ricequant-level2-tick.map'], 'ticks.csv');
  const row = [
    '000006.XSHE',
    '2020-01-02 09:15:09',
    '2020-01-02',
    '0',
    '5.36',
    '0',
    '0',
    '5.36',
    '0',
    '0',
    '5.9',
    '4.82',
    '5.41',
    '0',
    '0',
    '0',
    '0',
    '5.41',
    '0',
    '0',
    '0',
    '0',
    '50000',
    '0',
    '0',
    '0',
    '0',
    '1100',
    '0',
    '0',
    '0',
    '0',
    '0',
    '',
  ];
  const r = mapped(m, row);
  assert.equal([r.symbol, r.tradedate, r.time], ['000006.SZ', '20200102', '091509000']);
  assert.equal([value(r, 'open'), value(r, 'close'), value(r, 'pre_close'), value(r, 'volume')], [null, 5.36, 5.36, 0]);
  assert.equal(
    [value(r, 'ask1'), value(r, 'ask2'), value(r, 'bid1'), value(r, 'ask_vol1'), value(r, 'bid_vol1'), value(r, 'bid6')],
    [5.41, null, 5.41, 50000, 1100, null],
  );
  assert.ok(validateFields('level2', r.symbol, r.tradedate, r.time, r.values).ok);
});

shipped('every mapping in docs/import-mappings.md parses', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'import-mappings.md'), 'utf8');
  const blocks = [...doc.matchAll(/```map\n([\s\S]*?)```/g)].map((b) => b[1]);
  assert.ok(blocks.length >= 2, `found ${blocks.length} map blocks`);
  for (const b of blocks) parseMapping(b, 'docs/import-mappings.md');
});

shipped('the vendor example of the docs maps a row', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'import-mappings.md'), 'utf8');
  const block = [...doc.matchAll(/```map\n([\s\S]*?)```/g)].map((b) => b[1]).find((b) => b.includes('price_scale  10000'))!;
  const parsed = parseMapping(block, 'docs');
  const header = [parsed.symbol.column, parsed.time.column, ...parsed.fields.map((f) => f.column)];
  const cell: Record<string, string> = {
    Symbol: 'sh600000',
    UpdateTime: '09:30:03.12',
    LastPrice: '102300',
    BidPrice1: '102200',
    BidVolume1: '15',
    Volume: '12345.67',
    Turnover: '126281000.5',
  };
  const m = compileMapping(parsed, header, '/desk/l2/snap_20250102.csv');
  const r = mapped(
    m,
    header.map((c) => cell[c] ?? '0'),
  );
  assert.equal([r.symbol, r.tradedate, r.time], ['600000.SH', '20250102', '093003120']);
  // 102300 / 10000 yuan; 15 lots; 12345.67 lots is 1234567 shares; an empty level 2 is null.
  assert.equal(
    [value(r, 'close'), value(r, 'bid1'), value(r, 'bid_vol1'), value(r, 'volume'), value(r, 'amount'), value(r, 'bid2'), value(r, 'ask_vol10')],
    [10.23, 10.22, 1500, 1234567, 126281000.5, null, null],
  );
  assert.ok(validateFields('level2', r.symbol, r.tradedate, r.time, r.values).ok);
});

times.run();
symbols.run();
dates.run();
values.run();
errors.run();
datasets.run();
shipped.run();
