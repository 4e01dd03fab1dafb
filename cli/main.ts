import { ConfigError } from '../shared/config.js';
import { buildContext, type Command } from './command.js';
import { calendarCommand } from './calendarCommand.js';
import { generateCommand } from './generateCommand.js';
import { replayCommand } from './replayCommand.js';
import { sealCommand } from './sealCommand.js';

/** `tickvault COMMAND …`: dispatch, usage errors as one line and exit 2, faults exit 1. */
const COMMANDS: readonly Command[] = [generateCommand, replayCommand, sealCommand, calendarCommand];

function usage(): string {
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`);
  return `usage: tickvault COMMAND [options]\n\ncommands:\n${lines.join('\n')}\n\nEvery command takes --data-dir DIR (env TICKVAULT_DATA_DIR, default ./data). 'tickvault COMMAND --help' for its options.`;
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return name === undefined ? 2 : 0;
  }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) {
    process.stderr.write(`tickvault: unknown command "${name}" (try: ${COMMANDS.map((c) => c.name).join(', ')})\n`);
    return 2;
  }
  try {
    const ctx = buildContext(cmd, rest, process.env);
    if (ctx === 'help') {
      process.stdout.write(`usage: ${cmd.usage}\n${cmd.summary}\n`);
      return 0;
    }
    return await cmd.run(ctx);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`tickvault ${name}: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`tickvault ${name}: failed: ${(e as Error).message}\n`);
    if (process.env.TICKVAULT_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    return 1;
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
