import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  formatIndexTime,
  formatLevel2Time,
  isValidDateText,
  MS_PER_DAY,
  MS_PER_MINUTE,
  parseIndexClock,
  parseIndexTime,
  parseApiTime,
  parseLevel2Time,
  parseTrademin,
} from '../../shared/timeFormat.js';

/** Reference: milliseconds since midnight, computed by hand. */
const ms = (h: number, m: number, s = 0, f = 0): number => ((h * 60 + m) * 60 + s) * 1000 + f;

const NON_STRINGS: unknown[] = [null, undefined, 93000000, 0, true, {}, [], ['093000000']];

// ---------------------------------------------------------------------------------------------
const constants = suite('constants');

constants('minute and day lengths', () => {
  assert.is(MS_PER_MINUTE, 60 * 1000);
  assert.is(MS_PER_DAY, 24 * 60 * 60 * 1000);
});

// ---------------------------------------------------------------------------------------------
const l2 = suite('parseLevel2Time / formatLevel2Time (HHMMSSmmm)');

l2('valid nine-digit times', () => {
  assert.is(parseLevel2Time('000000000'), 0);
  assert.is(parseLevel2Time('091500000'), ms(9, 15));
  assert.is(parseLevel2Time('092459999'), ms(9, 24, 59, 999));
  assert.is(parseLevel2Time('093000123'), ms(9, 30, 0, 123));
  assert.is(parseLevel2Time('113000000'), ms(11, 30));
  assert.is(parseLevel2Time('145959999'), ms(14, 59, 59, 999));
  assert.is(parseLevel2Time('235959999'), ms(23, 59, 59, 999));
});

l2('out-of-range fields are rejected', () => {
  for (const t of ['240000000', '250000000', '996000000', '126000000', '093060000', '099900000', '256100000']) {
    assert.is(parseLevel2Time(t), null, t);
  }
});

l2('wrong shapes are rejected', () => {
  for (const t of [
    '',
    '09300000',
    '0930000000',
    '93000000',
    '093000',
    '09:30:00',
    '09:30:00.000',
    '093000.000',
    ' 093000000',
    '093000000 ',
    '093000000\n',
    '09300000a',
    '-93000000',
    '+93000000',
    '0930 0000',
    '1e8000000',
  ]) {
    assert.is(parseLevel2Time(t), null, JSON.stringify(t));
  }
  for (const v of NON_STRINGS) assert.is(parseLevel2Time(v), null, String(v));
});

l2('format pads every field', () => {
  assert.is(formatLevel2Time(0), '000000000');
  assert.is(formatLevel2Time(ms(9, 15)), '091500000');
  assert.is(formatLevel2Time(ms(9, 30, 0, 7)), '093000007');
  assert.is(formatLevel2Time(ms(9, 30, 5, 45)), '093005045');
  assert.is(formatLevel2Time(ms(13, 0, 0, 999)), '130000999');
  assert.is(formatLevel2Time(ms(23, 59, 59, 999)), '235959999');
});

l2('round trip over a day, every 997 ms plus the edges', () => {
  for (let t = 0; t < MS_PER_DAY; t += 997) assert.is(parseLevel2Time(formatLevel2Time(t)), t);
  assert.is(parseLevel2Time(formatLevel2Time(MS_PER_DAY - 1)), MS_PER_DAY - 1);
  for (const s of ['000000000', '091500001', '113000999', '150000000', '235959999']) assert.is(formatLevel2Time(parseLevel2Time(s)!), s);
});

// ---------------------------------------------------------------------------------------------
const idx = suite('parseIndexTime / formatIndexTime (YYYY-MM-DD HH:mm:ss.SSS)');

idx('valid times return date and ms', () => {
  assert.equal(parseIndexTime('2025-01-02 09:30:00.000'), { date: '20250102', ms: ms(9, 30) });
  assert.equal(parseIndexTime('2025-01-02 14:59:59.999'), { date: '20250102', ms: ms(14, 59, 59, 999) });
  assert.equal(parseIndexTime('2024-02-29 00:00:00.000'), { date: '20240229', ms: 0 });
  assert.equal(parseIndexTime('2025-12-31 23:59:59.999'), { date: '20251231', ms: ms(23, 59, 59, 999) });
});

idx('impossible dates and times are rejected', () => {
  for (const t of [
    '2025-02-29 09:30:00.000',
    '2025-13-01 09:30:00.000',
    '2025-00-10 09:30:00.000',
    '2025-01-00 09:30:00.000',
    '2025-04-31 09:30:00.000',
    '2025-01-02 25:00:00.000',
    '2025-01-02 24:00:00.000',
    '2025-01-02 12:60:00.000',
    '2025-01-02 12:00:60.000',
    '1899-01-02 09:30:00.000',
  ]) {
    assert.is(parseIndexTime(t), null, t);
  }
});

idx('wrong shapes are rejected', () => {
  for (const t of [
    '',
    '2025-01-02',
    '2025-01-02 09:30:00',
    '2025-01-02 09:30:00.00',
    '2025-01-02 09:30:00.0000',
    '2025-01-02T09:30:00.000',
    '20250102 09:30:00.000',
    '2025-1-2 09:30:00.000',
    '2025-01-02 9:30:00.000',
    ' 2025-01-02 09:30:00.000',
    '2025-01-02 09:30:00.000Z',
    '2025-01-02 09:30:00.000\n',
    '2025-01-02  09:30:00.000',
    '2025/01/02 09:30:00.000',
    '093000000',
    '25:61:00',
  ]) {
    assert.is(parseIndexTime(t), null, JSON.stringify(t));
  }
  for (const v of NON_STRINGS) assert.is(parseIndexTime(v), null, String(v));
});

idx('the clock alone: the same shapes and clock ranges; the date checked for its shape, not its day', () => {
  assert.is(parseIndexClock('2025-01-02 09:30:00.000'), ms(9, 30));
  assert.is(parseIndexClock('2025-02-29 14:59:59.999'), ms(14, 59, 59, 999), "a day that does not exist is the file's business");
  for (const t of [
    '2025-01-02 24:00:00.000',
    '2025-01-02 12:60:00.000',
    '2025-01-02 12:00:60.000',
    '2025-01-0x 09:30:00.000',
    '2025-01-02 09:3a:00.000',
    '2025-01-02T09:30:00.000',
    '2025-01-02 09:30:00.00',
  ]) {
    assert.is(parseIndexClock(t), null, t);
  }
  for (const v of NON_STRINGS) assert.is(parseIndexClock(v), null, String(v));
});

idx('format', () => {
  assert.is(formatIndexTime('20250102', ms(9, 30)), '2025-01-02 09:30:00.000');
  assert.is(formatIndexTime('20250102', ms(9, 30, 1, 5)), '2025-01-02 09:30:01.005');
  assert.is(formatIndexTime('20241231', ms(14, 59, 59, 999)), '2024-12-31 14:59:59.999');
  assert.is(formatIndexTime('20250102', 0), '2025-01-02 00:00:00.000');
});

idx('round trip', () => {
  for (let t = 0; t < MS_PER_DAY; t += 7919) {
    assert.equal(parseIndexTime(formatIndexTime('20250207', t)), { date: '20250207', ms: t });
  }
  for (const s of ['2025-01-02 09:25:00.001', '2024-02-29 13:00:00.000', '2025-12-31 23:59:59.999']) {
    const p = parseIndexTime(s)!;
    assert.is(formatIndexTime(p.date, p.ms), s);
  }
});

// ---------------------------------------------------------------------------------------------
const dates = suite('isValidDateText (YYYYMMDD)');

dates('real dates', () => {
  for (const d of ['20250102', '20240229', '20000229', '19900101', '20251231', '20250131', '20250430', '20991231']) {
    assert.ok(isValidDateText(d), d);
  }
});

dates('impossible dates', () => {
  for (const d of ['20250229', '19000229', '21000229', '20251340', '20250001', '20250100', '20250132', '20250431', '20250631', '20251301', '20250230']) {
    assert.not.ok(isValidDateText(d), d);
  }
});

dates('wrong shapes', () => {
  for (const d of ['2025010', '202501021', '2025-01-02', ' 20250102', '20250102 ', '20250102\n', '2025O102', '', '+2025010']) {
    assert.not.ok(isValidDateText(d), JSON.stringify(d));
  }
  for (const v of [20250102, null, undefined, true, {}, ['20250102']]) assert.not.ok(isValidDateText(v), String(v));
});

// ---------------------------------------------------------------------------------------------
const apiTime = suite('parseApiTime (HH:MM, HH:MM:SS, HH:MM:SS.mmm, HHMMSS, HHMMSSmmm)');

apiTime('each accepted form; shorter forms mean the start of the minute/second', () => {
  assert.is(parseApiTime('09:30'), ms(9, 30, 0, 0));
  assert.is(parseApiTime('09:30:15'), ms(9, 30, 15, 0));
  assert.is(parseApiTime('09:30:15.123'), ms(9, 30, 15, 123));
  assert.is(parseApiTime('093015'), ms(9, 30, 15, 0));
  assert.is(parseApiTime('093015123'), ms(9, 30, 15, 123));
  assert.is(parseApiTime('00:00'), 0);
  assert.is(parseApiTime('00:00:00'), 0);
  assert.is(parseApiTime('23:59'), ms(23, 59));
  assert.is(parseApiTime('23:59:59'), ms(23, 59, 59));
  assert.is(parseApiTime('23:59:59.999'), ms(23, 59, 59, 999));
  assert.is(parseApiTime('235959999'), ms(23, 59, 59, 999));
  assert.is(parseApiTime('150000'), ms(15, 0));
  assert.is(parseApiTime('10:00:00.500'), ms(10, 0, 0, 500));
});

apiTime('the forms agree with each other', () => {
  assert.is(parseApiTime('13:05'), parseApiTime('130500'));
  assert.is(parseApiTime('13:05:07'), parseApiTime('130507'));
  assert.is(parseApiTime('130507000'), parseApiTime('13:05:07'));
  assert.is(parseApiTime('13:05:07.250'), parseApiTime('130507250'));
  assert.is(parseApiTime('13:05:00.000'), parseApiTime('13:05'));
});

apiTime('out-of-range values', () => {
  for (const t of [
    '25:00',
    '24:00',
    '12:60',
    '12:00:60',
    '250000',
    '126000',
    '120060',
    '250000000',
    '126000000',
    '120060000',
    '24:00:00.000',
    '12:60:00.000',
    '12:00:60.000',
  ]) {
    assert.is(parseApiTime(t), null, t);
  }
});

apiTime('other shapes: 8 digits, 7 digits, HHMM, one-digit hours, short fractions, separators', () => {
  for (const t of [
    '09300000',
    '0930000',
    '0930',
    '930',
    '9:30',
    '09:3',
    '9:30:00',
    '09:30:00.5',
    '09:30:00.50',
    '09:30:00.0000',
    '09:30:00.',
    '0930001234',
    '09-30',
    '09.30',
    ' 09:30',
    '09:30 ',
    '09:30\n',
    '',
    'ab:cd',
    '0930a0',
    '09:30:00:000',
    '09:30.000',
    '093000.000',
    '2025-01-02 09:30:00.000',
  ]) {
    assert.is(parseApiTime(t), null, JSON.stringify(t));
  }
  for (const v of NON_STRINGS) assert.is(parseApiTime(v), null, String(v));
});

// ---------------------------------------------------------------------------------------------
const trademin = suite('parseTrademin (HHMM, HH:MM)');

trademin('minute start', () => {
  assert.is(parseTrademin('0930'), ms(9, 30));
  assert.is(parseTrademin('1459'), ms(14, 59));
  assert.is(parseTrademin('0000'), 0);
  assert.is(parseTrademin('2359'), ms(23, 59));
  assert.is(parseTrademin('09:30'), ms(9, 30));
  assert.is(parseTrademin('09:25'), parseTrademin('0925'));
});

trademin('rejected', () => {
  for (const t of ['2400', '2500', '0960', '930', '09300', '9:30', '09:3', '24:00', '09:60', '09::30', '093000', ' 0930', '0930 ', '0930\n', '', 'ab12']) {
    assert.is(parseTrademin(t), null, JSON.stringify(t));
  }
  for (const v of [930, null, undefined, true, {}, ['0930']]) assert.is(parseTrademin(v), null, String(v));
});

constants.run();
l2.run();
idx.run();
dates.run();
apiTime.run();
trademin.run();
