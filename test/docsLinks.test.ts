/**
 * Every relative link of the README and the docs leads somewhere: the file exists and, when
 * the link names an anchor, the target page has a heading with that anchor (GitHub's slugs:
 * lower case, punctuation dropped, spaces as hyphens, repeats numbered). A page moved or a
 * heading renamed fails here, not in a reader's browser.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { anchors, slug } from './support/markdown.js';

const test = suite('docs links');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PAGES = [
  'README.md',
  'clients/python/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown outside fenced code blocks and inline code spans. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '``');
  });
}

test('the slug rule is GitHub’s', () => {
  assert.is(slug('The console: `GET /console`'), 'the-console-get-console');
  assert.is(slug('Several sites: shared state in PostgreSQL'), 'several-sites-shared-state-in-postgresql');
  assert.is(slug("A whole market's day"), 'a-whole-markets-day');
  assert.is(slug('`level2_trade_history` and `level2_order_history`'), 'level2_trade_history-and-level2_order_history');
});

test('every relative link of the README and the docs resolves, anchors included', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    const path = join(ROOT, page);
    if (!existsSync(path)) {
      broken.push(`${page}: missing`);
      continue;
    }
    prose(readFileSync(path, 'utf8')).forEach((line, i) => {
      for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        checked++;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const to = file === '' ? path : join(dirname(path), file);
        const where = `${page}:${i + 1}: ${target}`;
        if (!existsSync(to)) broken.push(`${where} (no ${relative(ROOT, to)})`);
        else if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(anchor)) broken.push(`${where} (no heading #${anchor})`);
      }
    });
  }
  assert.ok(checked > 40, `only ${checked} links found: the checker sees too little`);
  assert.equal(broken, []);
});

test('the README stays a front door: at most about 300 lines, a table of contents first', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
  assert.ok(readme.length <= 320, `${readme.length} lines`);
  assert.ok(readme.slice(0, 20).some((l) => l === '## Contents'));
});

test.run();
