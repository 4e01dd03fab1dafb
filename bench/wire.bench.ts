/**
 * Compressed answers over a shaped link (issue: Rows in the client's hands, target 1): a
 * full-day level-2 page fetched by Python's httpx with its default headers (it asks for
 * gzip, deflate, br) against the same page asked with `Accept-Encoding: identity`, through a
 * veth pair into a network namespace made here, with `tc netem` rate 100 Mbit/s and 10 ms
 * delay on both ends. Time is from the request to the parsed rows (json.loads), on one
 * keep-alive connection, median of the runs; the bytes on the wire are the body bytes as
 * received. Needs root (namespaces, tc) and /usr/bin/python3 with httpx: without them it
 * prints a line and skips.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, generateAndReplay, replayDataDir, runCli } from './storage.bench.js';

const NS = 'tvbench-wire';
const HOST_IF = 'tvbw0';
const NS_IF = 'tvbw1';
const HOST_IP = '10.231.7.1';
const NS_IP = '10.231.7.2';
const PYTHON = '/usr/bin/python3';

export interface WireBenchOptions {
  /** Timed fetches per coding, after warm-up. */
  readonly runs?: number;
  readonly log?: (line: string) => void;
}

const CLIENT = `
import json, statistics, sys, time, httpx
url, body, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = {}
for name, headers in (("default", {}), ("identity", {"accept-encoding": "identity"})):
    with httpx.Client(timeout=60) as client:
        times, wire, coding, rows = [], 0, None, 0
        for i in range(runs + 3):
            t0 = time.perf_counter()
            r = client.post(url, content=body, headers={"content-type": "application/json", **headers})
            rows = len(json.loads(r.content)["data"]["items"])
            t = time.perf_counter() - t0
            if i >= 3:
                times.append(t)
            wire, coding = r.num_bytes_downloaded, r.headers.get("content-encoding")
        out[name] = {"ms": statistics.median(times) * 1000, "wire": wire, "coding": coding, "rows": rows}
print(json.dumps(out))
`;

function sh(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: 'ignore' });
}

function teardown(): void {
  spawnSync('ip', ['netns', 'del', NS], { stdio: 'ignore' });
  spawnSync('ip', ['link', 'del', HOST_IF], { stdio: 'ignore' });
}

export async function runWireBench(opts: WireBenchOptions = {}): Promise<void> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const runs = opts.runs ?? 15;
  if (process.getuid?.() !== 0) return log('wire: skipped (needs root for a network namespace and tc netem)');
  if (spawnSync(PYTHON, ['-c', 'import httpx'], { stdio: 'ignore' }).status !== 0) return log(`wire: skipped (${PYTHON} with httpx not installed)`);
  const dir = await mkdtemp(join(tmpdir(), 'tickvault-wire-'));
  teardown();
  let server: ReturnType<typeof spawn> | null = null;
  try {
    await generateAndReplay(dir, 3);
    const dataDir = replayDataDir(dir, 3);
    const key = (await runCli(['accounts', 'add', '--plan', 'flagship', '--data-dir', dataDir])).stdout.trim();
    sh('ip', ['netns', 'add', NS]);
    sh('ip', ['link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF]);
    sh('ip', ['link', 'set', NS_IF, 'netns', NS]);
    sh('ip', ['addr', 'add', `${HOST_IP}/24`, 'dev', HOST_IF]);
    sh('ip', ['link', 'set', HOST_IF, 'up']);
    sh('ip', ['netns', 'exec', NS, 'ip', 'addr', 'add', `${NS_IP}/24`, 'dev', NS_IF]);
    sh('ip', ['netns', 'exec', NS, 'ip', 'link', 'set', NS_IF, 'up']);
    sh('ip', ['netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up']);
    // The link: 100 Mbit/s and 10 ms each way (netem shapes what leaves each end). A kernel
    // without sch_netem (this CI's) gets the rate alone from tbf, and the figure says so.
    const netem = spawnSync('tc', ['qdisc', 'add', 'dev', HOST_IF, 'root', 'netem', 'rate', '100mbit', 'delay', '10ms'], { stdio: 'ignore' }).status === 0;
    if (netem) sh('ip', ['netns', 'exec', NS, 'tc', 'qdisc', 'add', 'dev', NS_IF, 'root', 'netem', 'rate', '100mbit', 'delay', '10ms']);
    else {
      for (const prefix of [[], ['ip', 'netns', 'exec', NS]]) {
        const dev = prefix.length === 0 ? HOST_IF : NS_IF;
        const [cmd, ...rest] = [...prefix, 'tc', 'qdisc', 'add', 'dev', dev, 'root', 'tbf', 'rate', '100mbit', 'burst', '64kb', 'latency', '50ms'];
        sh(cmd!, rest);
      }
    }
    const link = netem ? '100 Mbit/s + 10 ms each way (netem)' : '100 Mbit/s, no added delay (tbf: this kernel has no sch_netem)';

    const child = spawn(process.execPath, [CLI, 'serve', '--host', HOST_IP, '--port', '0', '--data-dir', dataDir, '--rate-limit', '1000'], {
      env: { ...process.env, TICKVAULT_NOW: '2025-01-06T16:30:00+08:00', TICKVAULT_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    server = child;
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(`${m[1]}/api`);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    const script = join(dir, 'client.py');
    await writeFile(script, CLIENT);
    const body = JSON.stringify({ apiname: 'level2_quote_history', apikey: key, params: { symbol: '600000.SH', tradedate: '20250102' } });
    const r = spawnSync('ip', ['netns', 'exec', NS, PYTHON, script, url, body, String(runs)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the httpx client failed: ${r.stderr}`);
    const got = JSON.parse(r.stdout) as Record<'default' | 'identity', { ms: number; wire: number; coding: string | null; rows: number }>;
    const ratio = got.default.ms / got.identity.ms;
    log(
      `wire: full-day level-2 page (${got.default.rows} rows) by httpx over ${link}: ` +
        `${got.default.coding ?? 'identity'} ${got.default.ms.toFixed(1)} ms, ${(got.default.wire / 1e6).toFixed(2)} MB on the wire; ` +
        `identity ${got.identity.ms.toFixed(1)} ms, ${(got.identity.wire / 1e6).toFixed(2)} MB; ratio ${ratio.toFixed(2)}x (target <= 0.3x)`,
    );
  } finally {
    server?.kill('SIGTERM');
    teardown();
    await rm(dir, { recursive: true, force: true });
  }
}
