import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadCommonConfig, OPTIONS, type CommonConfig, type Env, type Flags } from '../shared/config.js';
import { createLogger, type Logger } from '../shared/logger.js';
import type { OptionDoc } from './helpText.js';
import { stderrAboveBar } from './progress.js';

/** What every command receives: its parsed flags, positionals, common config and a logger. */
export interface CommandContext {
  readonly flags: Flags;
  readonly positionals: readonly string[];
  readonly env: Env;
  readonly config: CommonConfig;
  readonly log: Logger;
  /** Command output (stdout): keys, calendars, reports. */
  readonly out: (line: string) => void;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: NonNullable<ParseArgsConfig['options']>;
  /** One entry per key of `options`, for `--help`. */
  readonly help: readonly OptionDoc[];
  readonly positionals?: 'none' | 'some' | 'any';
  /** Resolves to the exit code. */
  run(ctx: CommandContext): Promise<number>;
}

/** Flags every command accepts. */
export const COMMON_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  [OPTIONS.dataDir.flag]: { type: 'string' },
  [OPTIONS.logLevel.flag]: { type: 'string' },
  [OPTIONS.now.flag]: { type: 'string' },
  [OPTIONS.progress.flag]: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export class UsageError extends ConfigError {
  override name = 'UsageError';
}

export function buildContext(cmd: Command, argv: readonly string[], env: Env): CommandContext | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...COMMON_OPTIONS, ...cmd.options },
      allowPositionals: cmd.positionals !== 'none' && cmd.positionals !== undefined,
      strict: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]);
  }
  if (parsed.values.help) return 'help';
  if (cmd.positionals === 'some' && parsed.positionals.length === 0) throw new UsageError(`${cmd.name} needs at least one file`);
  const flags = parsed.values as Flags;
  const config = loadCommonConfig(flags, env, Boolean(process.stderr.isTTY));
  return {
    flags,
    positionals: parsed.positionals,
    env,
    config,
    log: commandLogger(config.logLevel, cmd.name, config.progress),
    out: (line) => process.stdout.write(line + '\n'),
  };
}

/** A command's logger: with progress bars on, its lines are printed above the bar. */
export function commandLogger(level: string, ns: string, progress: boolean): Logger {
  return progress ? createLogger(level, ns, stderrAboveBar) : createLogger(level, ns);
}
