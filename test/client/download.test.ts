/**
 * The Parquet download against `tickvault serve` (bytes equal the stored file; plans without
 * downloads get a typed 403 and no file), and against a scripted server for what tickvault
 * does not do on demand: a wrong media type, a body cut short, a 503 before the first byte.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { TickvaultClient, TickvaultDownloadError, TickvaultError, PARQUET_MEDIA_TYPE } from '../../client/index.js';
import { tempDir } from '../support/tempDir.js';
import { addAccount, serveDuringSuite } from '../support/server.js';
import { rejection } from './rejection.js';
import { envelope, scriptedServer, type ScriptedServer } from './scriptedServer.js';

const test = suite('client Parquet download');
const served = serveDuringSuite(test, { env: { TICKVAULT_RATE_LIMIT: '1000' } });
let out: string;
const scripted: ScriptedServer[] = [];

test.before(() => {
  out = tempDir('tickvault-client-');
});
test.after(async () => {
  for (const s of scripted) await s.close();
});

const stored = () => readFileSync(join(served.dataDir, 'level2', 'date=20250102', '600000.SH.parquet'));
const real = (plan: 'flagship' | 'trial' | 'free') => new TickvaultClient({ baseUrl: served.server.url, apikey: addAccount(served.dataDir, plan).key });

async function fake(...steps: Parameters<typeof scriptedServer>[0]): Promise<{ server: ScriptedServer; client: TickvaultClient }> {
  const s = await scriptedServer(steps);
  scripted.push(s);
  return { server: s, client: new TickvaultClient({ baseUrl: s.baseUrl, apikey: 'k', retry: { maxWaitSec: 5 } }) };
}

test('to a file path: the bytes of the stored file, and its name', async () => {
  const path = join(out, 'a.parquet');
  const r = await real('flagship').downloadLevel2Parquet({ symbol: '600000', tradedate: '20250102' }, path);
  assert.equal(r, { written: true, bytes: stored().length, filename: '600000.SH_20250102.parquet' });
  assert.ok(readFileSync(path).equals(stored()));
});

test('to a writable stream: the same bytes, the stream ended', async () => {
  const sink = new PassThrough();
  const chunks: Buffer[] = [];
  sink.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise((resolve) => sink.on('end', resolve));
  const r = await real('flagship').downloadLevel2Parquet({ symbol: '600000.SH', tradedate: '20250102' }, sink);
  await ended;
  assert.is(r.written, true);
  assert.ok(Buffer.concat(chunks).equals(stored()));
});

test('trial and free plans: a typed 403 and no file written', async () => {
  for (const plan of ['trial', 'free'] as const) {
    const path = join(out, `${plan}.parquet`);
    const err = await rejection(real(plan).downloadLevel2Parquet({ symbol: '600000', tradedate: '20250102' }, path));
    assert.instance(err, TickvaultError, plan);
    assert.is((err as TickvaultError).code, 403, plan);
    assert.is(existsSync(path), false, plan);
  }
});

test('no stored file: the no-data answer, nothing written', async () => {
  const path = join(out, 'none.parquet');
  const r = await real('flagship').downloadLevel2Parquet({ symbol: '600000', tradedate: '20250104' }, path);
  assert.is(r.written, false);
  assert.match(r.written ? '' : r.message, /^no data/);
  assert.is(existsSync(path), false);
});

test('a media type other than Parquet: TickvaultDownloadError, no file', async () => {
  const { client } = await fake((res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>proxy login</html>');
  });
  const path = join(out, 'html.parquet');
  const err = await rejection(client.downloadLevel2Parquet({ symbol: '600000' }, path));
  assert.instance(err, TickvaultDownloadError);
  assert.is((err as TickvaultDownloadError).reason, 'media-type');
  assert.is(existsSync(path), false);
});

test('a download cut short: TickvaultDownloadError, the partial file removed, never requested again', async () => {
  const { server: s, client } = await fake((res) => {
    res.writeHead(200, { 'content-type': PARQUET_MEDIA_TYPE, 'content-length': '100000' });
    res.write(Buffer.alloc(1000, 1), () => res.socket?.destroy());
  });
  const path = join(out, 'cut.parquet');
  const err = await rejection(client.downloadLevel2Parquet({ symbol: '600000' }, path));
  assert.instance(err, TickvaultDownloadError);
  assert.is((err as TickvaultDownloadError).reason, 'interrupted');
  assert.is(existsSync(path), false);
  assert.is(s.requests.length, 1);
});

test('a 503 before any file byte is retried under the policy; then the file', async () => {
  const file = Buffer.from('PAR1 not really parquet PAR1');
  const { server: s, client } = await fake(
    envelope(503, 'the account already has a level2_quote_history request in progress', null, { 'retry-after': '0' }),
    (res) => {
      res.writeHead(200, { 'content-type': PARQUET_MEDIA_TYPE, 'content-length': String(file.length) });
      res.end(file);
    },
  );
  const path = join(out, 'after503.parquet');
  const r = await client.downloadLevel2Parquet({ symbol: '600000' }, path);
  assert.is(r.written, true);
  assert.ok(readFileSync(path).equals(file));
  assert.is(s.requests.length, 2);
  assert.equal(s.requests[1].body.params, { symbol: '600000', format: 'parquet' });
});

test.run();
