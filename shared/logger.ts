import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * One structured JSON logger per process, with namespaces as child loggers (`ns` member),
 * written to stderr so that stdout stays for command output (keys, calendars, reports).
 */
export function createLogger(level: string, ns = 'tickvault', dest?: { write(line: string): void }): Logger {
  return pino({ level, base: { ns } }, dest ?? pino.destination({ dest: 2, sync: true }));
}

export function childLogger(parent: Logger, ns: string): Logger {
  return parent.child({ ns });
}
