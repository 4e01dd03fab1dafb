import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadCalendarExtension } from '../calendar/closureStore.js';
import { buildContext, type Command } from './command.js';
import { exitCodeOf } from './exitCode.js';
import { COMMON_DOCS, formatHelp } from './helpText.js';
import { COMMAND_DOCS, placeText, topicsLine, topicText } from './docTopics.js';

// `tickvault calendar … | head -1`: the reader is gone, the rest of the output has nowhere to
// go. End quietly, as other Unix tools do, rather than die on an unhandled EPIPE.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

/** package.json's version: dist/cli/main.js and cli/main.ts both sit two levels below it. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/**
 * Commands load on demand: a `tickvault calendar` should not pay for loading Koa, kafkajs
 * and DuckDB-sized module graphs (measured: ~0.55 s of CPU per call when all load up front).
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  generate: async () => (await import('./generateCommand.js')).generateCommand,
  replay: async () => (await import('./replayCommand.js')).replayCommand,
  import: async () => (await import('./importCommand.js')).importCommand,
  mirror: async () => (await import('./mirrorCommand.js')).mirrorCommand,
  restate: async () => (await import('./restateCommand.js')).restateCommand,
  'prune-versions': async () => (await import('./pruneVersionsCommand.js')).pruneVersionsCommand,
  seal: async () => (await import('./sealCommand.js')).sealCommand,
  calendar: async () => (await import('./calendarCommand.js')).calendarCommand,
  ingest: async () => (await import('./ingestCommand.js')).ingestCommand,
  produce: async () => (await import('./produceCommand.js')).produceCommand,
  serve: async () => (await import('./serveCommand.js')).serveCommand,
  accounts: async () => (await import('./accountsCommand.js')).accountsCommand,
  doctor: async () => (await import('./doctorCommand.js')).doctorCommand,
  days: async () => (await import('./daysCommand.js')).daysCommand,
  quarantine: async () => (await import('./quarantineCommand.js')).quarantineCommand,
  demo: async () => (await import('./demoCommand.js')).demoCommand,
  backup: async () => (await import('./backupCommand.js')).backupCommand,
  repair: async () => (await import('./repairCommand.js')).repairCommand,
  upload: async () => (await import('./uploadCommand.js')).uploadCommand,
  offload: async () => (await import('./offloadCommand.js')).offloadCommand,
  attach: async () => (await import('./attachCommand.js')).attachCommand,
};

async function usage(): Promise<string> {
  const cmds = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const lines = cmds.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
  const common = COMMON_DOCS.map((d) => `--${d.flag}`).join(', ');
  return (
    `usage: tickvault COMMAND [options]\n       tickvault --version\n       tickvault help [TOPIC]\n\ncommands:\n${lines.join('\n')}\n\n` +
    `Every command takes ${common}. 'tickvault COMMAND --help' lists its options with defaults and environment variables.\n` +
    `${topicsLine()} The docs: README.md and docs/ in ${packageRoot()}.`
  );
}

/** The package's root, where README.md and docs/ ship (dist/cli/main.js sits two levels below it). */
function packageRoot(): string {
  return fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
}

/** `tickvault COMMAND --help`: its options, then the section of the docs about it. */
function commandHelp(cmd: Command): string {
  const place = COMMAND_DOCS[cmd.name];
  const doc = place === undefined ? '' : `\nDocumented in ${placeText(place)} (in ${packageRoot()}).`;
  return formatHelp(cmd.usage, cmd.summary, cmd.help) + doc;
}

/** `tickvault help TOPIC`: a command's help, or where a topic is documented; null for an unknown topic. */
async function topicHelp(topic: string): Promise<string | null> {
  if (Object.hasOwn(COMMANDS, topic)) return commandHelp(await COMMANDS[topic]!());
  return topicText(topic, packageRoot());
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(`tickvault: missing command (one of: ${Object.keys(COMMANDS).join(', ')}; try tickvault --help)\n`);
    return 2;
  }
  if (name === '--version' || name === '-V') {
    process.stdout.write(`tickvault ${version()}\n`);
    return 0;
  }
  if (name === 'help' && rest.length > 0) {
    const text = await topicHelp(rest[0]!);
    if (text === null) {
      process.stderr.write(`tickvault help: unknown topic "${rest[0]}" (${topicsLine()})\n`);
      return 2;
    }
    process.stdout.write(text + '\n');
    return 0;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write((await usage()) + '\n');
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    process.stderr.write(`tickvault: unknown command "${name}" (one of: ${Object.keys(COMMANDS).join(', ')})\n`);
    return 2;
  }
  const cmd = await load();
  try {
    const ctx = buildContext(cmd, rest, process.env);
    if (ctx === 'help') {
      process.stdout.write(commandHelp(cmd) + '\n');
      return 0;
    }
    // Every command runs on the data directory's calendar (shipped list plus imports).
    loadCalendarExtension(ctx.config.dataDir);
    return await cmd.run(ctx);
  } catch (e) {
    if (exitCodeOf(e) === 2) {
      process.stderr.write(`tickvault ${name}: ${(e as Error).message}\n`);
      return 2;
    }
    process.stderr.write(`tickvault ${name}: failed: ${(e as Error).message}\n`);
    if (process.env.TICKVAULT_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    return exitCodeOf(e);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`tickvault: ${(e as Error).message}\n`);
    process.exitCode = 1;
  },
);
