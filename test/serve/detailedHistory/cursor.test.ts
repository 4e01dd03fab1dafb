import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { CursorCodec, type CursorState } from '../../../serve/detailedHistory/cursor.js';

const test = suite('cursor codec');
const key = Buffer.alloc(32, 7);
const codec = new CursorCodec(key);
const state: CursorState = {
  apiname: 'level2_quote_history',
  symbol: '600000.SH',
  tradedate: '20250102',
  startMs: 34_200_000,
  endMs: 53_999_999,
  position: 4321,
  version: 1,
};

test('a token round-trips every member, with and without time filters', () => {
  const t = codec.encode(state);
  assert.ok(/^c1[A-Za-z0-9_-]+$/.test(t), `URL-safe token: ${t}`);
  assert.equal(codec.parse(t), { ok: true, cursor: { kind: 'token', state } });
  const open: CursorState = { ...state, startMs: null, endMs: null, position: 0 };
  assert.equal(codec.parse(codec.encode(open)), { ok: true, cursor: { kind: 'token', state: open } });
  const zero: CursorState = { ...state, startMs: 0, endMs: 0 };
  assert.equal(codec.parse(codec.encode(zero)), { ok: true, cursor: { kind: 'token', state: zero } });
});

test('a token names its interface; a level-2 token issued before trades and orders existed still parses', () => {
  for (const apiname of ['level2_quote_history', 'level2_trade_history', 'level2_order_history'] as const) {
    assert.equal(codec.parse(codec.encode({ ...state, apiname })), { ok: true, cursor: { kind: 'token', state: { ...state, apiname } } });
  }
  // The older layout: byte 0 was the format version 1, MAC over the same 26 bytes. Built here
  // by hand from the documented layout, not with the codec.
  const p = Buffer.alloc(26);
  p[0] = 1;
  p.write('600000.SH', 1, 'latin1');
  p.writeUInt32BE(20250102, 10);
  p.writeInt32BE(-1, 14);
  p.writeInt32BE(-1, 18);
  p.writeUInt32BE(99, 22);
  const mac = createHmac('sha256', key).update(p).digest().subarray(0, 16);
  const old = 'c1' + Buffer.concat([p, mac]).toString('base64url');
  assert.equal(codec.parse(old), {
    ok: true,
    cursor: {
      kind: 'token',
      state: { apiname: 'level2_quote_history', symbol: '600000.SH', tradedate: '20250102', startMs: null, endMs: null, position: 99, version: 1 },
    },
  });
  // An unknown interface byte, correctly signed, is still not a cursor of ours.
  p[0] = 9;
  const unknown = 'c1' + Buffer.concat([p, createHmac('sha256', key).update(p).digest().subarray(0, 16)]).toString('base64url');
  assert.equal(codec.parse(unknown).ok, false);
});

test('a plain decimal string is the older kind (a row position)', () => {
  assert.equal(codec.parse('0'), { ok: true, cursor: { kind: 'offset', offset: 0 } });
  assert.equal(codec.parse('2500'), { ok: true, cursor: { kind: 'offset', offset: 2500 } });
  assert.equal(codec.parse('99999999999999999999').ok, false);
});

test('every single-character alteration of a token is rejected', () => {
  const t = codec.encode(state);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (let i = 2; i < t.length; i++) {
    const c = t[i];
    const other = alphabet[(alphabet.indexOf(c) + 17) % alphabet.length];
    const altered = t.slice(0, i) + other + t.slice(i + 1);
    assert.equal(codec.parse(altered).ok, false, `altered at ${i}: ${altered}`);
  }
  assert.equal(codec.parse(t.slice(0, -1)).ok, false, 'truncated');
  assert.equal(codec.parse(t + 'A').ok, false, 'extended');
  assert.equal(codec.parse('c2' + t.slice(2)).ok, false, 'other prefix');
  assert.equal(codec.parse('').ok, false);
  assert.equal(codec.parse('c1!!').ok, false);
});

test('a token signed with another key is rejected (forgery)', () => {
  const other = new CursorCodec(Buffer.alloc(32, 8));
  assert.equal(codec.parse(other.encode(state)).ok, false);
});

test('a forged payload with a recomputed-but-wrong MAC is rejected', () => {
  const raw = Buffer.from(codec.encode(state).slice(2), 'base64url');
  raw.writeUInt32BE(0, 22); // position 0
  assert.equal(codec.parse('c1' + raw.toString('base64url')).ok, false);
});

test('encode refuses non-canonical members', () => {
  assert.throws(() => codec.encode({ ...state, symbol: '600000' }));
  assert.throws(() => codec.encode({ ...state, position: -1 }));
});

test('a cursor on a restated version carries it; version 1 keeps the 26-byte token of data never restated', () => {
  const v1 = codec.encode(state);
  const v7 = codec.encode({ ...state, version: 7 });
  assert.is(Buffer.from(v1.slice(2), 'base64url').length, 26 + 16);
  assert.is(Buffer.from(v7.slice(2), 'base64url').length, 28 + 16);
  assert.equal(codec.parse(v7), { ok: true, cursor: { kind: 'token', state: { ...state, version: 7 } } });
  // A long payload saying version 1 (or 0) is no token of ours, even correctly signed.
  for (const v of [0, 1]) {
    const p = Buffer.concat([Buffer.from(codec.encode(state).slice(2), 'base64url').subarray(0, 26), Buffer.from([0, v])]);
    const forged = 'c1' + Buffer.concat([p, createHmac('sha256', key).update(p).digest().subarray(0, 16)]).toString('base64url');
    assert.equal(codec.parse(forged).ok, false, `version ${v}`);
  }
  // The version byte altered: the MAC fails.
  const raw = Buffer.from(v7.slice(2), 'base64url');
  raw[27] = 8;
  assert.equal(codec.parse('c1' + raw.toString('base64url')).ok, false);
  assert.throws(() => codec.encode({ ...state, version: 0 }), /version out of range/);
  assert.throws(() => codec.encode({ ...state, version: 65_536 }), /version out of range/);
});

test('a live cursor carries the sort key of the last row answered; altered, it is refused', () => {
  const live: CursorState = { ...state, apiname: 'level2_trade_history', position: 0, after: { timeMs: 36_900_123, id: 2 ** 40 + 7 } };
  const t = codec.encode(live);
  assert.equal(codec.parse(t), { ok: true, cursor: { kind: 'token', state: live } });
  // 26 + 4 + 8 payload bytes and a 16-byte MAC.
  assert.is(Buffer.from(t.slice(2), 'base64url').length, 38 + 16);
  for (let i = 2; i < t.length; i++) {
    const c = t[i] === 'A' ? 'B' : 'A';
    assert.is(codec.parse(t.slice(0, i) + c + t.slice(i + 1)).ok, false, `altered at ${i}`);
  }
  assert.throws(() => codec.encode({ ...live, version: 2 }), /live cursor/);
  assert.throws(() => codec.encode({ ...live, position: 5 }), /live cursor/);
});

test.run();
