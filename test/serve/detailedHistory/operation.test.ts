/**
 * The level2 operation without HTTP, to see what it reads: a page must start from the
 * catalog's row-position index (minute index + fixed row-group size), never by decoding the
 * rows before it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { CatalogReader, openCatalog } from '../../../storage/catalog.js';
import { CursorCodec } from '../../../serve/detailedHistory/cursor.js';
import { FileColumnCache } from '../../../serve/reading/fileColumns.js';
import { detailedHistoryOperation } from '../../../serve/detailedHistory/operation.js';
import type { OperationContext, OperationResult } from '../../../serve/http/operation.js';
import { PLANS } from '../../../serve/access/plans.js';
import { preparedData } from '../../support/server.js';

const test = suite('level2 operation: reads only what a page needs');

async function run(params: Record<string, unknown>, fields?: string) {
  const { dataDir } = await preparedData();
  const catalog = new CatalogReader(openCatalog(join(dataDir, 'catalog.db'), true));
  const columns = new FileColumnCache(dataDir, 256 << 20);
  const calls: string[] = [];
  const ctx: OperationContext = {
    account: { id: 1, plan: PLANS.flagship },
    nowMs: Date.parse('2025-01-06T16:30:00+08:00'),
    authorize: async (dates) => void calls.push(`authorize ${dates.join(',')}`),
    acquireSlot: async () => void calls.push('slot'),
    chargeParquet: async () => void calls.push('parquet'),
  };
  const level2 = detailedHistoryOperation('level2_quote_history', {
    dataDir,
    catalog,
    columns,
    cursors: new CursorCodec(Buffer.alloc(32, 3)),
    rowJson: null,
    rowText: null,
    live: null,
  });
  const result: OperationResult = await level2.handle({ apiname: 'level2_quote_history', apikey: 'k', fields, params }, ctx);
  assert.is(result.kind, 'rawJson');
  const body = result.kind === 'rawJson' ? result.body : '';
  const text = Array.isArray(body) ? Buffer.concat(body as Buffer[]).toString() : body.toString();
  const json = JSON.parse(text) as { data: { items: unknown[][]; next_cursor: string | null } };
  // Cache keys are `path#rowGroup#column`: which row groups and columns were decoded.
  const decoded = columns.lru
    .keys()
    .filter((k) => /#\d+#\d+$/.test(k))
    .map((k) => k.split('#').slice(1).join('#'));
  return { json, decoded, calls };
}

test('a deep page by older cursor decodes only the row groups it returns', async () => {
  // Rows 3600..3699 of a 5,001-row file with 1,200-row groups: all in row group 3.
  const { json, decoded, calls } = await run({ symbol: '600000', tradedate: '20250102', cursor: '3600', page_size: 100 }, 'time,close');
  assert.is(json.data.items.length, 100);
  assert.equal(decoded.sort(), ['3#2', '3#6']);
  assert.equal(calls, ['authorize 20250102', 'slot']);
});

test('a minute-aligned start_time needs no times: the minute index alone places the page', async () => {
  const { json, decoded } = await run({ symbol: '600000', tradedate: '20250102', start_time: '13:00', page_size: 10 }, 'close');
  assert.is(json.data.items.length, 10);
  const groups = new Set(decoded.map((k) => k.split('#')[0]));
  assert.is(groups.size, 1, `one row group decoded: ${decoded.join(' ')}`);
  assert.not.ok(
    decoded.some((k) => k.endsWith('#2')),
    'the time column was not decoded',
  );
});

test("a start_time inside a minute reads the times of that minute's row group only", async () => {
  const { json, decoded } = await run({ symbol: '600000', tradedate: '20250102', start_time: '14:30:01', page_size: 5 }, 'close');
  assert.is(json.data.items.length, 5);
  const groups = new Set(decoded.map((k) => k.split('#')[0]));
  assert.ok(groups.size <= 2, `${decoded.join(' ')}`);
  assert.not.ok(groups.has('0') || groups.has('1'), 'nothing before the page');
});

test('plan checks come before the slot, and both before any data is read', async () => {
  const { calls } = await run({ symbol: '600000', tradedate: '20250104' });
  assert.equal(calls, ['authorize 20250104', 'slot']);
  const parquet = await run({ symbol: '600000', tradedate: '20250104', format: 'parquet' });
  assert.equal(parquet.calls, ['authorize 20250104', 'slot'], 'no file: nothing charged');
});

test.run();
