/**
 * The first `npm start` (issue: speed 2, target 1): `tickvault demo` on an empty data
 * directory, in a process of its own as npm runs it, timed from spawn to the ready banner
 * (server answering, curl examples printed), with the stage times it prints; then the same
 * market written as a feed by `tickvault generate` (the generator's target, 200k lines/s).
 * The build is not in it: `npm ci` builds (the `prepare` script), and `npm start` rebuilds
 * only stale sources.
 *   node dist/bench/demoStart.bench.js
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI, NOW } from './serverLoad.js';
import { generateFeedFile, generateRate, type GenerateFigures } from './feedGenerate.js';

const TARGET_S = 20;

export interface DemoStartFigures {
  readonly readyS: number;
  readonly generateS: number;
  readonly sealS: number;
  readonly rows: number;
  /** The same market written as a feed file by `tickvault generate`. */
  readonly generateFeed: GenerateFigures;
}

export async function runDemoStartBench(opts: { log?: (line: string) => void } = {}): Promise<DemoStartFigures> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const dir = mkdtempSync(join(tmpdir(), 'tickvault-start-bench-'));
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'demo', '--data-dir', join(dir, 'data'), '--port', '0'], {
      env: { ...process.env, TICKVAULT_NOW: NOW, TICKVAULT_PROGRESS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const readyS = await new Promise<number>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (/^console: /m.test(out)) resolve((performance.now() - started) / 1000);
      });
      child.on('exit', (code) => reject(new Error(`demo exited ${code} before it was ready: ${err.slice(-500)}`)));
    });
    child.kill('SIGTERM');
    const gen = /generated (\d+) rows .* in ([\d.]+) s/.exec(out);
    const seal = /sealed .* in ([\d.]+) s/.exec(out);
    if (!gen || !seal) throw new Error(`the demo printed no stage times:\n${out}`);
    const figures = { readyS, rows: Number(gen[1]), generateS: Number(gen[2]), sealS: Number(seal[1]) };
    log(
      `demo first start: ready in ${readyS.toFixed(1)} s (${(readyS / TARGET_S).toFixed(2)}x target ${TARGET_S} s) — ` +
        `${figures.rows.toLocaleString('en-US')} rows generated straight into staging in ${figures.generateS} s ` +
        `(${Math.round(figures.rows / figures.generateS).toLocaleString('en-US')} rows/s), sealed in ${figures.sealS} s`,
    );
    // The same market as a feed file (`tickvault generate`, orders and trades on the latest day as in the demo).
    const g = await generateFeedFile(join(dir, 'demo.jsonl.zst'), ['--days', '5', '--stocks', '50', '--indexes', '20', '--tick-days', '1']);
    log(`demo-sized feed, tickvault generate -> .jsonl.zst: ${generateRate(g)}, peak RSS ${(g.peakRss / 2 ** 20).toFixed(0)} MiB`);
    return { ...figures, generateFeed: g };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runDemoStartBench();
