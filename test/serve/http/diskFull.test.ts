/**
 * The server on a full disk, made for real (api-contract 72): a data directory on a small
 * tmpfs mounted by the test (root), a real `tickvault serve` on it, the tmpfs filled to the
 * last byte. Every POST /api writes service.db (the per-second window at least), so each gets
 * 503 with Retry-After and the cause, in bounded time, never a 500 or a hang; /healthz says
 * what is wrong. Once `mount -o remount,size=…` gives room, the same requests are served and
 * /healthz is 200 again, without a restart.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, type CliResult } from '../../support/cli.js';
import { addAccount, DEFAULT_SERVER_NOW, httpRequest, postApi, preparedData, startServer, type ApiResponse, type ServerHandle } from '../../support/server.js';
import { isRoot, mountTmpfs, needsRoot } from '../../support/tmpfs.js';

const t = suite('the server on a full disk');
/** A request on a full disk must be answered well within this; the answer takes milliseconds. */
const BOUND_MS = 5_000;

/** Writes zeros under `dir` until the file system takes no byte more (64 KiB blocks, then single bytes). */
function fill(dir: string): void {
  const filler = join(dir, 'filler');
  mkdirSync(filler, { recursive: true });
  for (const [bs, count] of [
    ['64k', '256'],
    ['1', '65536'],
  ] as const) {
    for (let i = 0; ; i++) {
      const r = spawnSync('dd', ['if=/dev/zero', `of=${join(filler, `${bs}-${i}`)}`, `bs=${bs}`, `count=${count}`], { stdio: 'ignore' });
      if (r.status !== 0) break;
    }
  }
}

const QUOTES = (key: string) => ({ apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: '20250103', page_size: 5 } });
const TICKS = (key: string) => ({ apiname: 'tick_history', apikey: key, params: { symbol: '000001', tradedate: '20250103' } });

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await work();
  return { value, ms: performance.now() - t0 };
}

function isDiskAnswer(r: ApiResponse, what: string): void {
  assert.is(r.status, 503, `${what}: ${r.status} ${r.text}`);
  assert.is(r.json.code, 503);
  assert.ok(Number(r.headers['retry-after']) > 0, `${what}: Retry-After ${String(r.headers['retry-after'])}`);
  assert.match(r.json.message, /no space left on device/);
  assert.match(r.json.message, /nothing was counted/);
}

if (!isRoot) {
  needsRoot(t);
} else {
  t('full disk: POST /api 503 with Retry-After and the cause, /healthz 503 with the reason; with room, both recover without a restart', async () => {
    const { dataDir: clean } = await preparedData({ days: 2, stocks: 3, indexes: 2 });
    const fs = mountTmpfs('64m', 'tickvault-serve-full-');
    let server: ServerHandle | null = null;
    try {
      const dataDir = join(fs.dir, 'data');
      assert.is(spawnSync('cp', ['-r', clean, dataDir]).status, 0);
      const { key } = addAccount(dataDir, 'flagship');
      server = await startServer(dataDir, { env: { TICKVAULT_LOG_LEVEL: 'info' } });
      const s = server;
      const before = [await postApi(s, QUOTES(key)), await postApi(s, TICKS(key))];
      assert.equal(
        before.map((r) => r.status),
        [200, 200],
        before.map((r) => r.text).join('\n'),
      );

      fill(fs.dir);
      const df = spawnSync('df', ['-B1', '--output=avail', fs.dir], { encoding: 'utf8' }).stdout.trim().split('\n').pop();
      console.log(`  tmpfs filled: ${df} bytes available`);

      // Several in a row: none may slip through uncounted, none may be a 500, none may hang.
      const times: number[] = [];
      for (let i = 0; i < 6; i++) {
        for (const body of [QUOTES(key), TICKS(key)]) {
          const { value, ms } = await timed(() => postApi(s, body));
          isDiskAnswer(value, `${body.apiname} #${i}`);
          times.push(ms);
        }
      }
      const worst = Math.max(...times);
      console.log(
        `  full disk: ${times.length} requests, each 503 "${(await postApi(s, QUOTES(key))).json.message}" (Retry-After ${String((await postApi(s, QUOTES(key))).headers['retry-after'])}), slowest ${worst.toFixed(1)} ms`,
      );
      assert.ok(worst < BOUND_MS, `slowest answer ${worst} ms`);

      const health = await httpRequest(`${s.url}/healthz`, { method: 'GET' });
      assert.is(health.status, 503, health.text);
      assert.ok(Number(health.headers['retry-after']) > 0);
      const h = JSON.parse(health.text) as { status: string; reason: string; cause: string; path: string };
      assert.is(h.status, 'unavailable');
      assert.is(h.reason, 'disk');
      assert.is(h.cause, 'no space left on device');
      assert.is(h.path, join(dataDir, 'service.db'));
      console.log(`  /healthz: 503 ${health.text}`);
      // Nothing else of the server failed meanwhile: it logged the fault once, no request failure.
      assert.not.match(s.logs(), /request failed/);
      assert.is(s.logs().match(/service\.db refuses writes/g)?.length, 1, s.logs());

      // The kernel refuses to make a file system read-only while the server holds service.db
      // open for writing ("busy"), so a running server never sees EROFS from a remount.
      const ro = fs.tryRemount('ro');
      console.log(`  remount,ro with the server running: exit ${ro.status} ${ro.stderr.trim()}`);
      assert.is.not(ro.status, 0);
      assert.match(ro.stderr, /busy/);

      fs.resize('128m');
      // Health first (no request has written yet): its probe finds the disk takes writes again.
      const back = await httpRequest(`${s.url}/healthz`, { method: 'GET' });
      assert.is(back.status, 200, back.text);
      const after = [await postApi(s, QUOTES(key)), await postApi(s, TICKS(key))];
      assert.equal(
        after.map((r) => r.status),
        [200, 200],
        after.map((r) => r.text).join('\n'),
      );
      assert.equal(
        after.map((r) => r.json.data),
        before.map((r) => r.json.data),
      );
      assert.is(s.logs().match(/service\.db takes writes again/g)?.length, 1, s.logs());
      console.log('  room again: /healthz 200, the same requests 200 with the same rows');
    } finally {
      await server?.stop();
      fs.unmount();
    }
  });

  t('started on a full disk, then on a read-only one: exit 1 with one line naming the cause and the data directory; with room, it starts', async () => {
    const { dataDir: clean } = await preparedData({ days: 2, stocks: 3, indexes: 2 });
    const fs = mountTmpfs('64m', 'tickvault-serve-full-');
    try {
      const dataDir = join(fs.dir, 'data');
      assert.is(spawnSync('cp', ['-r', clean, dataDir]).status, 0);
      const serve = () => runCli(['serve', '--port', '0', '--data-dir', dataDir], { env: { TICKVAULT_NOW: DEFAULT_SERVER_NOW }, timeoutMs: 30_000 });
      const oneLine = (r: CliResult, cause: string) => {
        assert.is(r.code, 1, r.stdout + r.stderr);
        assert.is(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
        assert.is(
          r.stderr.trimEnd(),
          `tickvault serve: failed: ${cause} while opening the data directory at ${dataDir}: SQLite writes an index beside each database even to read it, and the server writes service.db on every request; free space (or make it writable) and start the server again`,
        );
        console.log(`  ${r.stderr.trimEnd()}`);
      };
      fill(fs.dir);
      oneLine(await serve(), 'no space left on device');
      rmSync(join(fs.dir, 'filler'), { recursive: true, force: true });
      const ro = fs.tryRemount('ro');
      assert.is(ro.status, 0, ro.stderr);
      oneLine(await serve(), 'read-only file system');
      assert.is(fs.tryRemount('rw').status, 0);
      const server = await startServer(dataDir);
      await server.stop();
    } finally {
      fs.unmount();
    }
  });
}

t.run();
