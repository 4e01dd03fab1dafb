import { layoutFor } from '../../storage/layout.js';
import { PostgresStateStore } from './postgresState.js';
import { SqliteStateStore } from './sqliteState.js';
import type { StateDiskError, StateStore } from './stateStore.js';

export interface StateLocation {
  /** `--state-url`: empty for service.db in the data directory. */
  readonly url: string;
  readonly dataDir: string;
  /** Fsync every commit (account management); the serving path trades that for speed on SQLite. */
  readonly durable?: boolean;
  readonly onPoolError?: (e: unknown) => void;
  /** service.db's writes started failing for a disk reason (the fault), or work again (null). */
  readonly onDiskFault?: (fault: StateDiskError | null) => void;
}

/**
 * The state store a command asked for. A PostgreSQL database that cannot be reached is a
 * StateUnavailableError here, before anything listens or writes.
 */
export async function openStateStore(loc: StateLocation): Promise<StateStore> {
  if (loc.url === '') {
    const layout = layoutFor(loc.dataDir);
    return new SqliteStateStore({ path: layout.serviceDb, cursorKeyFile: layout.cursorKeyFile, durable: loc.durable, onDiskFault: loc.onDiskFault });
  }
  return PostgresStateStore.open({ url: loc.url, onPoolError: loc.onPoolError });
}
