/**
 * The row text window end to end, through the commands: a replay makes row text for the days
 * of its window only; `doctor` looks for it inside the window and not outside, on both sides
 * of a window moved by --row-text-days; `doctor --rebuild` makes what is missing and removes
 * what is outside. A replay killed between listing its days and making their row text loses
 * nothing: its server answers the pages of a lake that finished, byte for byte, and the row
 * text made afterwards is the finished lake's own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CatalogReader, openCatalog, type CatalogFile } from '../../storage/catalog.js';
import type { Dataset } from '../../shared/schema.js';
import { rowTextRelPath } from '../../storage/layout.js';
import { runCli, startCli, waitForLine } from '../support/cli.js';
import { addAccount, httpRequest, preparedData, REPLAY_NOW, startServers } from '../support/server.js';
import { tempDir } from '../support/tempDir.js';

const t = suite('row text window (commands)');
const env = { TICKVAULT_NOW: REPLAY_NOW };
const DATA = { ticks: 1 } as const;

function pagedFilesOf(dataDir: string, day: string, datasets: readonly Dataset[] = ['level2', 'trade', 'order']): CatalogFile[] {
  const db = openCatalog(join(dataDir, 'catalog.db'), true);
  try {
    const c = new CatalogReader(db);
    return datasets.flatMap((d) => c.filesOfDay(d, day));
  } finally {
    db.close();
  }
}

const rowTextDays = (dataDir: string, dataset: string) => readdirSync(join(dataDir, '_rowtext', dataset)).sort();
const rowTextWarnings = (stdout: string) => stdout.split('\n').filter((l) => /^WARNING row-text/.test(l));

t('a replay makes the window’s row text; doctor looks for it inside the window only; --rebuild makes and removes', async () => {
  const { feedFile } = await preparedData(DATA);
  const dataDir = join(tempDir('tickvault-window-'), 'data');
  const rep = await runCli(['replay', feedFile, '--data-dir', dataDir, '--row-text-days', '2'], { env });
  assert.is(rep.code, 0, rep.stderr);
  assert.equal(readdirSync(join(dataDir, '_rowtext')), ['level2'], 'level 2 only (issue 52)');
  assert.equal(rowTextDays(dataDir, 'level2'), ['date=20250103', 'date=20250106']);

  const inside = await runCli(['doctor', '--data-dir', dataDir, '--row-text-days', '2'], { env });
  assert.is(inside.code, 0, inside.stdout);
  assert.not.match(inside.stdout, /WARNING/);

  // The default window (10) holds all three days: the first day's files lack theirs.
  const wider = await runCli(['doctor', '--data-dir', dataDir], { env });
  assert.is(wider.code, 0, 'row text is derived: its absence is a warning, not a problem');
  const firstDay = pagedFilesOf(dataDir, '20250102', ['level2']);
  assert.equal(
    rowTextWarnings(wider.stdout)
      .map((l) => /(\S+\.parquet)/.exec(l)?.[1])
      .sort(),
    firstDay.map((f) => f.path).sort(),
  );

  const rebuilt = await runCli(['doctor', '--data-dir', dataDir, '--rebuild'], { env });
  assert.is(rebuilt.code, 0, rebuilt.stdout);
  const after = await runCli(['doctor', '--data-dir', dataDir], { env });
  assert.equal(rowTextWarnings(after.stdout), []);

  const narrowed = await runCli(['doctor', '--data-dir', dataDir, '--rebuild', '--row-text-days', '1'], { env });
  assert.is(narrowed.code, 0, narrowed.stdout);
  assert.equal(rowTextDays(dataDir, 'level2'), ['date=20250106']);

  const bad = await runCli(['doctor', '--data-dir', dataDir, '--row-text-days', 'ten'], { env });
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /--row-text-days/);
  assert.is(bad.stderr.trim().split('\n').length, 1, bad.stderr);
});

t('a replay killed after listing its days, before their row text: the same pages, then the same row text', async () => {
  const { feedFile, dataDir: finished } = await preparedData(DATA);
  const dataDir = join(tempDir('tickvault-window-'), 'data');
  const replay = startCli(['replay', feedFile, '--data-dir', dataDir], { env: { ...env, TICKVAULT_LOG_LEVEL: 'info' } });
  replay.stdin!.end();
  // 'day sealed' is logged once every day is listed, before the row text step.
  await waitForLine(replay, /"day sealed"/, 120_000);
  replay.kill('SIGKILL');
  await new Promise((r) => replay.once('close', r));

  const doctor = await runCli(['doctor', '--data-dir', dataDir], { env });
  assert.is(doctor.code, 0, `nothing lost: ${doctor.stdout}`);

  const files = pagedFilesOf(dataDir, '20250106');
  const servers = await startServers([{ dataDir }, { dataDir: finished }]);
  try {
    const keys = [addAccount(dataDir, 'flagship').key, addAccount(finished, 'flagship').key];
    for (const f of files) {
      const apiname = { level2: 'level2_quote_history', trade: 'level2_trade_history', order: 'level2_order_history' }[
        f.dataset as 'level2' | 'trade' | 'order'
      ];
      for (const encoding of ['identity', 'gzip']) {
        const [a, b] = await Promise.all(
          servers.map((s, i) =>
            httpRequest(`${s.url}/api`, {
              body: JSON.stringify({ apiname, apikey: keys[i], params: { symbol: f.symbol, tradedate: f.tradedate } }),
              headers: { 'content-type': 'application/json', 'accept-encoding': encoding },
            }),
          ),
        );
        assert.is(a!.status, 200, a!.text.slice(0, 200));
        // Compressed differently (at request time, or spliced from row text): the same text.
        const plain = (r: typeof a) => (r!.headers['content-encoding'] === 'gzip' ? gunzipSync(r!.body) : r!.body).toString();
        assert.ok(encoding === 'identity' || a!.headers['content-encoding'] === 'gzip');
        assert.is(plain(a), plain(b), `${f.path} (${encoding}): the same page from the file as from row text`);
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }

  const rebuilt = await runCli(['doctor', '--data-dir', dataDir, '--rebuild'], { env });
  assert.is(rebuilt.code, 0, rebuilt.stdout);
  for (const day of ['20250102', '20250103', '20250106']) {
    for (const f of pagedFilesOf(dataDir, day, ['level2'])) {
      const made = readFileSync(join(dataDir, rowTextRelPath(f.path)));
      assert.ok(made.equals(readFileSync(join(finished, rowTextRelPath(f.path)))), `${f.path}: the finished lake's row text`);
    }
  }
});

t.run();
