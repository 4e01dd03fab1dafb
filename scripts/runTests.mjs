#!/usr/bin/env node
// Runs every compiled uvu test file in its own node process, one after another, so that a
// file that leaks a handle or hangs cannot stall the others: each has a time limit. Prints
// uvu's output as it comes and a closing "N passed, N failed" line; exits 1 on any failure.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../dist/test/', import.meta.url).pathname;
const filter = process.argv[2] ? new RegExp(process.argv[2]) : null;
const LIMIT_MS = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 15 * 60_000);

function find(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) return find(p);
      return name.endsWith('.test.js') ? [p] : [];
    });
}

let passed = 0,
  failed = 0,
  skipped = 0;
const failures = [];
for (const file of find(root)) {
  const name = relative(root, file);
  if (filter && !filter.test(name)) continue;
  process.stdout.write(`\n# ${name}\n`);
  const t0 = Date.now();
  const result = await new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'], env: process.env });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    const timer = setTimeout(() => {
      out += '\n(timed out)';
      child.kill('SIGKILL');
    }, LIMIT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out });
    });
  });
  // eslint-disable-next-line no-control-regex -- uvu's colours (ESC [ … m) are what it removes
  const plain = result.out.replace(/\x1b\[[0-9;]*m/g, '');
  const num = (label) => Number((plain.match(new RegExp(`${label}:\\s+(\\d+)`)) ?? [])[1] ?? 0);
  const total = num('Total'),
    ok = num('Passed'),
    skip = num('Skipped');
  passed += ok;
  skipped += skip;
  const bad = total - ok - skip;
  if (result.code === 0 && total === 0 && process.env.CI !== 'true') {
    process.stdout.write(`# ${name}: ran no test (skipped; see its message above)\n`);
    continue;
  }
  if (result.code !== 0 || bad > 0 || total === 0) {
    failed += Math.max(bad, 1);
    failures.push(`${name} (exit ${result.code ?? result.signal}, ${bad} failed of ${total})`);
  }
  process.stdout.write(`# ${name}: ${ok}/${total} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
if (failures.length) process.stdout.write(`\nFailed files:\n${failures.map((f) => `  ${f}`).join('\n')}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(failed > 0 ? 1 : 0);
