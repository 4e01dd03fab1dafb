import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeSnapshotMessage, KeyCanon, REJECT_HEADER } from '../../../ingest/kafka/messages.js';

const level2Value = {
  symbol: '600000.SH',
  tradedate: '20250102',
  time: '093000120',
  open: 10.1,
  high: 10.2,
  low: 10,
  close: 10.15,
  pre_close: 10,
  volume: 1000,
  amount: 10150,
  bid1: 10.14,
  ask1: 10.15,
};
const indexValue = {
  tradedate: '20250102',
  symbol: '000001',
  time: '2025-01-02 09:30:03.000',
  open: 3200,
  high: 3201,
  low: 3199,
  close: 3200.5,
  pre_close: 3190,
  pct_chg: 0.3,
  vol: 100,
  amount: 1000,
  transaction_num: 12,
};
const msg = (key: string | null, value: unknown, headers?: Record<string, string>) => ({
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)),
  headers,
});

const d = suite('decodeSnapshotMessage');

d('a good level2 message becomes a row; the topic gives the dataset', () => {
  const r = decodeSnapshotMessage(msg('600000.SH', level2Value), 'level2', new KeyCanon('level2'));
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.is(r.row.dataset, 'level2');
  assert.is(r.row.symbol, '600000.SH');
  assert.is(r.row.timeMs, (9 * 3600 + 30 * 60) * 1000 + 120);
});

d('an index message validates against the index schema, pre_close and pct_chg nulled', () => {
  const r = decodeSnapshotMessage(msg('000001', indexValue), 'index', new KeyCanon('index'));
  assert.ok(r.ok);
  if (!r.ok) return;
  assert.is(r.row.dataset, 'index');
  assert.ok(r.row.values.includes(null));
});

d('the key may be any accepted spelling of the symbol; a different symbol is rejected', () => {
  const keys = new KeyCanon('level2');
  assert.ok(decodeSnapshotMessage(msg('sh600000', level2Value), 'level2', keys).ok);
  const bad = decodeSnapshotMessage(msg('600001.SH', level2Value), 'level2', keys);
  assert.equal(bad, { ok: false, reason: 'key "600001.SH" does not match symbol 600000.SH' });
  const none = decodeSnapshotMessage(msg(null, level2Value), 'level2', keys);
  assert.equal(none, { ok: false, reason: 'key is missing (it must be the symbol)' });
});

d('bad values are rejected with the validator reason', () => {
  const keys = new KeyCanon('level2');
  assert.equal(decodeSnapshotMessage(msg('600000.SH', '{"symbol":'), 'level2', keys), { ok: false, reason: 'not JSON' });
  assert.equal(decodeSnapshotMessage(msg('600000.SH', null), 'level2', keys), { ok: false, reason: 'message has no value' });
  assert.equal(decodeSnapshotMessage(msg('600000.SH', { ...level2Value, close: 'n/a' }), 'level2', keys), { ok: false, reason: 'close is not a number' });
  // An index message on the level2 topic fails the level2 schema.
  assert.is(decodeSnapshotMessage(msg('000001', indexValue), 'level2', keys).ok, false);
});

d('a value carrying a kind must agree with its topic', () => {
  const keys = new KeyCanon('level2');
  assert.ok(decodeSnapshotMessage(msg('600000.SH', { kind: 'level2', ...level2Value }), 'level2', keys).ok);
  assert.equal(decodeSnapshotMessage(msg('600000.SH', { kind: 'futures', ...level2Value }), 'level2', keys), {
    ok: false,
    reason: 'kind "futures" does not match the level2 topic',
  });
});

d('a message flagged by produce is rejected with the flagged reason, whatever its value', () => {
  const r = decodeSnapshotMessage(msg('600000.SH', level2Value, { [REJECT_HEADER]: 'unknown kind "futures"' }), 'level2', new KeyCanon('level2'));
  assert.equal(r, { ok: false, reason: 'unknown kind "futures"' });
});

d.run();
