import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { accountsCommand } from '../../cli/accountsCommand.js';
import { backupCommand } from '../../cli/backupCommand.js';
import { calendarCommand } from '../../cli/calendarCommand.js';
import type { Command } from '../../cli/command.js';
import { daysCommand } from '../../cli/daysCommand.js';
import { quarantineCommand } from '../../cli/quarantineCommand.js';
import { demoCommand } from '../../cli/demoCommand.js';
import { doctorCommand } from '../../cli/doctorCommand.js';
import { generateCommand } from '../../cli/generateCommand.js';
import { ingestCommand } from '../../cli/ingestCommand.js';
import { produceCommand } from '../../cli/produceCommand.js';
import { replayCommand } from '../../cli/replayCommand.js';
import { sealCommand } from '../../cli/sealCommand.js';
import { serveCommand } from '../../cli/serveCommand.js';
import { runCli } from '../support/cli.js';

const COMMANDS: Command[] = [
  generateCommand,
  replayCommand,
  sealCommand,
  calendarCommand,
  ingestCommand,
  produceCommand,
  serveCommand,
  accountsCommand,
  doctorCommand,
  daysCommand,
  demoCommand,
  backupCommand,
  quarantineCommand,
];
// The options of every command and their environment variables, written out here (not read
// from the code) so that a flag dropped from --help is caught.
const COMMON = [
  ['data-dir', 'TICKVAULT_DATA_DIR', './data'],
  ['log-level', 'TICKVAULT_LOG_LEVEL', 'info'],
  ['progress', 'TICKVAULT_PROGRESS', 'auto'],
  ['now', 'TICKVAULT_NOW', null],
] as const;
const ENV: Record<string, Record<string, string>> = {
  serve: {
    port: 'TICKVAULT_PORT',
    host: 'TICKVAULT_HOST',
    'rate-limit': 'TICKVAULT_RATE_LIMIT',
    'lease-seconds': 'TICKVAULT_LEASE_SECONDS',
    'cache-mb': 'TICKVAULT_CACHE_MB',
  },
  demo: { port: 'TICKVAULT_PORT', host: 'TICKVAULT_HOST' },
  ingest: {
    brokers: 'TICKVAULT_BROKERS',
    topics: 'TICKVAULT_TOPICS',
    group: 'TICKVAULT_GROUP',
    'seal-after': 'TICKVAULT_SEAL_AFTER',
    'metrics-port': 'TICKVAULT_METRICS_PORT',
    'metrics-host': 'TICKVAULT_METRICS_HOST',
    'session-timeout': 'TICKVAULT_SESSION_TIMEOUT',
  },
  produce: { brokers: 'TICKVAULT_BROKERS', topics: 'TICKVAULT_TOPICS' },
};

const help = suite('tickvault COMMAND --help');

help('every option a command parses is documented, and nothing else', () => {
  for (const c of COMMANDS) {
    assert.equal(c.help.map((d) => d.flag).sort(), Object.keys(c.options).sort(), c.name);
    for (const d of c.help) assert.ok(d.help.length > 10, `${c.name} --${d.flag}: a meaning`);
  }
});

help('--help prints each option with its meaning, default and environment variable; exit 0', async () => {
  for (const c of COMMANDS) {
    const r = await runCli([c.name, '--help']);
    assert.is(r.code, 0, `${c.name}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^usage: tickvault ${c.name}`), c.name);
    const lines = r.stdout.split('\n');
    const lineOf = (flag: string) => lines.find((l) => new RegExp(`^  --${flag}\\b`).test(l));
    for (const flag of Object.keys(c.options)) {
      const line = lineOf(flag);
      assert.ok(line, `${c.name}: --${flag} listed`);
      const env = ENV[c.name]?.[flag];
      if (env) assert.ok(line.includes(`env ${env}`), `${c.name} --${flag}: ${env} in "${line}"`);
    }
    for (const [flag, env, def] of COMMON) {
      const line = lineOf(flag);
      assert.ok(line?.includes(`env ${env}`), `${c.name}: --${flag} with ${env}`);
      if (def) assert.ok(line?.includes(`default ${def}`), `${c.name}: --${flag} default ${def}`);
    }
  }
  const serve = (await runCli(['serve', '--help'])).stdout;
  assert.match(serve, /^ {2}--port N +TCP port .*\[default 8080; env TICKVAULT_PORT\]$/m);
  assert.match(serve, /^ {2}--cache-mb MB +.*\[default 768; env TICKVAULT_CACHE_MB\]$/m);
  const ingest = (await runCli(['ingest', '--help'])).stdout;
  assert.match(ingest, /^ {2}--seal-after HH:MM +.*\[default 16:00; env TICKVAULT_SEAL_AFTER\]$/m);
});

help('tickvault --version prints the package version; tickvault --help lists every command', async () => {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  const v = await runCli(['--version']);
  assert.is(v.code, 0);
  assert.is(v.stdout, `tickvault ${pkg.version}\n`);
  const top = await runCli(['--help']);
  assert.is(top.code, 0);
  for (const c of COMMANDS) assert.match(top.stdout, new RegExp(`^  ${c.name} +\\S`, 'm'), c.name);
  assert.match(top.stdout, /--version/);
});

help.run();
