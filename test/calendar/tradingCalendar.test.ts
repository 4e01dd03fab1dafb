import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CALENDAR_FIRST,
  CALENDAR_LAST,
  isValidDate,
  isTradingDay,
  latestTradingDay,
  previousTradingDay,
  nextTradingDay,
  tradingDaysBack,
  offsetFromLatest,
  tradingDaysInRange,
  recentTradingDays,
  tradingDaysFrom,
} from '../../calendar/tradingCalendar.js';

// Written out by hand from the exchanges' published closure notices (weekdays only), deliberately
// not imported from calendar/closures.ts so that a slip in the data is caught here.
const PUBLISHED_CLOSURES: Record<number, string[]> = {
  2024: [
    '20240101',
    '20240209',
    '20240212',
    '20240213',
    '20240214',
    '20240215',
    '20240216',
    '20240404',
    '20240405',
    '20240501',
    '20240502',
    '20240503',
    '20240610',
    '20240916',
    '20240917',
    '20241001',
    '20241002',
    '20241003',
    '20241004',
    '20241007',
  ],
  2025: [
    '20250101',
    '20250128',
    '20250129',
    '20250130',
    '20250131',
    '20250203',
    '20250204',
    '20250404',
    '20250501',
    '20250502',
    '20250505',
    '20250602',
    '20251001',
    '20251002',
    '20251003',
    '20251006',
    '20251007',
    '20251008',
  ],
  2026: [
    '20260101',
    '20260102',
    '20260216',
    '20260217',
    '20260218',
    '20260219',
    '20260220',
    '20260223',
    '20260406',
    '20260501',
    '20260504',
    '20260505',
    '20260619',
    '20260925',
    '20261001',
    '20261002',
    '20261005',
    '20261006',
    '20261007',
  ],
};
const HAND_CLOSED = new Set(Object.values(PUBLISHED_CLOSURES).flat());

const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad test instant ${iso}`);
  return ms;
};

/** Every date of a year as YYYYMMDD with its UTC weekday, via Date — independent of the module. */
function daysOfYear(year: number): { d: string; weekend: boolean }[] {
  const out: { d: string; weekend: boolean }[] = [];
  for (let t = Date.UTC(year, 0, 1); new Date(t).getUTCFullYear() === year; t += 86_400_000) {
    const dt = new Date(t);
    const d = dt.toISOString().slice(0, 10).replaceAll('-', '');
    out.push({ d, weekend: dt.getUTCDay() === 0 || dt.getUTCDay() === 6 });
  }
  return out;
}

/** Naive reference for 2024–2026: a weekday not in the hand-written list. */
const REF_TRADING: string[] = [2024, 2025, 2026].flatMap((y) =>
  daysOfYear(y)
    .filter((x) => !x.weekend && !HAND_CLOSED.has(x.d))
    .map((x) => x.d),
);

// ---------------------------------------------------------------------------------------------
const span = suite('CALENDAR_FIRST / CALENDAR_LAST');

span('cover 2015 through 2026', () => {
  assert.is(CALENDAR_FIRST, '20150101');
  assert.is(CALENDAR_LAST, '20261231');
});

span('outside the span only weekends are known: weekdays count as trading days', () => {
  assert.ok(isTradingDay('20141231')); // Wednesday
  assert.ok(isTradingDay('20270104')); // Monday
  assert.not.ok(isTradingDay('20270102')); // Saturday
  assert.not.ok(isTradingDay('20141228')); // Sunday
});

span.run();

// ---------------------------------------------------------------------------------------------
const valid = suite('isValidDate');

valid('accepts real dates, including leap days', () => {
  for (const d of ['20250102', '20240229', '20000229', '20251231', '20250131', '19991231']) {
    assert.ok(isValidDate(d), d);
  }
});

valid('rejects impossible days and months', () => {
  for (const d of ['20250230', '20250229', '19000229', '20250431', '20251301', '20250001', '20250100', '20250132']) {
    assert.not.ok(isValidDate(d), d);
  }
});

valid('rejects anything but strict YYYYMMDD', () => {
  for (const d of ['2025-01-02', '2025012', '202501021', '', ' 20250102', '20250102 ', '2025O102', '+2025010', '２０２５０１０２']) {
    assert.not.ok(isValidDate(d), JSON.stringify(d));
  }
});

valid.run();

// ---------------------------------------------------------------------------------------------
const trading = suite('isTradingDay');

for (const year of [2024, 2025, 2026]) {
  trading(`${year}: exactly the published closures and weekends are closed`, () => {
    for (const { d, weekend } of daysOfYear(year)) {
      assert.is(isTradingDay(d), !weekend && !HAND_CLOSED.has(d), d);
    }
  });
}

trading('trading-day counts per year', () => {
  const expected: Record<number, number> = {
    2015: 244,
    2016: 244,
    2017: 244,
    2018: 243,
    2019: 244,
    2020: 243,
    2021: 243,
    2022: 242,
    2023: 242,
    2024: 242,
    2025: 243,
    2026: 242,
  };
  for (const [year, count] of Object.entries(expected)) {
    const n = daysOfYear(Number(year)).filter((x) => isTradingDay(x.d)).length;
    assert.is(n, count, `trading days in ${year}`);
  }
});

trading('weekends never trade', () => {
  assert.not.ok(isTradingDay('20250222')); // Saturday
  assert.not.ok(isTradingDay('20250223')); // Sunday
  // Make-up working Saturdays/Sundays (调休) are still closed for the exchanges.
  assert.not.ok(isTradingDay('20250126')); // Sunday make-up day before Spring Festival 2025
  assert.not.ok(isTradingDay('20250208')); // Saturday make-up day after it
  assert.not.ok(isTradingDay('20260214')); // Saturday make-up day 2026
  assert.not.ok(isTradingDay('20260228'));
});

trading('Spring Festival 2025: 28 Jan – 4 Feb', () => {
  assert.ok(isTradingDay('20250127'));
  for (const d of ['20250128', '20250129', '20250130', '20250131', '20250201', '20250202', '20250203', '20250204']) {
    assert.not.ok(isTradingDay(d), d);
  }
  assert.ok(isTradingDay('20250205'));
});

trading('Spring Festival 2026: 16 – 23 Feb', () => {
  assert.ok(isTradingDay('20260213'));
  for (let day = 16; day <= 23; day++) assert.not.ok(isTradingDay(`202602${day}`), `202602${day}`);
  assert.ok(isTradingDay('20260224'));
});

trading('New Year', () => {
  assert.not.ok(isTradingDay('20250101'));
  assert.ok(isTradingDay('20250102'));
  assert.ok(isTradingDay('20241231'));
  assert.not.ok(isTradingDay('20260101'));
  assert.not.ok(isTradingDay('20260102'));
  assert.ok(isTradingDay('20260105'));
  assert.not.ok(isTradingDay('20181231')); // bridged into the 2019 New Year closure
});

trading('one-off closures: WWII anniversary 2015, COVID extension 2020', () => {
  assert.not.ok(isTradingDay('20150903'));
  assert.not.ok(isTradingDay('20150904'));
  assert.ok(isTradingDay('20150902'));
  assert.ok(isTradingDay('20150907'));
  assert.not.ok(isTradingDay('20200131'));
  assert.ok(isTradingDay('20200203'));
});

trading('invalid dates are not trading days', () => {
  for (const d of ['20250230', '2025-01-02', '2025012', '', 'today']) assert.not.ok(isTradingDay(d), d);
});

trading.run();

// ---------------------------------------------------------------------------------------------
const latest = suite('latestTradingDay');

latest('a trading day counts whatever the hour', () => {
  assert.is(latestTradingDay(at('2025-02-10T16:30:00+08:00')), '20250210');
  assert.is(latestTradingDay(at('2025-02-10T00:00:00+08:00')), '20250210');
  assert.is(latestTradingDay(at('2025-02-10T08:00:00+08:00')), '20250210');
  assert.is(latestTradingDay(at('2025-02-10T23:59:59.999+08:00')), '20250210');
});

latest('the Beijing date decides, not the UTC date', () => {
  assert.is(latestTradingDay(at('2025-01-01T23:00:00Z')), '20250102'); // 07:00 on 2 Jan in Beijing
  assert.is(latestTradingDay(at('2025-01-01T10:00:00+08:00')), '20241231');
  assert.is(latestTradingDay(at('2025-02-09T15:59:59.999Z')), '20250207'); // Sunday 23:59 Beijing
  assert.is(latestTradingDay(at('2025-02-09T16:00:00Z')), '20250210'); // Monday 00:00 Beijing
});

latest('weekends and holidays fall back', () => {
  assert.is(latestTradingDay(at('2025-02-08T12:00:00+08:00')), '20250207'); // Saturday → Friday
  assert.is(latestTradingDay(at('2025-02-09T20:00:00+08:00')), '20250207'); // Sunday → Friday
  assert.is(latestTradingDay(at('2025-02-01T10:00:00+08:00')), '20250127'); // mid Spring Festival
  assert.is(latestTradingDay(at('2025-02-04T15:00:00+08:00')), '20250127');
  assert.is(latestTradingDay(at('2025-02-05T09:30:00+08:00')), '20250205');
  assert.is(latestTradingDay(at('2026-02-20T10:00:00+08:00')), '20260213');
  assert.is(latestTradingDay(at('2025-10-08T10:00:00+08:00')), '20250930');
});

latest('rejects non-finite instants', () => {
  assert.throws(() => latestTradingDay(Number.NaN), RangeError);
  assert.throws(() => latestTradingDay(Number.POSITIVE_INFINITY), RangeError);
});

latest.run();

// ---------------------------------------------------------------------------------------------
const prev = suite('previousTradingDay');

prev('strictly before, over weekends and holidays', () => {
  assert.is(previousTradingDay('20250210'), '20250207');
  assert.is(previousTradingDay('20250205'), '20250127');
  assert.is(previousTradingDay('20250130'), '20250127'); // d need not be a trading day
  assert.is(previousTradingDay('20250102'), '20241231');
  assert.is(previousTradingDay('20260224'), '20260213');
  assert.is(previousTradingDay('20250128'), '20250127');
});

prev('agrees with a naive walk over every day of 2024–2026', () => {
  for (const y of [2024, 2025, 2026]) {
    for (const { d } of daysOfYear(y)) {
      const expected = [...REF_TRADING].reverse().find((t) => t < d);
      if (expected !== undefined) assert.is(previousTradingDay(d), expected, d);
    }
  }
});

prev('across the edges of the covered span', () => {
  assert.is(previousTradingDay('20150105'), '20141231'); // 1–2 Jan 2015 closed, then weekend
  assert.is(previousTradingDay('20150101'), '20141231');
  assert.is(previousTradingDay('20270104'), '20270101'); // beyond the span: weekdays only
  assert.is(previousTradingDay('20270101'), '20261231');
});

prev('rejects invalid dates', () => {
  assert.throws(() => previousTradingDay('20250230'), RangeError);
  assert.throws(() => previousTradingDay('2025-02-10'), RangeError);
});

prev.run();

// ---------------------------------------------------------------------------------------------
const next = suite('nextTradingDay');

next('strictly after, over weekends and holidays', () => {
  const cases = [
    ['20250207', '20250210'],
    ['20250127', '20250205'],
    ['20250201', '20250205'],
    ['20241231', '20250102'],
    ['20260213', '20260224'],
    ['20250930', '20251009'],
  ];
  for (const [d, want] of cases) assert.is(nextTradingDay(d), want, d);
});

next('agrees with a naive walk over every day of 2024–2026', () => {
  for (const y of [2024, 2025, 2026]) {
    for (const { d } of daysOfYear(y)) {
      const expected = REF_TRADING.find((t) => t > d);
      if (expected !== undefined) assert.is(nextTradingDay(d), expected, d);
    }
  }
});

next('across the edges of the covered span', () => {
  assert.is(nextTradingDay('20141231'), '20150105');
  assert.is(nextTradingDay('20141226'), '20141229');
  assert.is(nextTradingDay('20261231'), '20270101'); // beyond the span: weekdays only
  assert.is(nextTradingDay('20270101'), '20270104');
});

next('rejects invalid dates', () => {
  assert.throws(() => nextTradingDay('2025012'), RangeError);
});

next.run();

// ---------------------------------------------------------------------------------------------
const back = suite('tradingDaysBack');

/** Each case [d, n, the trading day n back from d]. */
function assertBack(cases: [string, number, string][]): void {
  for (const [d, n, want] of cases) assert.is(tradingDaysBack(d, n), want, `${d} back ${n}`);
}

back('n = 0 is d itself, or the latest trading day before it', () => {
  assertBack([
    ['20250210', 0, '20250210'],
    ['20250209', 0, '20250207'],
    ['20250203', 0, '20250127'],
  ]);
});

back('30-day window across Spring Festival 2025', () => {
  // 10, 7, 6, 5 Feb; 27, 24–20, 17–13, 10–6, 3, 2 Jan; 31, 30, 27–23, 20 Dec: the 30th is 20 Dec.
  assertBack([
    ['20250210', 29, '20241220'],
    ['20250205', 1, '20250127'],
    ['20250205', 2, '20250124'],
  ]);
  assert.is(tradingDaysInRange(tradingDaysBack('20250210', 29), '20250210').length, 30);
});

back('30-day window across Spring Festival 2026', () => {
  assertBack([
    ['20260224', 1, '20260213'],
    // 24 Feb, then 13–9, 6–2 Feb, 30–26, 23–19, 16–12, 9–6 Jan: the 30th is 6 Jan.
    ['20260224', 29, '20260106'],
  ]);
});

back('agrees with the reference list for every offset from the end of 2026', () => {
  const end = REF_TRADING.length - 1;
  for (let n = 0; n <= end; n += 7) assert.is(tradingDaysBack('20261231', n), REF_TRADING[end - n]!, `n=${n}`);
});

back('runs off the start of the span into weekdays-only territory', () => {
  assertBack([
    ['20150105', 1, '20141231'],
    ['20150106', 2, '20141231'],
    ['20150105', 3, '20141229'],
  ]);
});

back('from beyond the end of the span', () => {
  assertBack([
    ['20270105', 2, '20270101'],
    ['20270105', 3, '20261231'],
  ]);
});

back('rejects bad arguments', () => {
  assert.throws(() => tradingDaysBack('20250210', -1), RangeError);
  assert.throws(() => tradingDaysBack('20250210', 1.5), RangeError);
  assert.throws(() => tradingDaysBack('20250230', 1), RangeError);
});

back.run();

// ---------------------------------------------------------------------------------------------
const offset = suite('offsetFromLatest');

offset('0 is the latest trading day, negatives step back', () => {
  const now = at('2025-02-05T09:00:00+08:00');
  assert.is(offsetFromLatest(now, 0), '20250205');
  assert.is(offsetFromLatest(now, -1), '20250127');
  assert.is(offsetFromLatest(now, -2), '20250124');
  assert.is(offsetFromLatest(now, -29), tradingDaysBack('20250205', 29));
});

offset('from a non-trading instant', () => {
  const sat = at('2025-02-08T10:00:00+08:00');
  assert.is(offsetFromLatest(sat, 0), '20250207');
  assert.is(offsetFromLatest(sat, -3), '20250127');
});

offset('rejects positive or fractional offsets', () => {
  assert.throws(() => offsetFromLatest(at('2025-02-05T09:00:00+08:00'), 1), RangeError);
  assert.throws(() => offsetFromLatest(at('2025-02-05T09:00:00+08:00'), -0.5), RangeError);
});

offset.run();

// ---------------------------------------------------------------------------------------------
const range = suite('tradingDaysInRange');

range('across a month end and the 2025 National Day closure', () => {
  assert.equal(tradingDaysInRange('20250925', '20251010'), ['20250925', '20250926', '20250929', '20250930', '20251009', '20251010']);
});

range('across Spring Festival 2025 and a month end', () => {
  assert.equal(tradingDaysInRange('20250124', '20250206'), ['20250124', '20250127', '20250205', '20250206']);
});

range('inclusive ends, single day, empty cases', () => {
  assert.equal(tradingDaysInRange('20250210', '20250210'), ['20250210']);
  assert.equal(tradingDaysInRange('20250208', '20250209'), []);
  assert.equal(tradingDaysInRange('20250211', '20250210'), []);
});

range('whole years match the reference', () => {
  assert.equal(tradingDaysInRange('20240101', '20261231'), REF_TRADING);
  assert.is(tradingDaysInRange('20240101', '20241231').length, 242);
  assert.is(tradingDaysInRange('20250101', '20251231').length, 243);
});

range('straddling both edges of the covered span', () => {
  assert.equal(tradingDaysInRange('20141229', '20150106'), ['20141229', '20141230', '20141231', '20150105', '20150106']);
  assert.equal(tradingDaysInRange('20261230', '20270105'), ['20261230', '20261231', '20270101', '20270104', '20270105']);
});

range('rejects invalid dates', () => {
  assert.throws(() => tradingDaysInRange('20250101', '20250230'), RangeError);
  assert.throws(() => tradingDaysInRange('2025-01-01', '20250110'), RangeError);
});

range.run();

// ---------------------------------------------------------------------------------------------
const recent = suite('recentTradingDays');

recent('the last n ending at the latest, ascending', () => {
  const now = at('2025-02-06T20:00:00+08:00');
  assert.equal(recentTradingDays(now, 4), ['20250124', '20250127', '20250205', '20250206']);
  assert.equal(recentTradingDays(now, 1), ['20250206']);
  assert.equal(recentTradingDays(now, 0), []);
});

recent('30 days end at the latest and start at tradingDaysBack(latest, 29)', () => {
  const now = at('2025-02-10T16:30:00+08:00');
  const days = recentTradingDays(now, 30);
  assert.is(days.length, 30);
  assert.is(days[29], '20250210');
  assert.is(days[0], tradingDaysBack('20250210', 29));
  assert.ok(days.every((d, i) => i === 0 || days[i - 1]! < d));
});

recent('rejects bad n', () => {
  assert.throws(() => recentTradingDays(at('2025-02-10T16:30:00+08:00'), -1), RangeError);
  assert.throws(() => recentTradingDays(at('2025-02-10T16:30:00+08:00'), 2.5), RangeError);
});

recent.run();

const tradingDaysFromSuite = suite('tradingDaysFrom');
tradingDaysFromSuite('starts on the day itself when it trades, else the next trading day', () => {
  // Friday 2025-01-24, then Monday 27th, then the Spring Festival closure (28 Jan - 4 Feb).
  assert.equal(tradingDaysFrom('20250124', 4), ['20250124', '20250127', '20250205', '20250206']);
  // From a Saturday and from inside the closure.
  assert.equal(tradingDaysFrom('20250125', 2), ['20250127', '20250205']);
  assert.equal(tradingDaysFrom('20250130', 1), ['20250205']);
  assert.equal(tradingDaysFrom('20250102', 0), []);
});
tradingDaysFromSuite.run();
