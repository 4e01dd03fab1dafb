import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Readable } from 'node:stream';
import { holdLastChunk, piecesStream } from '../../../serve/http/responseBody.js';

/**
 * The slot rule's demand on the writing (serve/http/responseBody.ts): a download's bytes flow
 * at once, but the chunk completing its Content-Length waits for the slot's release.
 */
const test = suite('response bodies');

function gateControl() {
  let open!: () => void;
  let calls = 0;
  const opened = new Promise<void>((r) => (open = r));
  return { gate: () => (calls++, opened), open: () => open(), calls: () => calls };
}

test('every chunk but the one completing the length passes before the gate opens; that one after', async () => {
  const chunks = [Buffer.from('aaaa'), Buffer.from('bbbb'), Buffer.from('cc')];
  const g = gateControl();
  const out = holdLastChunk(Readable.from(chunks, { objectMode: false }), 10, g.gate);
  const seen: string[] = [];
  out.on('data', (c: Buffer) => seen.push(c.toString()));
  const ended = new Promise((r) => out.on('end', r));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(seen, ['aaaa', 'bbbb'], 'the first chunks are not held');
  assert.is(g.calls(), 1);
  g.open();
  await ended;
  assert.equal(seen, ['aaaa', 'bbbb', 'cc']);
  assert.is(g.calls(), 1, 'the gate is asked once');
});

test('a source that stops short of the length still ends only after the gate', async () => {
  const g = gateControl();
  const out = holdLastChunk(Readable.from([Buffer.from('abc')], { objectMode: false }), 100, g.gate);
  let ended = false;
  out.on('data', () => undefined);
  out.on('end', () => (ended = true));
  await new Promise((r) => setTimeout(r, 50));
  assert.is(ended, false);
  g.open();
  await new Promise((r) => out.on('end', r));
});

test('a source error becomes the body stream error', async () => {
  const source = new Readable({ read() { this.destroy(new Error('EIO: read failed')); } });
  const out = holdLastChunk(source, 10, () => Promise.resolve());
  out.on('data', () => undefined);
  const err = await new Promise<Error>((r) => out.on('error', r));
  assert.match(err.message, /EIO/);
});

test('pieces come out in order, byte for byte', async () => {
  const pieces = [Buffer.from('{"a":['), Buffer.alloc(100_000, 0x31), Buffer.from(']}')];
  const got: Buffer[] = [];
  for await (const c of piecesStream(pieces)) got.push(c as Buffer);
  assert.ok(Buffer.concat(got).equals(Buffer.concat(pieces)));
});

test.run();
