import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exchangeOfCode, isCanonicalStock, parseIndexSymbol, parseStockSymbol } from '../../shared/symbols.js';

// Expectations are written out by hand from api-contract: Symbols, never derived from the module.

function accepts(input: unknown, canonical: string): void {
  const r = parseStockSymbol(input);
  assert.ok(r.ok, `${JSON.stringify(input)} should be accepted, got ${JSON.stringify(r)}`);
  if (r.ok) assert.is(r.symbol, canonical, `${JSON.stringify(input)} canonical form`);
}

function rejects(input: unknown): void {
  const r = parseStockSymbol(input);
  assert.not.ok(r.ok, `${JSON.stringify(input)} should be rejected, got ${JSON.stringify(r)}`);
  if (!r.ok) {
    assert.type(r.reason, 'string');
    assert.ok(r.reason.length > 0, 'a rejection names its reason');
  }
}

// ---------------------------------------------------------------------------------------------
const stockForms = suite('parseStockSymbol: accepted forms');

stockForms('every SH form of 600000', () => {
  for (const s of ['600000', '600000.SH', '600000.sh', '600000.Sh', 'SH600000', 'sh600000', 'Sh600000', '600000.XSHG', '600000.xshg']) {
    accepts(s, '600000.SH');
  }
});

stockForms('every SZ form of 000001', () => {
  for (const s of ['000001', '000001.SZ', '000001.sz', 'SZ000001', 'sz000001', '000001.XSHE', '000001.xshe']) {
    accepts(s, '000001.SZ');
  }
});

stockForms('every BJ form of 830799', () => {
  for (const s of ['830799', '830799.BJ', '830799.bj', 'BJ830799', 'bj830799']) accepts(s, '830799.BJ');
});

stockForms('bare codes take the exchange from the leading digits', () => {
  // BJ: 92xxxx, 4xxxxx, 8xxxxx
  accepts('920000', '920000.BJ');
  accepts('920819', '920819.BJ');
  accepts('430047', '430047.BJ');
  accepts('400001', '400001.BJ');
  accepts('830799', '830799.BJ');
  accepts('871981', '871981.BJ');
  // SH: 6 or 9 (9 other than 92)
  accepts('600000', '600000.SH');
  accepts('601318', '601318.SH');
  accepts('688981', '688981.SH');
  accepts('900901', '900901.SH');
  accepts('910000', '910000.SH');
  accepts('990000', '990000.SH');
  // SZ: 0, 2 or 3
  accepts('000001', '000001.SZ');
  accepts('002594', '002594.SZ');
  accepts('200002', '200002.SZ');
  accepts('300750', '300750.SZ');
  accepts('399999', '399999.SZ');
});

stockForms('an explicit suffix or prefix decides the exchange', () => {
  accepts('920000.BJ', '920000.BJ');
  accepts('430047.BJ', '430047.BJ');
  accepts('BJ920000', '920000.BJ');
  accepts('300750.SZ', '300750.SZ');
  accepts('SZ300750', '300750.SZ');
  accepts('688981.XSHG', '688981.SH');
  accepts('002594.XSHE', '002594.SZ');
});

stockForms('the canonical form is a fixed point', () => {
  for (const s of ['600000.SH', '000001.SZ', '830799.BJ', '920000.BJ', '300750.SZ']) accepts(s, s);
});

// ---------------------------------------------------------------------------------------------
const stockRejects = suite('parseStockSymbol: rejected forms');

stockRejects('wrong digit counts', () => {
  for (const s of ['60000', '6000000', '60000.SH', '6000000.SH', 'SH60000', 'SH6000000', '0', '']) rejects(s);
});

stockRejects('letters, unknown suffixes and prefixes', () => {
  for (const s of [
    'ABC123',
    '60000A',
    'abcdef',
    '600000.SS',
    '600000.SHH',
    '600000.X',
    '600000.XSHGX',
    '600000.',
    '.SH',
    'SH',
    'XSHG600000',
    'XSHE000001',
    'SS600000',
    'S600000',
    '600000SH',
    'SH.600000',
    '600000.S H',
  ]) {
    rejects(s);
  }
});

stockRejects('whitespace and control characters', () => {
  for (const s of [' 600000', '600000 ', '600000\n', '\t600000', '600000.SH ', ' SH600000', '600 000', '600000\u0000']) rejects(s);
});

stockRejects('path fragments can never pass', () => {
  for (const s of ['../600000', '600000.SH/..', '600000/..', '../../etc/passwd', '600000.SH/../x', '..\\600000', '/600000', '600000.SH\\..']) {
    rejects(s);
  }
});

stockRejects('bare codes of no stock exchange: 1, 5 and 7 leading', () => {
  for (const s of ['100000', '123456', '500000', '510300', '700000', '799999']) rejects(s);
});

stockRejects('non-strings', () => {
  for (const v of [600000, 0, null, undefined, true, {}, [], ['600000'], { symbol: '600000' }, 600000.1, NaN]) rejects(v);
});

stockRejects('non-ASCII digits are not digits', () => {
  rejects('６００００００'.slice(0, 6)); // full-width digits
  rejects('٦٠٠٠٠٠'); // Arabic-Indic digits
});

// ---------------------------------------------------------------------------------------------
const exchange = suite('exchangeOfCode');

exchange('maps leading digits to the exchange', () => {
  const cases = { BJ: ['920000', '430047', '830799'], SH: ['600000', '900901'], SZ: ['000001', '200002', '300750'] };
  for (const [want, codes] of Object.entries(cases)) for (const code of codes) assert.is(exchangeOfCode(code), want, code);
});

exchange('1, 5 and 7 leading belong to no exchange', () => {
  for (const code of ['100000', '510300', '700000']) assert.is(exchangeOfCode(code), null, code);
});

// ---------------------------------------------------------------------------------------------
const indexes = suite('parseIndexSymbol');

indexes('six digits, no suffix, kept as given', () => {
  for (const s of ['000001', '000300', '399001', '399006', '000905', '000016', '000852', '899050', '930050', '100000', '500000']) {
    const r = parseIndexSymbol(s);
    assert.ok(r.ok, s);
    if (r.ok) assert.is(r.symbol, s);
  }
});

indexes('suffixes, prefixes and anything else are rejected', () => {
  for (const v of [
    '000001.SH',
    '000001.SZ',
    '399001.SZ',
    'SH000001',
    'sh000001',
    '000001.XSHG',
    '00001',
    '0000001',
    '',
    ' 000001',
    '000001 ',
    '000001\n',
    '../000001',
    '000001/..',
    'ABCDEF',
    1,
    300,
    null,
    undefined,
    true,
    {},
    ['000001'],
  ]) {
    assert.not.ok(parseIndexSymbol(v).ok, JSON.stringify(v) ?? String(v));
  }
});

indexes('000001 the index and 000001.SZ the stock stay different', () => {
  const idx = parseIndexSymbol('000001');
  const stock = parseStockSymbol('000001');
  assert.ok(idx.ok && stock.ok);
  if (idx.ok && stock.ok) {
    assert.is(idx.symbol, '000001');
    assert.is(stock.symbol, '000001.SZ');
  }
});

// ---------------------------------------------------------------------------------------------
const canonical = suite('isCanonicalStock');

canonical('only NNNNNN.SH/.SZ/.BJ in upper case', () => {
  for (const s of ['600000.SH', '000001.SZ', '830799.BJ']) assert.ok(isCanonicalStock(s), s);
  for (const s of ['600000', '600000.sh', 'SH600000', '600000.XSHG', '600000.SH ', '60000.SH', '600000.SH\n']) {
    assert.not.ok(isCanonicalStock(s), s);
  }
});

stockForms.run();
stockRejects.run();
exchange.run();
indexes.run();
canonical.run();
