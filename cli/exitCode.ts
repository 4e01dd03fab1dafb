/**
 * The one place a command's failure becomes an exit code (README: bad arguments exit 2,
 * failures exit 1). Usage and input errors the user must fix are 2. An ingest error
 * (ingest/errors.ts) is 1 whether it is retriable or not: a supervisor's restart is the retry,
 * and the offsets stored in the data directory make it resume where it stopped. Anything
 * else is a failure too.
 */
import { ClosureFileError } from '../calendar/closureFile.js';
import { ConfigError } from '../shared/config.js';
import { MappingError } from '../ingest/import/mapping.js';

export function exitCodeOf(e: unknown): 1 | 2 {
  return e instanceof ConfigError || e instanceof ClosureFileError || e instanceof MappingError ? 2 : 1;
}
