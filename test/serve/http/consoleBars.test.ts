/// <reference lib="dom" />
/**
 * The console's K-line (api-contract: Bars) in a real browser against a started server over a
 * lake with trades: `minute` and `daily` drawn as candlesticks with volume bars, every candle
 * the API's own bar for the same request made here directly.
 * TICKVAULT_CONSOLE_KLINE_SCREENSHOT=FILE saves a screenshot of the minute K-line (the README's).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { browserForTests } from '../../support/browser.js';
import { barLake } from '../../support/barsReference.js';
import { addAccount, postApi, startServer, type ServerHandle } from '../../support/server.js';

const browser: Browser | null = await browserForTests('console K-line tests');
const test = suite('the console draws bars as a K-line');
const s = {} as { server: ServerHandle; page: Page; key: string };
const pageErrors: string[] = [];

interface Candle {
  time: number;
  open?: number;
  high?: number;
  low?: number;
  close?: number;
  value?: number;
}

async function series(): Promise<{ title: string; points: Candle[] }[]> {
  return s.page.evaluate(() =>
    (globalThis as unknown as { tickvaultConsole: { chartSeries(): { title: string; points: Candle[] }[] } }).tickvaultConsole.chartSeries(),
  );
}

async function runOp(op: string, params: Record<string, string>): Promise<string> {
  const { page } = s;
  await page.click(`button.op[data-op=${op}]`);
  for (const [name, value] of Object.entries(params)) await page.fill(`#query-form [name=${name}]`, value);
  const before = (await page.getAttribute('#envelope', 'data-answer')) ?? '0';
  await page.click('#run');
  await page.waitForFunction((b) => (document.querySelector('#envelope') as HTMLElement).dataset.answer !== b, before);
  return (await page.textContent('#envelope')) ?? '';
}

if (browser) {
  test.before(async () => {
    const { dataDir } = await barLake();
    s.server = await startServer(dataDir, { now: '2025-01-07T18:00:00+08:00' });
    s.key = addAccount(dataDir, 'standard').key;
    s.page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    s.page.on('pageerror', (e) => pageErrors.push(e.message));
    await s.page.goto(`${s.server.url}/console`);
    await s.page.waitForSelector('body[data-ready=true]');
    await s.page.fill('#key', s.key);
    await s.page.click('#signin-form button[type=submit]');
    await s.page.waitForSelector('#app:not([hidden])');
  });

  test.after(async () => {
    await browser.close();
    await s.server?.stop();
  });

  test('minute: 241 candles of the day, each the API’s bar, and its volume bars', async () => {
    assert.is(await runOp('minute', { symbols: '600000.SH', tradedate: '20250106' }), 'code 200 · success');
    const direct = await postApi<{ fields: string[]; items: unknown[][] }>(s.server, {
      apiname: 'minute',
      apikey: s.key,
      params: { symbols: '600000.SH', tradedate: '20250106' },
    });
    const f = direct.json.data!.fields;
    const rows = direct.json.data!.items.map((r) => Object.fromEntries(f.map((n, i) => [n, r[i]])) as Record<string, number | string>);
    const [kline, vol] = await series();
    assert.is(kline.title, '600000.SH K-line');
    assert.is(kline.points.length, 241);
    kline.points.forEach((c, i) => {
      const r = rows[i];
      const [hh, mm] = [String(r.trademin).slice(0, 2), String(r.trademin).slice(2)];
      assert.equal(c, { time: Date.UTC(2025, 0, 6, +hh, +mm) / 1000, open: r.open, high: r.high, low: r.low, close: r.close }, String(r.trademin));
    });
    assert.equal(
      vol.points.map((p) => p.value),
      rows.map((r) => r.vol),
    );
    if (process.env.TICKVAULT_CONSOLE_KLINE_SCREENSHOT) {
      await s.page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = false)));
      const box = await s.page.locator('#response').boundingBox();
      await s.page.screenshot({ path: process.env.TICKVAULT_CONSOLE_KLINE_SCREENSHOT, fullPage: true, clip: { x: 0, y: box!.y, width: 1280, height: 560 } });
    }
  });

  test('daily: one candle a trading day', async () => {
    assert.match(await runOp('daily', { symbols: '000001.SZ', tradedate: '', startdate: '20250102', enddate: '20250107' }), /^code 200 · success/);
    const direct = await postApi<{ items: unknown[][] }>(s.server, {
      apiname: 'daily',
      apikey: s.key,
      params: { symbols: '000001.SZ', startdate: '20250102', enddate: '20250107' },
    });
    const [kline] = await series();
    assert.equal(
      kline.points.map((c) => [c.time, c.open, c.close]),
      direct.json.data!.items.map((r) => [Date.UTC(+String(r[0]).slice(0, 4), +String(r[0]).slice(4, 6) - 1, +String(r[0]).slice(6)) / 1000, r[3], r[6]]),
    );
    assert.equal(pageErrors, []);
  });

  test.run();
}
