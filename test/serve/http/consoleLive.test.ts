/// <reference lib="dom" />
/**
 * The console on a live day, in a real browser (Debian's chromium through playwright-core)
 * against a started server whose clock is inside the trading day: a level-2 query of the day
 * says it is live, and the page follows the day, asking again on its own; a snapshot the
 * ingest writer commits meanwhile appears in the table and the chart without a click; once the
 * day is sealed the page says so no more and stops asking.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, Page } from 'playwright-core';
import { generateIntoStaging } from '../../../ingest/feed/generateIntoStaging.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { SCHEMAS } from '../../../shared/schema.js';
import { browserForTests } from '../../support/browser.js';
import { runCli } from '../../support/cli.js';
import { addAccount, postApi, startServer, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const browser: Browser | null = await browserForTests('console live-day browser tests');
const test = suite('GET /console on a live day');

const DAY = '20250102';
const DURING = '2025-01-02T14:00:00+08:00';
const SYMBOL = '600000.SH';
const dataDir = tempDir('tickvault-console-live-');

/** Waits until the page has shown an answer after the `n`th (its own follow-ups included). */
async function answerAfter(page: Page, n: number): Promise<number> {
  await page.waitForFunction((k) => Number(document.getElementById('envelope')?.dataset.answer ?? 0) > k, n, { timeout: 20_000 });
  return Number(await page.getAttribute('#envelope', 'data-answer'));
}

/** A snapshot of SYMBOL at `timeMs` with this close, committed to staging by the ingest writer. */
async function stageSnapshot(timeMs: number, close: number): Promise<void> {
  const stores = openIngestStores(dataDir, () => Date.parse(DURING));
  try {
    const values = new Array<number | null>(SCHEMAS.level2.valueFields.length).fill(null);
    const at = (name: string) => SCHEMAS.level2.valueFields.findIndex((f) => f.name === name);
    values[at('close')] = close;
    values[at('volume')] = 99_999_900;
    stores.staging.stage([{ dataset: 'level2', symbol: SYMBOL, tradedate: DAY, timeMs, values }], []);
    await stores.staging.flush();
  } finally {
    stores.close();
  }
}

if (browser) {
  let server: ServerHandle;
  let page: Page;
  const pageErrors: string[] = [];

  test.before(async () => {
    const stores = openIngestStores(dataDir, () => Date.parse(DURING));
    try {
      await generateIntoStaging({ days: [DAY], stocks: 2, indexes: 1, seed: 'console-live', faults: 0 }, stores.staging);
    } finally {
      stores.close();
    }
    server = await startServer(dataDir, { now: DURING, env: { TICKVAULT_RATE_LIMIT: '1000' } });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  test.after(async () => {
    await browser.close();
    await server?.stop();
  });

  test('a live day is marked and followed; a committed snapshot appears on its own; sealed, it stops', async () => {
    const { key } = addAccount(dataDir, 'flagship');
    await page.goto(`${server.url}/console`);
    await page.waitForSelector('body[data-ready=true]');
    await page.fill('#key', key);
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('[data-testid=plan]');

    await page.fill('#query-form [name=symbol]', SYMBOL);
    await page.fill('#query-form [name=tradedate]', DAY);
    await page.fill('#query-form [name=fields]', 'time,close,volume');
    const before = Number(await page.getAttribute('#envelope', 'data-answer'));
    await page.click('#run');
    const first = await answerAfter(page, before);
    assert.match((await page.textContent('#envelope')) ?? '', /^code 200 · success · live: the day is not sealed yet; asked again every 5 s$/);
    const direct = await postApi<{ items: unknown[][]; live?: boolean }>(server, {
      apiname: 'level2_quote_history',
      apikey: key,
      params: { symbol: SYMBOL, tradedate: DAY },
    });
    assert.is(direct.json.data!.live, true);
    const rowsBefore = direct.json.data!.items.length;
    assert.match((await page.textContent('#page-info')) ?? '', new RegExp(`^${rowsBefore} rows on this page`));

    // A later snapshot, committed while the page is open: the page asks again by itself.
    await stageSnapshot((14 * 3600 + 59 * 60 + 59) * 1000 + 990, 99.99);
    let shown = first;
    for (let tries = 0; tries < 3; tries++) {
      shown = await answerAfter(page, shown);
      if (((await page.textContent('#page-info')) ?? '').startsWith(`${rowsBefore + 1} rows`)) break;
    }
    assert.match((await page.textContent('#page-info')) ?? '', new RegExp(`^${rowsBefore + 1} rows on this page`));
    const series = await page.evaluate(() =>
      (globalThis as unknown as { tickvaultConsole: { chartSeries(): { title: string; points: { value: number }[] }[] } }).tickvaultConsole.chartSeries(),
    );
    const price = series.find((s) => s.points.some((p) => p.value === 99.99));
    assert.ok(price, `the committed close is charted: ${JSON.stringify(series.map((s) => s.title))}`);

    // Sealed under the open page: the next answer is not live, and the page stops asking.
    const seal = await runCli(['seal', '--date', DAY, '--data-dir', dataDir], { env: { TICKVAULT_NOW: '2025-01-02T18:00:00+08:00' } });
    assert.is(seal.code, 0, seal.stderr);
    const sealedAnswer = await answerAfter(page, shown);
    assert.is(await page.textContent('#envelope'), 'code 200 · success');
    assert.is(await page.getAttribute('#envelope', 'data-live'), 'false');
    // No further answer comes on its own: the follow stopped (an answer is asked only by a click now).
    const stopped = await page
      .waitForFunction((k) => Number(document.getElementById('envelope')?.dataset.answer ?? 0) > k, sealedAnswer, { timeout: 7_000 })
      .then(
        () => false,
        () => true,
      );
    assert.ok(stopped, 'no answer after the sealed one');
    assert.equal(pageErrors, []);
  });
}

test.run();
