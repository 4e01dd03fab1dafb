import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import { handedToSocket, holdLastChunk, PiecesBody } from '../../../serve/http/responseBody.js';

/**
 * The slot rule's demand on the writing (serve/http/responseBody.ts): a download's bytes flow
 * at once, but the byte completing its Content-Length waits for the slot's release, and the
 * release for every byte before it to be handed to the socket.
 */
const test = suite('response bodies');

function gateControl() {
  let open!: () => void;
  let calls = 0;
  const opened = new Promise<void>((r) => (open = r));
  return { gate: () => (calls++, opened), open: () => open(), calls: () => calls };
}

test('every byte but the one completing the length passes before the gate opens; that one after', async () => {
  const chunks = [Buffer.from('aaaa'), Buffer.from('bbbb'), Buffer.from('cc')];
  const g = gateControl();
  const out = holdLastChunk(Readable.from(chunks, { objectMode: false }), 10, g.gate);
  const seen: string[] = [];
  out.on('data', (c: Buffer) => seen.push(c.toString()));
  const ended = new Promise((r) => out.on('end', r));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(seen, ['aaaa', 'bbbb', 'c'], 'all but the last byte is not held');
  assert.is(g.calls(), 1);
  g.open();
  await ended;
  assert.equal(seen, ['aaaa', 'bbbb', 'c', 'c']);
  assert.is(g.calls(), 1, 'the gate is asked once');
});

test('a body of one chunk: all but its last byte passes before the gate', async () => {
  const g = gateControl();
  const out = holdLastChunk(Readable.from([Buffer.from('abcdef')], { objectMode: false }), 6, g.gate);
  const seen: string[] = [];
  out.on('data', (c: Buffer) => seen.push(c.toString()));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(seen, ['abcde']);
  g.open();
  await new Promise((r) => out.on('end', r));
  assert.equal(seen.join(''), 'abcdef');
});

test('handed to the socket: a pipelined answer queued behind an unread one is not, until the client reads', async () => {
  const BIG = 32 << 20;
  let second: { res: ServerResponse; out: PassThrough } | null = null;
  let handedAt = 0;
  const server = createServer((req, res) => {
    if (req.url === '/big') return void res.end(Buffer.alloc(BIG, 0x61));
    const out = new PassThrough();
    res.setHeader('content-length', '1001');
    out.pipe(res);
    out.write(Buffer.alloc(1000, 0x62));
    second = { res, out };
    void handedToSocket(out, res).then(() => {
      handedAt = Date.now();
      out.end(Buffer.from('c'));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    socket.pause();
    socket.write('GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n');
    for (let t = Date.now(); !second;) {
      assert.ok(Date.now() - t < 10_000, 'the second request never arrived');
      await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise((r) => setTimeout(r, 300));
    assert.is(handedAt, 0, 'not handed while the answer ahead of it is unread');
    let received = 0;
    const readFrom = Date.now();
    const all = new Promise<void>((r) => socket.on('data', (d: Buffer) => ((received += d.length) >= BIG + 1001 + 200 ? r() : undefined)));
    socket.resume();
    await all;
    assert.ok(handedAt >= readFrom, 'handed once the client read what was ahead');
    socket.destroy();
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
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
  const source = new Readable({
    read() {
      this.destroy(new Error('EIO: read failed'));
    },
  });
  const out = holdLastChunk(source, 10, () => Promise.resolve());
  out.on('data', () => undefined);
  const err = await new Promise<Error>((r) => out.on('error', r));
  assert.match(err.message, /EIO/);
});

test('pieces come out in order, byte for byte', async () => {
  const pieces = [Buffer.from('{"a":['), Buffer.alloc(100_000, 0x31), Buffer.from(']}')];
  const got: Buffer[] = [];
  for await (const c of new PiecesBody(pieces)) got.push(c as Buffer);
  assert.ok(Buffer.concat(got).equals(Buffer.concat(pieces)));
});

test.run();
