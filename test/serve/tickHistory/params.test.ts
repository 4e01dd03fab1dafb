import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertApiError } from '../../support/apiErrors.js';
import { parseTickQuery, type BoundaryQuery, type EnhancedQuery, type TickQuery } from '../../../serve/tickHistory/params.js';

/** Mode selection and parameter shaping of tick_history (api-contract: tick_history), without a server. */
const NOW = Date.parse('2025-02-14T16:30:00+08:00');
const ALL = Array.from({ length: 32 }, (_, i) => i);

const parse = (params: Record<string, unknown>, fields?: string | null): TickQuery => parseTickQuery(params, fields, NOW);

function rejects(params: Record<string, unknown>, pattern: RegExp): void {
  assertApiError(() => parse(params), 400, pattern, JSON.stringify(params));
}

const modes = suite('tick_history mode selection');

modes('symbol alone, with tradedate, asset or fields: compatible', () => {
  for (const params of [{ symbol: '000300' }, { symbol: '000300', tradedate: '20250120' }, { symbol: '000300', asset: 'index' }]) {
    const q = parse(params);
    assert.is(q.mode, 'compatible', JSON.stringify(params));
  }
  const q = parse({ symbol: '000300' }, 'close,time');
  assert.equal(q.fields, [6, 2]);
});

modes('any enhanced-only parameter makes symbol a one-symbol enhanced list', () => {
  for (const extra of [
    { startdate: '20250205' },
    { enddate: '20250205' },
    { recentdays: 2 },
    { tradedate_offset: 0 },
    { trademin: '1030' },
    { start_time: '10:00:00' },
    { end_time: '10:00:00' },
    { limit: 5 },
    { offset: 0 },
    { order_dir: 'asc' },
  ]) {
    const q = parse({ symbol: '000300', ...extra });
    assert.is(q.mode, 'enhanced', JSON.stringify(extra));
    assert.equal((q as EnhancedQuery).symbols, ['000300']);
  }
});

modes('symbols wins over symbol; duplicates removed, sorted; string or array', () => {
  const a = parse({ symbol: '000001', symbols: ' 399006,000300 ,399006' }) as EnhancedQuery;
  assert.is(a.mode, 'enhanced');
  assert.equal(a.symbols, ['000300', '399006']);
  const b = parse({ symbols: ['000905', '000300', '000905'] }) as EnhancedQuery;
  assert.equal(b.symbols, ['000300', '000905']);
  assert.equal(parse({ symbols: Array.from({ length: 200 }, (_, i) => String(i).padStart(6, '0')) }).mode, 'enhanced');
});

modes('enhanced defaults: asc, limit 6000, offset 0, whole day; a limit above 6000 is served as 6000', () => {
  const q = parse({ symbols: '000300' }) as EnhancedQuery;
  assert.equal([q.order, q.limit, q.offset, q.window.startMs, q.window.endMs], ['asc', 6000, 0, 0, 86_400_000]);
  assert.equal(q.fields, ALL);
  assert.is((parse({ symbols: '000300', limit: 6001 }) as EnhancedQuery).limit, 6000);
  assert.is((parse({ symbols: '000300', limit: 1 }) as EnhancedQuery).limit, 1);
});

modes('trademin alone is the whole minute; start_time/end_time to the millisecond', () => {
  const m = parse({ symbols: '000300', trademin: '0931' }) as EnhancedQuery;
  assert.equal(m.window, { startMs: 34_260_000, endMs: 34_320_000 });
  const w = parse({ symbols: '000300', start_time: '09:31:00.250', end_time: '13:00:01' }) as EnhancedQuery;
  assert.equal(w.window, { startMs: 34_260_250, endMs: 46_801_000 });
});

modes('side makes boundary mode: symbols optional (whole market), one day', () => {
  const q = parse({ trademin: '1030', side: 'after' }) as BoundaryQuery;
  assert.is(q.mode, 'boundary');
  assert.is(q.symbols, null);
  assert.is(q.minute, 630);
  assert.equal(q.dates, { kind: 'day', day: '20250214' });
  const s = parse({ symbol: '000300', trademin: '1030', side: 'before', enddate: '20250210' }) as BoundaryQuery;
  assert.equal(s.symbols, ['000300']);
  assert.is(s.side, 'before');
});

modes('null members count as omitted', () => {
  assert.is(parse({ symbol: '000300', symbols: null, limit: null, side: null }).mode, 'compatible');
});

modes('rejections are checked in a stable order', () => {
  rejects({ symbol: '000300', nope: 1 }, /^unknown parameter params\.nope$/);
  rejects({ symbol: '000300', asset: 'bond' }, /^params\.asset must be "index" or "stock"$/);
  rejects({ symbol: '000300.SH' }, /^params\.symbol must be a six-digit index code without suffix, got "000300\.SH"$/);
  rejects({ symbol: 'x', asset: 'stock' }, /^params\.symbol must be a stock code/);
  rejects({ symbols: '000300', trademin: '1030', side: 'before', start_time: '10:00:00' }, /^params\.trademin cannot be combined/);
  rejects({ side: 'before' }, /^params\.side needs params\.trademin/);
  rejects({ symbols: [1, 2] }, /^params\.symbols must be a six-digit index code without suffix, got 1$/);
  rejects({ symbols: [] }, /^params\.symbols must name at least one code$/);
  rejects({ symbols: '' }, /^params\.symbols contains an empty code$/);
});

modes.run();
