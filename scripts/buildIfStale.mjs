#!/usr/bin/env node
// `npm start`'s first step: builds dist/ only when a source is newer than the last build.
// `npm ci` already builds (the `prepare` script), so a first start goes straight to the demo
// instead of spending ~7 s in tsc; after an edit, the next start rebuilds as before.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(root, 'dist', '.build-stamp');
// What tsc compiles is what can be stale: tsconfig.json's own `include` list.
const SOURCES = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')).include;
const CONFIG = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.client.json'];

function newestTs(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestTs(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function stampMs() {
  try {
    return statSync(STAMP).mtimeMs;
  } catch {
    return -1; // never built, or built by an older build script
  }
}

const built = stampMs();
const sources = Math.max(...SOURCES.map((d) => newestTs(join(root, d))), ...CONFIG.map((f) => statSync(join(root, f)).mtimeMs));
if (built < sources) {
  const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
