/**
 * One structured JSON logger per process, with namespaces as child loggers (`ns` member),
 * written to stderr so that stdout stays for command output (keys, calendars, reports).
 * Errors are logged as `{ err }`: pino's err serialiser keeps type, message, stack and cause.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, ns = 'tickvault', dest?: { write(line: string): void }): Logger {
  return pino({ level, base: { ns } }, dest ?? pino.destination({ dest: 2, sync: true }));
}
