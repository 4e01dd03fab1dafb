/**
 * Headings' anchors in Markdown, as GitHub makes them (github-slugger's rule), for the tests
 * that hold links and the CLI's pointers to the docs as they are.
 */
import { readFileSync } from 'node:fs';

/** GitHub's anchor of a heading's text (github-slugger's rule). */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings (repeats numbered -1, -2 …). */
export function anchors(page: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(page, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.+?)\s*#*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}
