/**
 * Damaged stored files against a started server (api-contract 74): a flipped byte, a truncation
 * and a missing file in a copy of a data directory. Their symbol-days answer 503 with a reason
 * and Retry-After (as rows, as Parquet downloads and through tick_history), everything else is
 * served as by a server over the undamaged original, each file is logged once, /metrics counts
 * them, and a verified copy renamed in (what `tickvault repair` does) is served without a restart.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, cpSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogFile } from '../../../storage/catalog.js';
import { addAccount, httpRequest, postApi, preparedFiles, startServers, type ServerHandle } from '../../support/server.js';
import { tempDir } from '../../support/tempDir.js';
import { TickvaultClient, TickvaultError } from '../../../client/index.js';

const test = suite('serve: damaged stored files');
const DATA = { days: 2, stocks: 3, indexes: 1, ticks: 0.2 } as const;
const DAY = '20250103';

const metric = (text: string, line: RegExp): number => Number(line.exec(text)?.[1] ?? NaN);

test('a damaged symbol-day answers 503 with its reason; the rest of the lake is served; one log line per file; a replaced file is served again', async () => {
  const { dataDir: original, files } = await preparedFiles(DATA);
  const dataDir = join(tempDir('tickvault-damaged-'), 'data');
  cpSync(original, dataDir, { recursive: true, filter: (src) => !/service\.db/.test(src) });
  const find = (dataset: string, symbol: string): CatalogFile => files.find((f) => f.dataset === dataset && f.symbol === symbol && f.tradedate === DAY)!;
  const [a, b, c] = [...new Set(files.filter((f) => f.dataset === 'level2').map((f) => f.symbol))].sort();
  const flipped = find('level2', a);
  const truncated = find('trade', b);
  const missing = find('order', c);
  const bytes = readFileSync(join(dataDir, flipped.path));
  // One bit, in the middle of the data: the kind of damage that may still decode, to wrong numbers.
  bytes[Math.floor(bytes.length / 2)] ^= 0x04;
  writeFileSync(join(dataDir, flipped.path), bytes);
  truncateSync(join(dataDir, truncated.path), Math.floor(truncated.bytes / 2));
  rmSync(join(dataDir, missing.path));

  // Many requests a second from one key: a limit far above them, so only the files decide.
  const opts = { args: ['--rate-limit', '10000'] };
  const [spoiled, whole] = await startServers([
    { dataDir, opts },
    { dataDir: original, opts },
  ]);
  try {
    const key = addAccount(dataDir, 'flagship').key;
    const wholeKey = addAccount(original, 'flagship').key;
    const ask = (s: ServerHandle, k: string, apiname: string, params: Record<string, unknown>) => postApi(s, { apiname, apikey: k, params });
    const refused = [
      ['level2_quote_history', { symbol: a, tradedate: DAY }, flipped],
      ['level2_quote_history', { symbol: a, tradedate: DAY, format: 'parquet' }, flipped],
      ['tick_history', { asset: 'stock', symbol: a, tradedate: DAY }, flipped],
      ['level2_trade_history', { symbol: b, tradedate: DAY }, truncated],
      ['level2_order_history', { symbol: c, tradedate: DAY, format: 'parquet' }, missing],
    ] as const;
    for (let round = 0; round < 2; round++) {
      for (const [apiname, params, file] of refused) {
        const r = await ask(spoiled, key, apiname, params);
        assert.is(r.status, 503, `${apiname} ${JSON.stringify(params)}: ${r.text.slice(0, 200)}`);
        assert.is(r.headers['retry-after'], '60');
        assert.is(r.headers['x-tickvault-reason'], 'damaged');
        assert.is(r.json.code, 503);
        assert.ok(r.json.message.startsWith(`stored file ${file.path} is damaged: `), r.json.message);
        assert.match(r.json.message, /not served until it is repaired on this site/);
        assert.not.match(r.text, /\bat |Error|\/tmp\//);
      }
    }
    // Our client takes the reason: it does not wait out a damaged file as it waits out a slot,
    // even allowed waits of two minutes.
    const client = new TickvaultClient({ baseUrl: spoiled.url, apikey: key, retry: { maxAttempts: 5, maxWaitSec: 120 } });
    const t0 = Date.now();
    try {
      await client.level2QuoteHistory({ symbol: a, tradedate: DAY });
      assert.unreachable('the client got rows of a damaged file');
    } catch (e) {
      assert.instance(e, TickvaultError);
      assert.equal([(e as TickvaultError).code, (e as TickvaultError).reason, (e as TickvaultError).retryAfterSec], [503, 'damaged', 60]);
    }
    assert.ok(Date.now() - t0 < 10_000, `answered in ${Date.now() - t0} ms, not after a wait`);
    const messages = await Promise.all(
      refused
        .slice(0, 1)
        .concat(refused.slice(3))
        .map(([apiname, params]) => ask(spoiled, key, apiname, params)),
    );
    assert.match(messages[0].json.message, /: its SHA-256 [0-9a-f]{64} differs from the catalog's /);
    assert.match(messages[1].json.message, new RegExp(`: it is ${Math.floor(truncated.bytes / 2)} bytes, the catalog lists ${truncated.bytes};`));
    assert.match(messages[2].json.message, /: it is missing;/);

    // Every other file of the lake, as rows, is what the server over the original answers.
    const others = files.filter((f) => f.dataset !== 'index' && ![flipped.path, truncated.path, missing.path].includes(f.path));
    assert.ok(others.length >= 10, `${others.length} other files`);
    const apinameOf = { level2: 'level2_quote_history', trade: 'level2_trade_history', order: 'level2_order_history' } as const;
    for (const f of others) {
      const params = { symbol: f.symbol, tradedate: f.tradedate };
      const apiname = apinameOf[f.dataset as keyof typeof apinameOf];
      const [got, want] = [await ask(spoiled, key, apiname, params), await ask(whole, wholeKey, apiname, params)];
      assert.is(got.status, 200, `${f.path}: ${got.text.slice(0, 200)}`);
      assert.equal(got.json, want.json, f.path);
    }

    // One error line per damaged file, naming it, without a stack; never a 500.
    const lines = spoiled
      .logs()
      .split('\n')
      .filter((l) => l.includes('stored file damaged'));
    assert.equal(lines.map((l) => (JSON.parse(l) as { file: string }).file).sort(), [flipped.path, truncated.path, missing.path].sort());
    assert.not.match(lines.join('\n'), /"stack"/);
    assert.not.match(spoiled.logs(), /"code":500/);
    const metrics = (await httpRequest(`${spoiled.url}/metrics`, { method: 'GET' })).text;
    assert.is(metric(metrics, /^tickvault_damaged_files (\d+)$/m), 3);
    const damagedCount = [...metrics.matchAll(/^tickvault_quota_rejections_total\{apiname="[a-z0-9_]+",reason="damaged_file"\} (\d+)$/gm)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    assert.is(damagedCount, refused.length * 2 + 1 + 3, 'two rounds, the client once (not retried), three messages');

    // What tickvault repair does: a verified copy under a temporary name, renamed over.
    const path = join(dataDir, flipped.path);
    copyFileSync(join(original, flipped.path), `${path}.tmp-repair`);
    renameSync(`${path}.tmp-repair`, path);
    for (const params of [
      { symbol: a, tradedate: DAY },
      { symbol: a, tradedate: DAY, format: 'parquet' },
    ]) {
      const got = await httpRequest(`${spoiled.url}/api`, {
        body: JSON.stringify({ apiname: 'level2_quote_history', apikey: key, params }),
        headers: { 'content-type': 'application/json' },
      });
      const want = await httpRequest(`${whole.url}/api`, {
        body: JSON.stringify({ apiname: 'level2_quote_history', apikey: wholeKey, params }),
        headers: { 'content-type': 'application/json' },
      });
      assert.is(got.status, 200, got.text.slice(0, 200));
      assert.ok(got.body.equals(want.body), `${JSON.stringify(params)}: the same bytes as the original's`);
    }
    const after = (await httpRequest(`${spoiled.url}/metrics`, { method: 'GET' })).text;
    assert.is(metric(after, /^tickvault_damaged_files (\d+)$/m), 2);
  } finally {
    await Promise.all([spoiled.stop(), whole.stop()]);
  }
});

test.run();
