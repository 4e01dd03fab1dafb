/**
 * Hand-worked cases around month ends, weekends, New Year and the Spring Festival closures
 * (2025: 28 Jan - 4 Feb; 2026: 16 - 23 Feb). Every expected date below was worked out from
 * the exchanges' published calendars, not from the module under test.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertApiError } from '../../support/apiErrors.js';
import {
  crossMonthEffective,
  dateMessage,
  resolveDates,
  spansSeveralDays,
  type DateParams,
  type DateSelection,
} from '../../../serve/tickHistory/dateResolution.js';

const at = (iso: string) => Date.parse(iso);
const FRI_20250214 = at('2025-02-14T16:30:00+08:00');
const MON_20250210 = at('2025-02-10T16:30:00+08:00');

function day(params: DateParams, nowMs: number): string {
  const sel = resolveDates(params, nowMs);
  assert.is(sel.kind, 'day');
  return (sel as Extract<DateSelection, { kind: 'day' }>).day;
}

function rangeOf(params: DateParams, nowMs: number): [string, string, string, string] {
  const sel = resolveDates(params, nowMs);
  assert.is(sel.kind, 'range');
  const r = sel as Extract<DateSelection, { kind: 'range' }>;
  return [r.requested.from, r.requested.to, r.effective.from, r.effective.to];
}

function rejects(params: DateParams, pattern: RegExp, nowMs = FRI_20250214): void {
  assertApiError(() => resolveDates(params, nowMs), 400, pattern, JSON.stringify(params));
}

const latest = suite('latest trading day (Beijing time)');

latest('no date parameter: the latest trading day, today counting whatever the hour', () => {
  assert.is(day({}, FRI_20250214), '20250214');
  assert.is(day({}, at('2025-02-14T00:05:00+08:00')), '20250214');
  assert.is(day({}, at('2026-01-05T08:00:00+08:00')), '20260105');
});

latest('weekend and holidays fall back to the last trading day', () => {
  assert.is(day({}, at('2025-02-15T10:00:00+08:00')), '20250214'); // Saturday
  assert.is(day({}, at('2025-02-16T23:59:59+08:00')), '20250214'); // Sunday
  assert.is(day({}, at('2025-02-03T10:00:00+08:00')), '20250127'); // Spring Festival Monday
  assert.is(day({}, at('2025-01-01T10:00:00+08:00')), '20241231'); // New Year
  assert.is(day({}, at('2026-01-02T10:00:00+08:00')), '20251231'); // 2026 New Year (1-2 Jan closed)
  assert.is(day({}, at('2026-02-20T10:00:00+08:00')), '20260213'); // 2026 Spring Festival
});

latest('the Beijing date is used, not the UTC date', () => {
  // 17:00 UTC Sunday 16 Feb is 01:00 Monday 17 Feb in Beijing.
  assert.is(day({}, at('2025-02-16T17:00:00Z')), '20250217');
  // 15:59 UTC Friday 14 Feb is 23:59 Friday in Beijing; 16:00 UTC is Saturday already.
  assert.is(day({}, at('2025-02-14T15:59:00Z')), '20250214');
  assert.is(day({}, at('2025-02-14T16:00:00Z')), '20250214');
});

latest.run();

const single = suite('tradedate and tradedate_offset');

single('tradedate is taken as given, trading day or not', () => {
  assert.is(day({ tradedate: '20250120' }, FRI_20250214), '20250120');
  assert.is(day({ tradedate: '20250131' }, FRI_20250214), '20250131');
  assert.is(day({ tradedate: '20250301' }, FRI_20250214), '20250301');
});

single('tradedate_offset counts trading days back from the latest', () => {
  assert.is(day({ tradedate_offset: 0 }, FRI_20250214), '20250214');
  assert.is(day({ tradedate_offset: -1 }, FRI_20250214), '20250213');
  assert.is(day({ tradedate_offset: -4 }, FRI_20250214), '20250210'); // over the weekend
  // Across the 2025 Spring Festival: 0210, 0207, 0206, 0205, then 0127, 0124.
  assert.is(day({ tradedate_offset: -4 }, MON_20250210), '20250127');
  assert.is(day({ tradedate_offset: -5 }, MON_20250210), '20250124');
  assert.is(day({ tradedate_offset: -1 }, at('2026-02-24T10:00:00+08:00')), '20260213');
  // Over New Year: 20260105 is the latest, then 20251231.
  assert.is(day({ tradedate_offset: -1 }, at('2026-01-05T16:00:00+08:00')), '20251231');
  // Offset 0 on a Sunday is the Friday before.
  assert.is(day({ tradedate_offset: 0 }, at('2025-02-16T12:00:00+08:00')), '20250214');
});

single('null members count as omitted', () => {
  assert.is(day({ tradedate: null, startdate: null, recentdays: null }, FRI_20250214), '20250214');
  assert.is(day({ tradedate: '20250120', enddate: null }, FRI_20250214), '20250120');
});

single.run();

const ranges = suite('ranges and the cross-month rules');

ranges('startdate and enddate in one month: unchanged', () => {
  assert.equal(rangeOf({ startdate: '20250205', enddate: '20250214' }, FRI_20250214), ['20250205', '20250214', '20250205', '20250214']);
  assert.equal(rangeOf({ startdate: '20250120', enddate: '20250120' }, FRI_20250214), ['20250120', '20250120', '20250120', '20250120']);
});

ranges('rule 2: a range over months keeps the end and starts on the first of its month', () => {
  assert.equal(rangeOf({ startdate: '20250120', enddate: '20250214' }, FRI_20250214), ['20250120', '20250214', '20250201', '20250214']);
  // Over the Spring Festival: 1 Feb is a Saturday and 3-4 Feb are closed; the start is still the calendar 1st.
  assert.equal(rangeOf({ startdate: '20250127', enddate: '20250205' }, FRI_20250214), ['20250127', '20250205', '20250201', '20250205']);
  // Over New Year (year and month change).
  assert.equal(rangeOf({ startdate: '20241231', enddate: '20250102' }, FRI_20250214), ['20241231', '20250102', '20250101', '20250102']);
  assert.equal(rangeOf({ startdate: '20251215', enddate: '20260110' }, FRI_20250214), ['20251215', '20260110', '20260101', '20260110']);
  // Leap February.
  assert.equal(rangeOf({ startdate: '20240228', enddate: '20240301' }, FRI_20250214), ['20240228', '20240301', '20240301', '20240301']);
  // Rule 3: an end month without trading days is still the only month read.
  assert.equal(rangeOf({ startdate: '20250127', enddate: '20250203' }, FRI_20250214), ['20250127', '20250203', '20250201', '20250203']);
});

ranges('startdate alone runs to the latest trading day (rule 2 applies)', () => {
  assert.equal(rangeOf({ startdate: '20250120' }, FRI_20250214), ['20250120', '20250214', '20250201', '20250214']);
  assert.equal(rangeOf({ startdate: '20250205' }, FRI_20250214), ['20250205', '20250214', '20250205', '20250214']);
  // On a Sunday the latest is Friday.
  assert.equal(rangeOf({ startdate: '20250210' }, at('2025-02-16T12:00:00+08:00')), ['20250210', '20250214', '20250210', '20250214']);
  assert.equal(rangeOf({ startdate: '20250214' }, FRI_20250214), ['20250214', '20250214', '20250214', '20250214']);
});

ranges('rule 4: enddate alone is that one day', () => {
  assert.equal(rangeOf({ enddate: '20250205' }, FRI_20250214), ['20250205', '20250205', '20250205', '20250205']);
  assert.equal(rangeOf({ enddate: '20250131' }, FRI_20250214), ['20250131', '20250131', '20250131', '20250131']);
  assert.equal(rangeOf({ enddate: '20250301' }, FRI_20250214), ['20250301', '20250301', '20250301', '20250301']);
});

ranges('rule 5: recentdays over a month end reads only the end month', () => {
  // Latest 0210; 5 days back: 0127, 0205, 0206, 0207, 0210 -> February only.
  assert.equal(rangeOf({ recentdays: 5 }, MON_20250210), ['20250127', '20250210', '20250201', '20250210']);
  // 4 days: 0205..0210 all in February, unchanged.
  assert.equal(rangeOf({ recentdays: 4 }, MON_20250210), ['20250205', '20250210', '20250205', '20250210']);
  assert.equal(rangeOf({ recentdays: 1 }, FRI_20250214), ['20250214', '20250214', '20250214', '20250214']);
  // 2026 New Year: 1-2 Jan closed; 3 days back from 0106 is 1231, 0105, 0106.
  assert.equal(rangeOf({ recentdays: 3 }, at('2026-01-06T16:00:00+08:00')), ['20251231', '20260106', '20260101', '20260106']);
  // 2026 Spring Festival: from 0225, 3 days are 0213, 0224, 0225 (all February).
  assert.equal(rangeOf({ recentdays: 3 }, at('2026-02-25T16:00:00+08:00')), ['20260213', '20260225', '20260213', '20260225']);
  // 2026 from 0302 back 6: 0213, 0224, 0225, 0226, 0227, 0302 -> March only.
  assert.equal(rangeOf({ recentdays: 6 }, at('2026-03-02T16:00:00+08:00')), ['20260213', '20260302', '20260301', '20260302']);
  // On a Saturday the range ends on Friday.
  assert.equal(rangeOf({ recentdays: 2 }, at('2025-02-15T09:00:00+08:00')), ['20250213', '20250214', '20250213', '20250214']);
});

ranges('crossMonthEffective on its own', () => {
  assert.equal(crossMonthEffective({ from: '20250131', to: '20250201' }), { from: '20250201', to: '20250201' });
  assert.equal(crossMonthEffective({ from: '20250101', to: '20250131' }), { from: '20250101', to: '20250131' });
  assert.equal(crossMonthEffective({ from: '20231130', to: '20250415' }), { from: '20250401', to: '20250415' });
});

ranges('messages state requested and effective ranges on success and no data', () => {
  const sel = resolveDates({ startdate: '20250120', enddate: '20250214' }, FRI_20250214);
  assert.is(dateMessage(sel, true), 'success; requested 20250120-20250214, effective 20250201-20250214');
  assert.is(dateMessage(sel, false), 'no data; requested 20250120-20250214, effective 20250201-20250214');
  const one = resolveDates({ enddate: '20250205' }, FRI_20250214);
  assert.is(dateMessage(one, true), 'success; requested 20250205-20250205, effective 20250205-20250205');
  assert.is(dateMessage(resolveDates({ tradedate: '20250205' }, FRI_20250214), true), 'success');
  assert.is(dateMessage(resolveDates({}, FRI_20250214), false), 'no data');
});

ranges('spansSeveralDays: only a range naming more than one day', () => {
  assert.is(spansSeveralDays(resolveDates({ tradedate: '20250205' }, FRI_20250214)), false);
  assert.is(spansSeveralDays(resolveDates({ enddate: '20250205' }, FRI_20250214)), false);
  assert.is(spansSeveralDays(resolveDates({ recentdays: 1 }, FRI_20250214)), false);
  assert.is(spansSeveralDays(resolveDates({ startdate: '20250214' }, FRI_20250214)), false);
  assert.is(spansSeveralDays(resolveDates({ recentdays: 2 }, FRI_20250214)), true);
  assert.is(spansSeveralDays(resolveDates({ startdate: '20250213', enddate: '20250214' }, FRI_20250214)), true);
});

ranges.run();

const rejected = suite('rejected combinations and values (400)');

rejected('tradedate with startdate or enddate', () => {
  rejects({ tradedate: '20250205', startdate: '20250201' }, /^params\.tradedate cannot be combined with params\.startdate or params\.enddate$/);
  rejects({ tradedate: '20250205', enddate: '20250206' }, /params\.tradedate cannot be combined/);
});

rejected('recentdays with any date parameter', () => {
  for (const other of [{ tradedate: '20250205' }, { startdate: '20250205' }, { enddate: '20250205' }]) {
    rejects({ recentdays: 3, ...other }, /^params\.recentdays cannot be combined with params\.tradedate, params\.startdate or params\.enddate$/);
  }
});

rejected('tradedate_offset with any other date parameter', () => {
  for (const other of [{ tradedate: '20250205' }, { startdate: '20250205' }, { enddate: '20250205' }, { recentdays: 2 }]) {
    rejects({ tradedate_offset: -1, ...other }, /^params\.tradedate_offset cannot be combined with/);
  }
});

rejected('startdate after enddate, or after the latest trading day when alone', () => {
  rejects({ startdate: '20250301', enddate: '20250228' }, /^params\.startdate 20250301 must not be after params\.enddate 20250228$/);
  rejects({ startdate: '20250215' }, /^params\.startdate 20250215 must not be after the latest trading day 20250214$/);
});

rejected('malformed dates', () => {
  for (const bad of ['2025-02-05', '20250230', '2025020', '', 'today']) rejects({ tradedate: bad }, /^params\.tradedate must be a date written YYYYMMDD$/);
  rejects({ tradedate: 20250205 }, /^params\.tradedate must be a date written YYYYMMDD$/);
  rejects({ startdate: '20251301', enddate: '20251301' }, /^params\.startdate must be a date/);
  rejects({ startdate: '20250101', enddate: '2025-01-31' }, /^params\.enddate must be a date/);
  rejects({ enddate: [] }, /^params\.enddate must be a date/);
});

rejected('recentdays and tradedate_offset values', () => {
  for (const bad of [0, -1, 1.5, '5', 10_001, Number.NaN, true]) rejects({ recentdays: bad }, /^params\.recentdays must be an integer from 1 to 10000$/);
  for (const bad of [1, 0.5, '-1', -10_001]) rejects({ tradedate_offset: bad }, /^params\.tradedate_offset must be an integer from -10000 to 0$/);
});

rejected.run();

const bounded = suite('dates outside the calendar known range (20150101-20261231 shipped)');

const KNOWN = "the trading calendar's known range 20150101-20261231";

bounded('every date parameter outside the known range is a 400 naming the range', () => {
  for (const [params, what] of [
    [{ tradedate: '99991231' }, 'params.tradedate 99991231'],
    [{ enddate: '99991231' }, 'params.enddate 99991231'],
    [{ startdate: '20250101', enddate: '99991231' }, 'params.enddate 99991231'],
    [{ startdate: '00010101', enddate: '20250131' }, 'params.startdate 00010101'],
    [{ startdate: '20141231' }, 'params.startdate 20141231'],
    [{ tradedate: '20270104' }, 'params.tradedate 20270104'],
    [{ enddate: '20141231' }, 'params.enddate 20141231'],
  ] as const) {
    rejects(params, new RegExp(`^${what} is outside ${KNOWN}$`));
  }
  rejects({ tradedate_offset: -10_000 }, new RegExp(`^params\\.tradedate_offset -10000 reaches \\d{8}, which is outside ${KNOWN}$`));
});

bounded('the edges of the known range are answerable; recentdays reaching before it still resolves', () => {
  assert.is(day({ tradedate: '20150101' }, FRI_20250214), '20150101');
  assert.is(day({ tradedate: '20261231' }, FRI_20250214), '20261231');
  // The requested start lies before 2015, but only the end month is read (rule 5).
  const [from, to, effFrom, effTo] = rangeOf({ recentdays: 10_000 }, FRI_20250214);
  assert.ok(from < '20150101', from);
  assert.equal([to, effFrom, effTo], ['20250214', '20250201', '20250214']);
});

bounded('a clock past the known range stretches it to the latest trading day, no further', () => {
  // Tuesday 5 January 2027: the calendar knows no 2027 closures, so the latest "trading day"
  // is the weekday itself, and dates up to it are answered (with a warning, by the app).
  const jan2027 = at('2027-01-05T16:30:00+08:00');
  assert.is(day({}, jan2027), '20270105');
  assert.is(day({ tradedate: '20270104' }, jan2027), '20270104');
  assertApiError(
    () => resolveDates({ tradedate: '20270106' }, jan2027),
    400,
    new RegExp(`^params\\.tradedate 20270106 is outside 20150101-20270105 \\(${KNOWN}, then weekdays up to the latest trading day\\)$`),
    '20270106',
  );
});

bounded('answering a request far out of range takes no time (it used to walk dates past year 9999)', () => {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 1000; i++) {
    try {
      resolveDates({ enddate: '99991231' }, FRI_20250214);
    } catch {
      // expected: 400
    }
  }
  // Not a timing assertion of speed, a bound on the work: 1000 rejections, well under a second.
  assert.ok(Number(process.hrtime.bigint() - t0) / 1e9 < 5);
});

bounded('no-data messages end with the reason', () => {
  const sel = resolveDates({ startdate: '20250120', enddate: '20250214' }, FRI_20250214);
  assert.is(dateMessage(sel, false, 'x'), 'no data; requested 20250120-20250214, effective 20250201-20250214; x');
  assert.is(dateMessage(sel, true, 'x'), 'success; requested 20250120-20250214, effective 20250201-20250214');
  assert.is(dateMessage(resolveDates({}, FRI_20250214), false, 'why'), 'no data; why');
});

bounded.run();
