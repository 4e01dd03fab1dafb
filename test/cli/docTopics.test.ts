/**
 * The terminal leads to the docs: every command's `--help` ends with the section documenting
 * it, `tickvault help TOPIC` names a page for each topic, and every page and anchor they name
 * exists in the docs as they are.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { COMMAND_DOCS, placeText, TOPIC_DOCS, type DocPlace } from '../../cli/docTopics.js';
import { runCli } from '../support/cli.js';
import { anchors } from '../support/markdown.js';

const test = suite('cli/docTopics');
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function placeFault(p: DocPlace): string | null {
  const page = join(ROOT, p.page);
  if (!existsSync(page)) return `no ${p.page}`;
  if (p.anchor !== undefined && !anchors(page).has(p.anchor)) return `no heading #${p.anchor} in ${p.page}`;
  return null;
}

test('every page and anchor named for a command or a topic exists', () => {
  const faults = [...Object.entries(COMMAND_DOCS), ...Object.entries(TOPIC_DOCS)].flatMap(([name, p]) => {
    const f = placeFault(p);
    return f === null ? [] : [`${name}: ${f}`];
  });
  assert.equal(faults, []);
});

test("every command's --help ends with its section of the docs", async () => {
  const top = await runCli(['--help']);
  const commands = [...top.stdout.matchAll(/^ {2}([a-z-]+) +\S/gm)].map((m) => m[1]!);
  assert.ok(commands.length >= 18, commands.join(' '));
  assert.equal(
    commands.filter((c) => !Object.hasOwn(COMMAND_DOCS, c)),
    [],
    'every command has a section',
  );
  for (const c of commands) {
    const r = await runCli([c, '--help']);
    assert.is(r.code, 0, c);
    const last = r.stdout.trimEnd().split('\n').pop()!;
    assert.is(last, `Documented in ${placeText(COMMAND_DOCS[c]!)} (in ${ROOT}).`, c);
  }
  assert.match(top.stdout, /Topics \(tickvault help TOPIC\): api, contract, mappings/);
});

test('tickvault help TOPIC: a topic names its page, a command gives its help, anything else exits 2 in one line', async () => {
  const backup = await runCli(['help', 'two-sites']);
  assert.is(backup.code, 0);
  assert.is(backup.stdout, `two-sites: several sites serving one API\n  see docs/operations.md#two-cities-one-service (in ${ROOT})\n`);
  const imp = await runCli(['help', 'import']);
  assert.is(imp.code, 0);
  assert.match(imp.stdout, /^usage: tickvault import/);
  assert.match(imp.stdout, /Documented in docs\/cli\.md#bringing-history-in/);
  const bad = await runCli(['help', 'nonsense']);
  assert.is(bad.code, 2);
  assert.is(bad.stdout, '');
  assert.match(bad.stderr, /^tickvault help: unknown topic "nonsense" \(Topics \(tickvault help TOPIC\): api, .*\)\n$/);
});

test.run();
