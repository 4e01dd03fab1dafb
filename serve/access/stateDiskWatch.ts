/**
 * Whether service.db's disk takes writes (api-contract 72). Every write of the SQLite store
 * goes through `write`: a refusal by a full or read-only disk (storage/diskCause.ts's mapper,
 * the project's one) becomes a StateDiskError and is remembered until a write succeeds, so
 * /healthz can say what is wrong between requests. Other errors pass unchanged.
 */
import { diskCauseOf } from '../../storage/diskCause.js';
import { StateDiskError } from './stateStore.js';

export class StateDiskWatch {
  private fault: StateDiskError | null = null;

  constructor(
    private readonly path: string,
    /** Told when writes start failing (the fault) and when they work again (null): one log line each, not one per request. */
    private readonly onChange: (fault: StateDiskError | null) => void = () => undefined,
  ) {}

  /** The fault of the last write, or null when it succeeded (or none was made yet). */
  get current(): StateDiskError | null {
    return this.fault;
  }

  write<T>(work: () => T): T {
    let result: T;
    try {
      result = work();
    } catch (e) {
      const disk = diskCauseOf(e);
      if (disk === null) throw e;
      const was = this.fault;
      this.fault = new StateDiskError(disk.cause, this.path, { cause: e });
      if (was === null || was.diskCause !== disk.cause) this.onChange(this.fault);
      throw this.fault;
    }
    if (this.fault !== null) {
      this.fault = null;
      this.onChange(null);
    }
    return result;
  }
}
