/**
 * A live day's bars (api-contract: Bars, The live day), against real servers: a generated day
 * staged and not sealed, answered from staging; the same staging copied and sealed by
 * `tickvault seal`, answered from its bar files. After the close every bar interface's rows
 * equal the sealed answers, marked live; at 14:00 the 1m bars run to the one in progress
 * (1401), each equal to the sealed bar, and the 5m bar in progress folds only the minutes begun.
 */
import { cpSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateIntoStaging } from '../../../ingest/feed/generateIntoStaging.js';
import { openIngestStores } from '../../../ingest/staging/stores.js';
import { runCli } from '../../support/cli.js';
import { addAccount, postApi, startServer, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';

const test = suite('serve/bars/liveBars');

const DAY = '20250102';
const DURING = '2025-01-02T14:00:00+08:00';
const AFTER_CLOSE = '2025-01-02T18:00:00+08:00';

interface Page {
  readonly code: number;
  readonly message: string;
  readonly data: { fields: string[]; items: unknown[][]; has_more: boolean; live?: boolean };
}

const live = tempDir('tickvault-livebars-');
const sealed = tempDir('tickvault-livebars-sealed-');
const s = {} as { during: ServerHandle; after: ServerHandle; sealed: ServerHandle; keys: Map<ServerHandle, string> };

async function ask(server: ServerHandle, apiname: string, params: Record<string, unknown>): Promise<Page> {
  const r = await postApi(server, { apiname, apikey: s.keys.get(server), params });
  return r.json as unknown as Page;
}

test.before(async () => {
  const stores = openIngestStores(live, () => Date.parse(DURING));
  try {
    await generateIntoStaging({ days: [DAY], stocks: 3, indexes: 1, seed: 'livebars', faults: 0, ticks: 0.3 }, stores.staging);
    await stores.staging.flush();
  } finally {
    stores.close();
  }
  cpSync(live, sealed, { recursive: true });
  const seal = await runCli(['seal', '--date', DAY, '--data-dir', sealed], { env: { TICKVAULT_NOW: AFTER_CLOSE } });
  assert.is(seal.code, 0, seal.stderr);
  const liveKey = addAccount(live, 'standard').key;
  const sealedKey = addAccount(sealed, 'standard').key;
  const args = ['--rate-limit', '1000'];
  [s.during, s.after, s.sealed] = await Promise.all([
    startServer(live, { now: DURING, args }),
    startServer(live, { now: AFTER_CLOSE, args }),
    startServer(sealed, { now: AFTER_CLOSE, args }),
  ]);
  s.keys = new Map([
    [s.during, liveKey],
    [s.after, liveKey],
    [s.sealed, sealedKey],
  ]);
});

test.after(async () => {
  await Promise.all([s.during?.stop(), s.after?.stop(), s.sealed?.stop()]);
});

const symbolsOf = async () => (await ask(s.sealed, 'daily', { tradedate: DAY })).data.items.map((r) => r[1] as string);

test('after the close, not sealed yet: every bar interface answers what the seal makes, marked live', async () => {
  const symbols = await symbolsOf();
  assert.is(symbols.length, 3);
  for (const [apiname, params] of [
    ['minute', { symbols: symbols.join(','), tradedate: DAY }],
    ['minute', { symbols: symbols.join(','), tradedate: DAY, period: '15m' }],
    ['daily', { tradedate: DAY }],
    ['weekly', { tradedate: DAY }],
    ['monthly', { tradedate: DAY }],
    ['daily_auc', { tradedate: DAY }],
  ] as const) {
    const a = await ask(s.after, apiname, params);
    const b = await ask(s.sealed, apiname, params);
    assert.is(a.code, 200, a.message);
    assert.ok(b.data.items.length >= 3, `${apiname}: ${b.data.items.length} sealed rows`);
    assert.equal(a.data.items, b.data.items, `${apiname} ${JSON.stringify(params)}`);
    assert.is(a.data.live, true, apiname);
    assert.is(b.data.live, undefined);
  }
});

test('at 14:00 the 1m bars run to the bar in progress, each the sealed bar; 5m folds only the minutes begun', async () => {
  const [symbol] = await symbolsOf();
  const during = await ask(s.during, 'minute', { symbols: symbol, tradedate: DAY });
  const all = await ask(s.sealed, 'minute', { symbols: symbol, tradedate: DAY });
  assert.is(during.data.live, true);
  // 0930 … 1130 (121) and 1301 … 1401 (61): 1401 holds [14:00, 14:01), the minute in progress.
  assert.is(during.data.items.length, 182);
  assert.is(during.data.items[181][2], '1401');
  assert.equal(during.data.items, all.data.items.slice(0, 182));

  const five = await ask(s.during, 'minute', { symbols: symbol, tradedate: DAY, period: '5m' });
  const sealedFive = await ask(s.sealed, 'minute', { symbols: symbol, tradedate: DAY, period: '5m' });
  // 0935 … 1130 (24) and 1305 … 1400 (12) complete, then 1405 in progress.
  assert.is(five.data.items.length, 37);
  assert.equal(five.data.items.slice(0, 36), sealedFive.data.items.slice(0, 36));
  const inProgress = five.data.items[36];
  const minute1401 = during.data.items[181];
  const f = during.data.fields;
  const at = (n: string) => f.indexOf(n);
  assert.equal(
    [
      inProgress[2],
      inProgress[at('open')],
      inProgress[at('high')],
      inProgress[at('low')],
      inProgress[at('close')],
      inProgress[at('vol')],
      inProgress[at('amount')],
    ],
    ['1405', minute1401[at('open')], minute1401[at('high')], minute1401[at('low')], minute1401[at('close')], minute1401[at('vol')], minute1401[at('amount')]],
  );
});

test.run();
