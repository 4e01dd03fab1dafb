/**
 * Reading the body (serve/requestBody.ts) against a real server: every fault in a body is the
 * client's (400/413/415, never 500), refused bodies are still answered to a client that is
 * writing them, client values are quoted short, and a run of ordinary traffic leaves stderr
 * with nothing but JSON lines.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { httpRequest, serveDuringSuite } from '../../support/server.js';

const test = suite('serve: request bodies');

const s = serveDuringSuite(test, { env: { TICKVAULT_RATE_LIMIT: '100000', TICKVAULT_LOG_LEVEL: 'info' } }, 'flagship');

function post(body: Buffer | string, headers: Record<string, string>) {
  return httpRequest(`${s.server.url}/api`, { body, headers: { 'content-type': 'application/json', ...headers } });
}

const tickBody = () => JSON.stringify({ apiname: 'tick_history', apikey: s.key, params: { symbol: '000001', tradedate: '20250103' } });

test('a valid compressed body is read in every supported encoding', async () => {
  const plain = (await post(tickBody(), {})).text;
  assert.is(JSON.parse(plain).code, 200);
  for (const [encoding, packed] of [
    ['gzip', gzipSync(tickBody())],
    ['deflate', deflateSync(tickBody())],
    ['br', brotliCompressSync(tickBody())],
    ['GZIP', gzipSync(tickBody())],
  ] as const) {
    const r = await post(packed, { 'content-encoding': encoding });
    assert.is(r.status, 200, encoding);
    assert.is(r.text, plain, encoding);
  }
});

test('corrupt, truncated or mislabelled compressed bodies are 400 naming the encoding', async () => {
  const whole = gzipSync(tickBody());
  const cases: [string, Buffer][] = [
    ['gzip', Buffer.from('garbage, not gzip')],
    ['gzip', whole.subarray(0, 20)],
    ['gzip', whole.subarray(0, whole.length - 4)],
    ['deflate', Buffer.from('garbage')],
    ['br', Buffer.from('garbage')],
    ['br', gzipSync(tickBody())],
  ];
  for (const [encoding, body] of cases) {
    const r = await post(body, { 'content-encoding': encoding });
    assert.is(r.status, 400, `${encoding} ${body.length} bytes: ${r.text}`);
    assert.equal(JSON.parse(r.text), { code: 400, message: `request body is not valid ${encoding} data (Content-Encoding: ${encoding})`, data: null });
  }
  // Well-formed compression of something that is not JSON is the usual 400.
  const notJson = await post(gzipSync('not json'), { 'content-encoding': 'gzip' });
  assert.equal(JSON.parse(notJson.text), { code: 400, message: 'request body must be a JSON object', data: null });
});

test('an encoding the server cannot undo is 415 listing the ones it can', async () => {
  for (const encoding of ['compress', 'zstd', 'gzip, br', 'x'.repeat(500)]) {
    const r = await post(tickBody(), { 'content-encoding': encoding });
    assert.is(r.status, 415, encoding);
    const env = JSON.parse(r.text);
    assert.is(env.code, 415);
    assert.match(env.message, /^Content-Encoding ".*" is not supported; send identity, gzip, deflate, br$/);
    assert.ok(env.message.length < 120, env.message);
  }
});

test('a compressed body larger than the limit once decompressed is 413', async () => {
  // 4 MiB of JSON whitespace compresses to a few KB: the limit counts what it expands to.
  const bomb = gzipSync(Buffer.concat([Buffer.from('{"apiname":"tick_history",'), Buffer.alloc(4 << 20, 0x20), Buffer.from('"params":{}}')]));
  assert.ok(bomb.length < 100_000);
  const r = await post(bomb, { 'content-encoding': 'gzip' });
  assert.is(r.status, 413);
  assert.is(JSON.parse(r.text).message, 'request body exceeds 1048576 bytes (1 MiB) once decompressed');
});

/** Writes `total` bytes in 64 KiB chunks, as a client streaming a body would; resolves with the answer. */
function sendLarge(total: number, chunked: boolean): Promise<{ status: number; text: string; error?: string }> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!chunked) headers['content-length'] = String(total);
    const req = request(`${s.server.url}/api`, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, text: '', error: e.code ?? e.message }));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

test('an 8 MiB body gets its 413 answer, with or without Content-Length', async () => {
  for (const chunked of [false, true, false]) {
    const r = await sendLarge(8 * 1024 * 1024, chunked);
    assert.is(r.error, undefined, `client saw ${r.error} (chunked ${chunked})`);
    assert.is(r.status, 413);
    assert.is(JSON.parse(r.text).message, 'request body exceeds 1048576 bytes (1 MiB)');
  }
  assert.is((await httpRequest(`${s.server.url}/healthz`, { method: 'GET' })).status, 200);
});

test('deeply nested values in any param are a short 400, never a stack overflow', async () => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  const bodies = [
    `{"apiname":"tick_history","apikey":"${s.key}","params":{"symbols":${deep(20000)}}}`,
    `{"apiname":"tick_history","apikey":"${s.key}","params":{"symbols":[${deep(20000)}]}}`,
    `{"apiname":"tick_history","apikey":"${s.key}","params":{"symbol":${deepObject(20000)}}}`,
    `{"apiname":"tick_history","apikey":"${s.key}","params":{"tradedate":${deep(20000)}}}`,
    `{"apiname":"level2_quote_history","apikey":"${s.key}","params":{"symbol":${deep(20000)}}}`,
    `{"apiname":"level2_quote_history","apikey":"${s.key}","params":{"symbol":"600000","cursor":${deep(20000)}}}`,
    `{"apiname":"level2_quote_history","apikey":"${s.key}","params":{"symbol":"600000","${'k'.repeat(100_000)}":1}}`,
    `{"apiname":"level2_quote_history","apikey":"${s.key}","fields":"${'f'.repeat(100_000)}","params":{"symbol":"600000"}}`,
    `{"apiname":"level2_quote_history","apikey":${deep(20000)},"params":{}}`,
    `{"${'m'.repeat(100_000)}":1}`,
    `{"apiname":${deep(20000)}}`,
  ];
  for (const body of bodies) {
    const r = await post(body, {});
    const env = JSON.parse(r.text);
    assert.ok(r.status === 400 || r.status === 401, `${r.status} ${r.text.slice(0, 200)}`);
    assert.ok(env.message.length <= 200, `message of ${env.message.length} chars: ${env.message.slice(0, 100)}…`);
  }
  const r = await post(bodies[0], {});
  assert.equal(JSON.parse(r.text), {
    code: 400,
    message: 'params.symbols must be a six-digit index code without suffix, got [[…]]',
    data: null,
  });
});

test('a few hundred ordinary requests leave nothing but JSON lines on stderr', async () => {
  const before = s.server.logs().length;
  const level2 = { apiname: 'level2_quote_history', apikey: s.key, params: { symbol: '600000', tradedate: '20250103', page_size: 500 } };
  const parquet = { apiname: 'level2_quote_history', apikey: s.key, params: { symbol: '600000', tradedate: '20250103', format: 'parquet' } };
  const bodies = [level2, parquet, JSON.parse(tickBody()), { apiname: 'level2_quote_history', apikey: s.key, params: {} }];
  let ok = 0;
  for (let i = 0; i < 300; i++) {
    const b = bodies[i % bodies.length];
    const r = await httpRequest(`${s.server.url}/api`, { body: JSON.stringify(b), headers: { 'content-type': 'application/json' } });
    if (r.status === 200) ok++;
  }
  assert.is(ok, 225);
  // The server logs a request when its answer has finished, and stderr arrives on its own pipe:
  // the last line may still be on its way when the last answer is read.
  const logLines = () =>
    s.server
      .logs()
      .slice(before)
      .split('\n')
      .filter((l) => l !== '');
  const deadline = Date.now() + 10_000;
  while (logLines().length < 300 && Date.now() < deadline) {
    await new Promise<void>((resolve) => {
      const done = () => (clearTimeout(timer), s.server.child.stderr!.off('data', done), resolve());
      const timer = setTimeout(done, deadline - Date.now());
      s.server.child.stderr!.on('data', done);
    });
  }
  const lines = logLines();
  assert.ok(lines.length >= 300, `${lines.length} log lines`);
  for (const line of lines) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      assert.unreachable(`stderr line is not JSON: ${line}`);
    }
    assert.type(parsed, 'object');
  }
});

test.run();
