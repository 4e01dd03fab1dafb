import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkAccess, earliestAllowedDate, PLANS, PLAN_NAMES } from '../../../serve/access/plans.js';

const test = suite('plans');

const at = (iso: string) => Date.parse(iso);

test('the plan table of api-contract: Plans and limits', () => {
  const table = PLAN_NAMES.map((name) => {
    const p = PLANS[name];
    const cell = (api: 'level2_quote_history' | 'tick_history') => {
      const a = p.access[api];
      if (!a.allowed) return '403';
      return `${a.depthTradingDays === null ? 'all' : `latest ${a.depthTradingDays}`}${a.dailyCalls === null ? '' : `, ${a.dailyCalls}/day`}`;
    };
    return [name, cell('level2_quote_history'), cell('tick_history'), p.parquetPerDay];
  });
  assert.equal(table, [
    ['free', '403', '403', 0],
    ['standard', '403', 'all', 0],
    ['trial', 'all, 100/day', 'all, 100/day', 0],
    ['professional', 'latest 30', 'all', 30],
    ['weekly-card', 'latest 30', 'all', 30],
    ['flagship', 'all', 'all', 300],
  ]);
});

// 2025 calendar, counted by hand: the latest trading day on Mon 2025-02-10 is that day;
// Spring Festival closed 01-28..02-04, 01-01 closed. Counting back 30 trading days,
// the 30th is 2024-12-20 (Fri).
const MON_0210_0030_BEIJING = at('2025-02-09T16:30:00Z');

test('latest 30 trading days, the 30th included, by the calendar in Beijing time', () => {
  const pro = PLANS.professional.access.level2_quote_history;
  assert.is(earliestAllowedDate(pro, MON_0210_0030_BEIJING), '20241220');
  assert.equal(checkAccess(PLANS.professional, 'level2_quote_history', ['20241220'], MON_0210_0030_BEIJING), { ok: true });
  assert.equal(checkAccess(PLANS.professional, 'level2_quote_history', ['20241219'], MON_0210_0030_BEIJING), {
    ok: false,
    reason: 'too-old',
    date: '20241219',
    earliest: '20241220',
  });
  assert.equal(checkAccess(PLANS['weekly-card'], 'level2_quote_history', ['20241219'], MON_0210_0030_BEIJING).ok, false);
});

test('the window follows the Beijing date, not UTC: 00:30 Monday Beijing is Sunday UTC', () => {
  // Ten minutes earlier in Beijing it is still Sunday: latest = Fri 02-07, window starts a day earlier.
  const sun2350 = at('2025-02-09T15:50:00Z');
  const pro = PLANS.professional.access.level2_quote_history;
  assert.is(earliestAllowedDate(pro, sun2350), '20241219');
  assert.is(earliestAllowedDate(pro, MON_0210_0030_BEIJING), '20241220');
});

test('a date later than the latest trading day is not a depth violation (no data instead)', () => {
  assert.equal(checkAccess(PLANS.professional, 'level2_quote_history', ['20250301'], MON_0210_0030_BEIJING), { ok: true });
});

test('all-history plans and tick_history have no lower bound', () => {
  for (const plan of [PLANS.flagship, PLANS.trial]) {
    assert.equal(checkAccess(plan, 'level2_quote_history', ['19991231'], MON_0210_0030_BEIJING), { ok: true });
  }
  for (const plan of [PLANS.standard, PLANS.professional, PLANS['weekly-card'], PLANS.flagship, PLANS.trial]) {
    assert.equal(checkAccess(plan, 'tick_history', ['20000104'], MON_0210_0030_BEIJING), { ok: true });
  }
});

test('no access is reported before any date', () => {
  assert.equal(checkAccess(PLANS.free, 'level2_quote_history', [], 0), { ok: false, reason: 'no-access' });
  assert.equal(checkAccess(PLANS.standard, 'level2_quote_history', ['20250102'], 0), { ok: false, reason: 'no-access' });
  assert.equal(checkAccess(PLANS.free, 'tick_history', [], 0), { ok: false, reason: 'no-access' });
});

test.run();
