import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadMirrorPlan, mirrorDays } from '../../../ingest/mirror/mirrorConfig.js';
import { parseSymbolList } from '../../../shared/config.js';

const parseStockList = (text: string, source: string) => parseSymbolList(text, source, 'stock');
import { tempDir } from '../../support/tempDir.js';

const t = suite('mirror: options');
const NOW = Date.parse('2025-03-03T18:00:00+08:00');
const base = { upstream: 'http://127.0.0.1:9/', key: 'k', from: '20250102', to: '20250108' };

t('days: the trading days of the range by our calendar (weekends out)', () => {
  assert.equal(mirrorDays('20250102', '20250108', NOW), ['20250102', '20250103', '20250106', '20250107', '20250108']);
  // The Spring Festival closure of 2025 (28 Jan to 4 Feb) holds no trading day.
  assert.throws(() => mirrorDays('20250128', '20250204', NOW), /holds no trading day/);
});

t('days: outside the known calendar, after the latest trading day, reversed or not dates: refused', () => {
  assert.throws(() => mirrorDays('20000101', '20000110', NOW), /not inside the calendar's known range/);
  assert.throws(() => mirrorDays('20250301', '20250310', NOW), /after the latest trading day 20250303: a mirror takes past days only/);
  assert.throws(() => mirrorDays('20250108', '20250102', NOW), /--from 20250108 is after --to 20250102/);
  assert.throws(() => mirrorDays('20250230', '20250301', NOW), /--from must be a real date/);
});

t('stocks in any accepted form become canonical, once each; a bad one is named', () => {
  assert.equal(parseStockList('600000, sh600000 000001.SZ,300750', '--symbols'), ['600000.SH', '000001.SZ', '300750.SZ']);
  assert.throws(() => parseStockList('600000,60000X', '--symbols'), /--symbols: "60000X" is not a stock code/);
  assert.throws(() => parseStockList(' , ', '--symbols'), /names no stock/);
});

t('the plan: flags over environment; required options; a symbols file with comments', () => {
  const p = loadMirrorPlan(base, { TICKVAULT_MIRROR_RATE: '7', TICKVAULT_MIRROR_DATASETS: 'index,level2' }, NOW);
  assert.is(p.rate, 7);
  assert.equal(p.datasets, ['index', 'level2']);
  assert.is(p.stocks, null);
  assert.is(p.indexes, null);
  assert.is(loadMirrorPlan({ ...base, rate: '3' }, { TICKVAULT_MIRROR_RATE: '7' }, NOW).rate, 3);
  assert.is(loadMirrorPlan(base, {}, NOW).rate, 10);
  assert.is(loadMirrorPlan({ ...base, key: undefined }, { TICKVAULT_UPSTREAM_KEY: 'from-env' }, NOW).apikey, 'from-env');
  assert.throws(() => loadMirrorPlan({ ...base, key: undefined }, {}, NOW), /--key KEY is required/);
  assert.throws(() => loadMirrorPlan({ ...base, upstream: 'ftp://x' }, {}, NOW), /http:\/\/ or https:\/\//);
  assert.throws(() => loadMirrorPlan({ ...base, datasets: 'level2,quotes' }, {}, NOW), /--datasets/);
  assert.throws(() => loadMirrorPlan({ ...base, rate: '0' }, {}, NOW), /--rate/);
  const file = join(tempDir(), 'symbols.txt');
  writeFileSync(file, '# our book\n600000\n000001.SZ  # bank\n\n688981.SH,600519\n');
  assert.equal(loadMirrorPlan({ ...base, 'symbols-file': file }, {}, NOW).stocks, ['600000.SH', '000001.SZ', '688981.SH', '600519.SH']);
  assert.throws(() => loadMirrorPlan({ ...base, 'symbols-file': file, symbols: '600000' }, {}, NOW), /not both/);
  assert.throws(() => loadMirrorPlan({ ...base, 'symbols-file': join(file, 'nope') }, {}, NOW), /cannot be read/);
  assert.equal(loadMirrorPlan({ ...base, indexes: '000300,000905' }, {}, NOW).indexes, ['000300', '000905']);
  assert.throws(() => loadMirrorPlan({ ...base, indexes: '000300.SH' }, {}, NOW), /--indexes: "000300.SH" is not a six-digit index code/);
});

t.run();
