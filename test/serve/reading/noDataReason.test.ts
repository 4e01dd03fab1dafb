import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { noDataInRange, noDataOnDay } from '../../../serve/reading/noDataReason.js';

/** Reasons worked out by hand from the exchanges' 2025 calendar (Spring Festival 28 Jan - 4 Feb). */
const test = suite('no-data reasons');
const FRI_20250214 = Date.parse('2025-02-14T16:30:00+08:00');

test('one day: after the latest trading day, then closed, then not stored', () => {
  assert.is(noDataOnDay('20250217', FRI_20250214, 'X'), '20250217 is after the latest trading day 20250214');
  assert.is(noDataOnDay('20250215', FRI_20250214, 'X'), '20250215 is after the latest trading day 20250214');
  assert.is(noDataOnDay('20250131', FRI_20250214, 'X'), '20250131 is not a trading day');
  assert.is(noDataOnDay('20250208', FRI_20250214, 'X'), '20250208 is not a trading day');
  assert.is(noDataOnDay('20250214', FRI_20250214, 'X'), 'X');
});

test('a range: begins after the latest trading day, holds no trading day, or not stored', () => {
  assert.is(noDataInRange({ from: '20250301', to: '20250303' }, FRI_20250214, 'X'), 'the effective range begins after the latest trading day 20250214');
  assert.is(noDataInRange({ from: '20250128', to: '20250204' }, FRI_20250214, 'X'), 'the effective range holds no trading day');
  assert.is(noDataInRange({ from: '20250208', to: '20250209' }, FRI_20250214, 'X'), 'the effective range holds no trading day');
  // Days after the latest do not count as trading days yet: 15-16 Feb are a weekend, 17 Feb is to come.
  assert.is(noDataInRange({ from: '20250208', to: '20250217' }, FRI_20250214, 'X'), 'X');
  assert.is(noDataInRange({ from: '20250215', to: '20250217' }, FRI_20250214, 'X'), 'the effective range begins after the latest trading day 20250214');
  assert.is(noDataInRange({ from: '20250201', to: '20250214' }, FRI_20250214, 'X'), 'X');
});

test('past the calendar known range the reason says the closures are unknown', () => {
  const jan2027 = Date.parse('2027-01-05T16:30:00+08:00');
  const note = " (the trading calendar's known range ends 20261231; closures after it are unknown)";
  assert.is(noDataOnDay('20270104', jan2027, 'X'), `X${note}`);
  assert.is(noDataOnDay('20270106', jan2027, 'X'), `20270106 is after the latest trading day 20270105${note}`);
  assert.is(noDataOnDay('20261230', jan2027, 'X'), 'X');
});

test.run();
