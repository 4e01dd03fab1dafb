/// <reference lib="dom" />
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, Response } from 'playwright-core';
import { SqliteStateStore } from '../../../serve/access/sqliteState.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { CatalogWriter, openCatalog } from '../../../storage/catalog.js';
import { buildMinuteIndex, encodeMinuteCounts } from '../../../storage/minuteIndex.js';
import { encodeParquet } from '../../../storage/parquet/writer.js';
import { browserForTests } from '../../support/browser.js';
import { addAccount, httpRequest, postApi, preparedData, startServer, DEFAULT_SERVER_NOW, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

/**
 * The console in a real browser (Debian's chromium through playwright-core) against a started
 * server: sign in, read the account panel, run a level-2 query, page twice, see the chart
 * drawn, download a Parquet file, see a 403 and a 429 shown as such, sign out. What the page
 * shows is compared with what the API answers to the same requests made here directly. The
 * chart's lines start at the first trade (a sealed day whose auction rows have null and 0
 * prices), its volume axis speaks the browser's language (万 for zh-CN, M for en-US), and the
 * page carries its own icon (no /favicon.ico 404 in the browser's console).
 * TICKVAULT_CONSOLE_SCREENSHOT=FILE saves a screenshot of the page after the chart is drawn.
 */
const browser: Browser | null = await browserForTests('console browser tests');

let dataDir: string;
let server: ServerHandle;
let page: Page;
/** Uncaught errors in the page: every test ends by asserting there were none. */
const pageErrors: string[] = [];

const test = suite('GET /console in a browser');

async function signIn(key: string): Promise<void> {
  await page.fill('#key', key);
  await page.click('#signin-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  await page.waitForSelector('[data-testid=plan]');
}

/** Opens the console, signs in with `key`; the account panel's text. */
async function openSignedIn(key: string): Promise<string> {
  await page.goto(`${server.url}/console`);
  await page.waitForSelector('body[data-ready=true]');
  await signIn(key);
  return (await page.textContent('#account-body')) ?? '';
}

async function run(): Promise<string> {
  await answered(() => page.click('#run'));
  return (await page.textContent('#envelope')) ?? '';
}

/** Does `action` and waits for the page to show the next answer (the envelope's answer count). */
async function answered(action: () => Promise<unknown>): Promise<void> {
  const before = (await page.getAttribute('#envelope', 'data-answer')) ?? '0';
  await action();
  await page.waitForFunction((b) => (document.querySelector('#envelope') as HTMLElement).dataset.answer !== b, before);
}

/** How many distinct colours the chart's canvases hold: more than a background means drawn. */
async function chartColours(): Promise<number> {
  return page.$$eval('#chart canvas', (canvases) => {
    const seen = new Set<string>();
    for (const c of canvases as HTMLCanvasElement[]) {
      const ctx = c.getContext('2d');
      if (!ctx || c.width === 0 || c.height === 0) continue;
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < px.length; i += 4 * 97) if (px[i + 3] > 0) seen.add(`${px[i]},${px[i + 1]},${px[i + 2]}`);
    }
    return seen.size;
  });
}

/** The rows' first and last `time` shown in the table. */
async function tableTimes(): Promise<string[]> {
  return page.$$eval('#table tbody tr', (rows) => {
    const times = rows.map((r) => (r.children[2] as HTMLElement).textContent ?? '');
    return [times[0], times[times.length - 1]];
  });
}

/**
 * A stock-day the generator cannot make, sealed as the sealer would: 20 call-auction snapshots
 * (09:15:00–09:24:30, every 30 s) whose close is null and 0 in turn and volume 0, then the
 * 09:25 match and 19 snapshots from 09:30:00 (every 3 s) with prices and a cumulative volume
 * ending at 13,928,700. The expected chart is worked out here, from these arrays.
 */
const AUCTION_DAY = { symbol: '600999.SH', tradedate: '20250106' } as const;
const AUCTION_ROWS = 20;
const LAST_VOLUME = 13_928_700;

function auctionDayRows(): { timeMs: number; close: number; volume: number }[] {
  const rows = [];
  for (let i = 0; i < AUCTION_ROWS; i++) rows.push({ timeMs: ((9 * 60 + 15) * 60 + i * 30) * 1000, close: i % 2 === 0 ? NaN : 0, volume: 0 });
  rows.push({ timeMs: (9 * 60 + 25) * 60_000, close: 10, volume: 12_000_000 });
  for (let i = 1; i <= 19; i++) {
    rows.push({
      timeMs: ((9 * 60 + 30) * 60 + (i - 1) * 3) * 1000,
      close: Math.round((10 + i * 0.01) * 100) / 100,
      volume: i === 19 ? LAST_VOLUME : 12_000_000 + i * 100_000,
    });
  }
  return rows;
}

async function sealAuctionDay(dir: string): Promise<void> {
  const rows = auctionDayRows();
  const timesMs = Int32Array.from(rows, (r) => r.timeMs);
  const values = SCHEMAS.level2.valueFields.map((f) =>
    Float64Array.from(rows, (r) => (f.name === 'close' ? r.close : f.name === 'volume' ? r.volume : f.name === 'pre_close' ? 10 : NaN)),
  );
  const { symbol, tradedate } = AUCTION_DAY;
  const data = await encodeParquet({ dataset: 'level2', symbol, tradedate, rows: rows.length, timesMs, values }, { rowGroupSize: SCHEMAS.level2.rowGroupSize });
  const rel = `level2/date=${tradedate}/${symbol}.parquet`;
  mkdirSync(join(dir, `level2/date=${tradedate}`), { recursive: true });
  writeFileSync(join(dir, rel), data);
  const db = openCatalog(join(dir, 'catalog.db'));
  try {
    const idx = buildMinuteIndex(timesMs);
    const file = {
      symbol,
      relPath: rel,
      rows: rows.length,
      firstTimeMs: timesMs[0],
      lastTimeMs: timesMs[rows.length - 1],
      bytes: data.length,
      sha256: createHash('sha256').update(data).digest('hex'),
      minuteBase: idx.base,
      minuteCounts: encodeMinuteCounts(idx.counts),
    };
    new CatalogWriter(db).recordFiles('level2', tradedate, SCHEMAS.level2.rowGroupSize, [file], Date.now());
  } finally {
    db.close();
  }
}

/** A Beijing wall-clock time of 20250106 as the chart's time axis holds it (seconds, drawn as if UTC). */
function chartSeconds(timeMs: number): number {
  return Date.UTC(2025, 0, 6) / 1000 + timeMs / 1000;
}

interface ChartSeries {
  title: string;
  scale: string;
  points: { time: number; value: number }[];
}

async function chartSeries(p: Page = page): Promise<ChartSeries[]> {
  return p.evaluate(() => (globalThis as unknown as { tickvaultConsole: { chartSeries(): ChartSeries[] } }).tickvaultConsole.chartSeries());
}

if (browser) {
  test.before(async () => {
    ({ dataDir } = await preparedData({ ticks: 1 }));
    await sealAuctionDay(dataDir);
    server = await startServer(dataDir, { env: { TICKVAULT_RATE_LIMIT: '1000' } });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 }, acceptDownloads: true });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (process.env.TICKVAULT_DEBUG) console.log(`console: ${m.text()}`);
    });
  });

  test.after(async () => {
    await browser.close();
    await server?.stop();
  });

  test('sign in, the account panel, a level-2 day paged twice and charted, a Parquet download, sign out', async () => {
    const { key } = addAccount(dataDir, 'flagship');
    const panel = await openSignedIn(key);
    assert.match(panel, /Plan flagship/);
    assert.match(panel, /latest trading day 20250106/);
    assert.match(panel, /300 of 300 left \(0 used\)/, 'Parquet files today');
    assert.match(panel, /counters reset at 2025-01-07T00:00:00\+08:00/);

    // A bad value is refused in the page, before any request.
    await page.fill('#query-form [name=page_size]', 'lots');
    await page.click('#run');
    assert.is(await page.textContent('#query-form [name=page_size] + .field-error'), 'a whole number');

    // A level-2 query of 1,000 rows, then two more pages; each page as the API gives it.
    await page.fill('#query-form [name=symbol]', '600000.SH');
    await page.fill('#query-form [name=tradedate]', '20250106');
    await page.fill('#query-form [name=page_size]', '1000');
    assert.is(await run(), 'code 200 · success');
    const body = JSON.parse((await page.textContent('#request-json')) ?? '{}');
    assert.equal(body, { apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: '20250106', page_size: 1000 } });
    assert.match(
      (await page.textContent('#curl')) ?? '',
      /^curl -sS http:\/\/127\.0\.0\.1:\d+\/api -H 'Content-Type: application\/json' -d '\{"apiname":"level2_quote_history"/,
    );
    assert.match((await page.textContent('#python')) ?? '', /requests\.post\("http:\/\/127\.0\.0\.1:\d+\/api", json=body/);
    let direct = await postApi<{ items: unknown[][]; next_cursor: string | null }>(server, body);
    for (let p = 0; p < 3; p++) {
      const items = direct.json.data!.items;
      assert.equal(await tableTimes(), [items[0][2], items[299][2]], `page ${p + 1}: the table shows the API's rows`);
      assert.match((await page.textContent('#page-info')) ?? '', /^1000 rows on this page/);
      if (p === 2) break;
      const cursor = direct.json.data!.next_cursor!;
      await answered(() => page.click('#next-page'));
      assert.is(await page.inputValue('#query-form [name=cursor]'), cursor, 'the form shows the cursor it sent');
      assert.is(await page.textContent('#envelope'), 'code 200 · success');
      direct = await postApi(server, { ...body, params: { ...body.params, cursor } });
    }

    // The chart: drawn (its canvases hold more than a background colour) with the 09:25 mark.
    await page.fill('#query-form [name=cursor]', '');
    await page.fill('#query-form [name=page_size]', '');
    assert.is(await run(), 'code 200 · success');
    const colours = await chartColours();
    assert.ok(colours > 5, `the chart is drawn (${colours} colours)`);
    if (process.env.TICKVAULT_CONSOLE_SCREENSHOT) {
      // The README's picture: account, form, request and the chart in one view.
      await page.setViewportSize({ width: 1280, height: 1400 });
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = false)));
      await page.screenshot({ path: process.env.TICKVAULT_CONSOLE_SCREENSHOT, clip: { x: 0, y: 0, width: 1280, height: 1200 } });
      await page.setViewportSize({ width: 1280, height: 1000 });
    }

    // The whole day as Parquet: the stored file itself, as a browser download.
    await page.selectOption('#query-form [name=format]', 'parquet');
    assert.match(await run(), /^HTTP 200 · Parquet file, \d+ bytes$/);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
    const saved = join(tempDir(), 'download.parquet');
    await download.saveAs(saved);
    const stored = readFileSync(join(dataDir, 'level2/date=20250106/600000.SH.parquet'));
    assert.is(createHash('sha256').update(readFileSync(saved)).digest('hex'), createHash('sha256').update(stored).digest('hex'));
    await page.waitForFunction(() => /299 of 300 left \(1 used\)/.test(document.querySelector('#account-body')?.textContent ?? ''));

    // tick_history: one line per index.
    await page.click('button.op[data-op=tick_history]');
    await page.fill('#query-form [name=symbol]', '');
    await page.fill('#query-form [name=symbols]', '000001,000300');
    await page.fill('#query-form [name=tradedate]', '20250106');
    assert.match(await run(), /^code 200 · success/);
    assert.ok((await page.$$('#chart canvas')).length > 0, 'tick_history charted');

    // Sign out: the key is forgotten.
    await page.click('#signout');
    await page.waitForSelector('#signin:not([hidden])');
    assert.is(await page.evaluate(() => localStorage.getItem('tickvault.apikey')), null);
    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
    assert.ok(await page.isVisible('#signin'), 'still signed out after a reload');
    assert.equal(pageErrors, []);
  });

  test('trades and orders: their forms from the OpenAPI document, pages as the API gives them, charted', async () => {
    const { key } = addAccount(dataDir, 'flagship');
    const panel = await openSignedIn(key);
    assert.match(panel, /level2_trade_history/);
    assert.match(panel, /level2_order_history/);
    for (const [op, fields] of [
      ['level2_trade_history', 'trade_id'],
      ['level2_order_history', 'order_id'],
    ] as const) {
      await page.click(`button.op[data-op=${op}]`);
      assert.is(await page.inputValue('#query-form [name=symbol]'), '600000.SH');
      await page.fill('#query-form [name=tradedate]', '20250106');
      await page.fill('#query-form [name=page_size]', '2000');
      assert.is(await run(), 'code 200 · success');
      const body = JSON.parse((await page.textContent('#request-json')) ?? '{}');
      assert.equal(body, { apiname: op, apikey: key, params: { symbol: '600000.SH', tradedate: '20250106', page_size: 2000 } });
      const direct = await postApi<{ fields: string[]; items: unknown[][] }>(server, body);
      const items = direct.json.data!.items;
      assert.ok(direct.json.data!.fields.includes(fields));
      assert.equal(await tableTimes(), [items[0][2], items[299][2]], `${op}: the table shows the API's rows`);
      assert.ok((await chartColours()) > 3, `${op}: the chart is drawn`);
      // The next page goes by the cursor this interface issued.
      await answered(() => page.click('#next-page'));
      assert.is(await page.textContent('#envelope'), 'code 200 · success');
    }
    await page.click('#signout');
    assert.equal(pageErrors, []);
  });

  test('refusals are shown as the server gives them: 401 at sign-in, 403 for the plan, 429 with Retry-After', async () => {
    await page.goto(`${server.url}/console`);
    await page.waitForSelector('body[data-ready=true]');
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
    await page.fill('#key', 'tv_not-a-key');
    await page.click('#signin-form button[type=submit]');
    await page.waitForFunction(() => (document.querySelector('#signin-error')?.textContent ?? '') !== '');
    assert.is(await page.textContent('#signin-error'), '401: apikey is unknown or revoked');

    const standard = addAccount(dataDir, 'standard').key;
    await signIn(standard);
    await page.fill('#query-form [name=tradedate]', '20250106');
    assert.is(await run(), 'code 403 · the standard plan has no access to level2_quote_history');
    assert.ok(await page.$eval('#envelope', (e) => e.classList.contains('fail')));
    await page.click('#signout');

    // A trial account whose 100 level-2 calls of today are used up.
    const trial = addAccount(dataDir, 'trial');
    const store = new SqliteStateStore({ path: join(dataDir, 'service.db'), cursorKeyFile: join(dataDir, 'cursor.key') });
    for (let i = 0; i < 100; i++) await store.takeDaily(trial.id, 'level2_quote_history', 'calls', 100, Date.parse(DEFAULT_SERVER_NOW));
    await store.close();
    await signIn(trial.key);
    assert.match((await page.textContent('#account-body')) ?? '', /0 of 100 left \(100 used\)/);
    await page.fill('#query-form [name=tradedate]', '20250106');
    assert.match(await run(), /^code 429 · the trial plan's 100 calls per Beijing day on level2_quote_history are used up · Retry-After \d+ s$/);
    await page.click('#signout');
    assert.equal(pageErrors, []);
  });

  test('the page carries its icon: a fresh browser asks for no /favicon.ico and logs no error', async () => {
    // A browser of its own: Chromium asks a host for its favicon once per session, so the
    // shared one may have asked already.
    const fresh = (await browserForTests('console favicon'))!;
    try {
      const p = await fresh.newPage();
      const problems: string[] = [];
      p.on('console', (m) => m.type() === 'error' && problems.push(`${m.text()} (${m.location().url})`));
      p.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
      p.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()}: ${r.url()}`));
      await p.goto(`${server.url}/console`);
      await p.waitForSelector('body[data-ready=true]');
      await p.waitForLoadState('networkidle');
      assert.equal(problems, []);
      // The icon is a picture the browser can decode, not just a link.
      const size = await p.evaluate(async () => {
        const img = new Image();
        img.src = (document.querySelector('link[rel=icon]') as HTMLLinkElement).href;
        await img.decode();
        return [img.naturalWidth, img.naturalHeight];
      });
      assert.ok(size[0] > 0 && size[1] > 0, `the icon decodes (${size.join('×')})`);
    } finally {
      await fresh.close();
    }
  });

  test('no line through prices that are null or 0 before the first trade: an auction page draws nothing, a page with the match starts there', async () => {
    const { key } = addAccount(dataDir, 'flagship');
    await openSignedIn(key);

    // The generated day's first 20 snapshots are its call auction: the API gives no close for any.
    await page.fill('#query-form [name=symbol]', '600000.SH');
    await page.fill('#query-form [name=tradedate]', '20250106');
    await page.fill('#query-form [name=page_size]', '20');
    assert.is(await run(), 'code 200 · success');
    const body = JSON.parse((await page.textContent('#request-json')) ?? '{}');
    const auction = (await postApi<{ fields: string[]; items: unknown[][] }>(server, body)).json.data!;
    const iTime = auction.fields.indexOf('time');
    const iClose = auction.fields.indexOf('close');
    assert.is(auction.items.length, 20);
    assert.ok(
      auction.items.every((r) => String(r[iTime]) < '092500000' && (r[iClose] === null || r[iClose] === 0)),
      'the page is auction rows without a price',
    );
    assert.equal(await chartSeries(), [], 'nothing charted');
    assert.is((await page.$$('#chart canvas')).length, 0);
    assert.match((await page.textContent('#chart')) ?? '', /^Nothing to chart on this page: no trade yet/);

    // The sealed day: 20 auction rows (close null, 0, null, …), then the match and 19 trades' snapshots.
    await page.fill('#query-form [name=symbol]', AUCTION_DAY.symbol);
    await page.fill('#query-form [name=page_size]', '1000');
    assert.is(await run(), 'code 200 · success');
    assert.match((await page.textContent('#page-info')) ?? '', /^40 rows on this page/);
    const traded = auctionDayRows().slice(AUCTION_ROWS);
    const series = await chartSeries();
    assert.equal(
      series.map((s) => [s.title, s.scale]),
      [
        ['last price', 'right'],
        ['cumulative volume', 'left'],
      ],
    );
    assert.equal(
      series[0].points,
      traded.map((r) => ({ time: chartSeconds(r.timeMs), value: r.close })),
      'prices from the 09:25 match on, none at 0',
    );
    assert.equal(
      series[1].points,
      traded.map((r) => ({ time: chartSeconds(r.timeMs), value: r.volume })),
      'the volume from the match on',
    );
    assert.ok((await chartColours()) > 3, 'the chart is drawn');
    await page.click('#signout');
    assert.equal(pageErrors, []);
  });

  test("the volume axis in the browser language's units: 1392.87万 for zh-CN, 13.93M for en-US, and the ticks likewise", async () => {
    const { key } = addAccount(dataDir, 'flagship');
    // The labels as drawn: every text the page's canvases receive.
    const recordTexts = () => {
      const texts: string[] = [];
      (globalThis as unknown as { canvasTexts: string[] }).canvasTexts = texts;
      const fillText = CanvasRenderingContext2D.prototype.fillText;
      CanvasRenderingContext2D.prototype.fillText = function (text: string, x: number, y: number, maxWidth?: number) {
        texts.push(String(text));
        return maxWidth === undefined ? fillText.call(this, text, x, y) : fillText.call(this, text, x, y, maxWidth);
      };
    };
    const labels: Record<string, string[]> = {};
    for (const locale of ['zh-CN', 'en-US']) {
      const context = await browser.newContext({ locale, viewport: { width: 1280, height: 1000 } });
      try {
        await context.addInitScript(recordTexts);
        const p = await context.newPage();
        const errors: string[] = [];
        p.on('pageerror', (e) => errors.push(e.message));
        await p.goto(`${server.url}/console`);
        await p.waitForSelector('body[data-ready=true]');
        await p.fill('#key', key);
        await p.click('#signin-form button[type=submit]');
        await p.waitForSelector('[data-testid=plan]');
        await p.fill('#query-form [name=symbol]', AUCTION_DAY.symbol);
        await p.fill('#query-form [name=tradedate]', AUCTION_DAY.tradedate);
        await p.click('#run');
        await p.waitForFunction(() => (document.querySelector('#envelope') as HTMLElement).dataset.answer !== '0');
        const volume = (await chartSeries(p)).find((s) => s.title === 'cumulative volume')!;
        assert.is(volume.points[volume.points.length - 1].value, LAST_VOLUME);
        // Drawn after the layout's frames (the chart fits the day twice, two frames apart).
        for (let i = 0; i < 4; i++) await p.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
        labels[locale] = await p.evaluate(() => (globalThis as unknown as { canvasTexts: string[] }).canvasTexts);
        assert.equal(errors, []);
      } finally {
        await context.close();
      }
    }
    // The last value's label (13,928,700), and the axis's ticks between 12,000,000 and it.
    const zh = labels['zh-CN'];
    const en = labels['en-US'];
    assert.ok(zh.includes('1392.87万'), `zh-CN: the last volume as 1392.87万 among ${JSON.stringify(zh)}`);
    assert.ok(en.includes('13.93M'), `en-US: the last volume as 13.93M among ${JSON.stringify(en)}`);
    const zhTicks = zh.filter((t) => /^1[23]\d\d(\.\d{1,2})?万$/.test(t));
    const enTicks = en.filter((t) => /^1[23](\.\d{1,2})?M$/.test(t));
    assert.ok(new Set(zhTicks).size >= 3, `zh-CN: ticks in 万 (${zhTicks.join(' ')})`);
    assert.ok(new Set(enTicks).size >= 3, `en-US: ticks in M (${enTicks.join(' ')})`);
    // Nowhere a raw volume, nor the other language's units.
    for (const [locale, texts] of Object.entries(labels)) {
      assert.equal(
        texts.filter((t) => /^\d{5,}(\.\d+)?$/.test(t)),
        [],
        `${locale}: no unscaled volume`,
      );
    }
    assert.equal(
      zh.filter((t) => /\d[kMB]$/.test(t)),
      [],
    );
    assert.equal(
      en.filter((t) => /[万亿]$/.test(t)),
      [],
    );
  });

  test('Chromium gets the assets compressed (zstd) and a page of rows in gzip spliced from row text, and decodes both to the bytes sent uncompressed', async () => {
    const { key } = addAccount(dataDir, 'flagship');
    const seen: { url: string; method: string; encoding: string | undefined; body: Buffer; post: string | null }[] = [];
    const pending: Promise<void>[] = [];
    const listener = (r: Response) => {
      pending.push(
        (async () => {
          const headers = await r.allHeaders();
          seen.push({ url: r.url(), method: r.request().method(), encoding: headers['content-encoding'], body: await r.body(), post: r.request().postData() });
        })(),
      );
    };
    page.on('response', listener);
    try {
      await openSignedIn(key);
      await page.fill('#query-form [name=symbol]', '600000.SH');
      await page.fill('#query-form [name=tradedate]', '20250106');
      await run();
      await Promise.all(pending);
    } finally {
      page.off('response', listener);
      await page.click('#signout');
    }
    const script = seen.find((x) => x.url.endsWith('/console/console.js'));
    const page1 = seen.find((x) => x.method === 'POST' && x.url.endsWith('/api') && x.body.length > 1024);
    // Chromium sends `gzip, deflate, br, zstd`: zstd wins the tie, except for a page whose rows'
    // gzip is stored (api-contract: Compression).
    for (const [what, got, coding] of [
      ['console.js', script, 'zstd'],
      ['a page of rows', page1, 'gzip'],
    ] as const) {
      assert.ok(got, `${what} was fetched`);
      assert.is(got!.encoding, coding, `${what}: Chromium asks for zstd and gets ${coding}`);
      const plain = await httpRequest(got!.url, got!.post === null ? { method: 'GET' } : { body: got!.post, headers: { 'content-type': 'application/json' } });
      assert.is(plain.headers['content-encoding'], undefined);
      assert.ok(got!.body.equals(plain.body), `${what}: Chromium decoded other bytes than the uncompressed answer`);
    }
  });
}

test.run();
