/**
 * Whether a sealed file still holds the bytes the catalog lists (its size and SHA-256), checked
 * at the file's first touch in this process, before anything of it is served as rows or sent
 * as a download (api-contract 74). A bad sector or an operator's mistake changes bytes under a
 * file the catalog vouches for; without this the damage would reach clients as wrong numbers
 * whenever the flipped byte still decodes.
 *
 * A verdict that the file is whole is kept in the byte-bounded cache beside the file's decoded
 * columns (sealed files are immutable; an evicted verdict costs one more hash, ~0.7 ms to read and hash a
 * level-2 stock-day). A damaged file is remembered by its identity (inode, size, mtime): every
 * later touch answers the same DamagedFileError from one `stat`, without reading it again, until
 * the path holds another file (`tickvault repair` renames a verified copy in); then it is checked
 * again, so a repair needs no restart. Each damaged file is reported once (`onFound`: the log
 * line naming it), and the number known is a gauge in /metrics.
 */
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogFile } from '../../storage/catalog.js';
import { DamagedFileError } from '../../storage/damagedFile.js';
import { DamageRecords } from './damageRecords.js';
import type { LakeFiles } from '../../storage/lakeFiles.js';

/** Where verdicts are kept: the column cache's byte-bounded LRU (fileColumns.ts ByteLru). */
export interface VerdictCache {
  get<T>(key: string): Promise<T> | undefined;
  set<T>(key: string, bytes: number, value: Promise<T>): Promise<T>;
  delete(key: string): void;
}

/** What a damaged file is known by: its path's inode, size and mtime, or that it is absent. */
type Identity = string;

interface KnownDamage {
  readonly identity: Identity;
  readonly error: DamagedFileError;
}

/** The verdict's cache entry: a settled promise and a key; its bytes are nothing next to the columns. */
const VERDICT_BYTES = 64;

/**
 * Errors that mean the file cannot give its bytes (a bad sector, a path that is no file): damage
 * of that file. Anything else (EMFILE, EACCES) is the server's own trouble, not the file's.
 */
const UNREADABLE = new Set(['ENOENT', 'EIO', 'EISDIR', 'ENOTDIR']);

export class FileIntegrity {
  constructor(
    private readonly dataDir: string,
    private readonly verdicts: VerdictCache,
    private readonly onFound: (e: DamagedFileError) => void = () => {},
    /** Damaged files by catalog path, in the damage records' share of the budget (damageRecords.ts). */
    private readonly damaged: DamageRecords = new DamageRecords(1 << 20),
    /** For files offloaded to the store: their bytes are checked block by block as they are read (storage/store/blockCache.ts). */
    private readonly lake: LakeFiles | null = null,
  ) {}

  /** Files found damaged and not (yet) seen replaced (as far as remembered). */
  get damagedCount(): number {
    return this.damaged.count('file');
  }

  /**
   * Resolves when `file` holds the catalog's bytes; throws DamagedFileError otherwise.
   * `onVerified` is given the bytes when this call read and verified them (not when the verdict
   * was known), so the caller need not read the file again for its footer; nothing keeps them.
   */
  async check(file: CatalogFile, onVerified?: (bytes: Buffer) => void): Promise<void> {
    const known = this.damaged.recall<KnownDamage>('file', file.path);
    if (known) {
      if ((await this.identityOf(file.path)) === known.identity) throw known.error;
      // Another file now: repaired (or damaged anew); judged again from its bytes.
      this.damaged.forget('file', file.path);
    }
    const key = verdictKey(file);
    return this.verdicts.get<void>(key) ?? this.verdicts.set(key, VERDICT_BYTES, this.verify(file, onVerified));
  }

  /**
   * Damage found while reading a file (a footer or page that does not decode, bytes changed
   * after the check): remembered as if the check had found it, so later touches answer at once.
   */
  async found(e: DamagedFileError): Promise<void> {
    if (this.damaged.recall('file', e.path) !== undefined) return;
    this.record(e, await this.identityOf(e.path));
    this.verdicts.delete(verdictKey(e));
  }

  private async verify(file: CatalogFile, onVerified?: (bytes: Buffer) => void): Promise<void> {
    const full = join(this.dataDir, file.path);
    let fh;
    try {
      fh = await open(full, 'r');
    } catch (e) {
      // Offloaded: the store's copy is the catalog's file when its record says so; each block
      // read is checked against the digests made from those bytes, so no whole read here.
      const stored = (e as NodeJS.ErrnoException).code === 'ENOENT' ? this.lake?.remote?.stored(file.path) : null;
      if (stored) {
        if (stored.sha256 === file.sha256 && stored.bytes === file.bytes) return;
        throw this.record(new DamagedFileError(file.path, `the store's copy (SHA-256 ${stored.sha256}) is not the catalog's ${file.sha256}`), 'absent');
      }
      throw this.unreadable(file, e, 'absent');
    }
    let identity: Identity = 'absent';
    try {
      const st = await fh.stat();
      identity = identityOfStat(st);
      if (st.size !== file.bytes) throw this.record(new DamagedFileError(file.path, `it is ${st.size} bytes, the catalog lists ${file.bytes}`), identity);
      const bytes = Buffer.allocUnsafe(st.size);
      let at = 0;
      while (at < bytes.length) {
        const { bytesRead } = await fh.read(bytes, at, bytes.length - at, at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      const sha = createHash('sha256').update(bytes.subarray(0, at)).digest('hex');
      if (at !== st.size || sha !== file.sha256) {
        throw this.record(new DamagedFileError(file.path, `its SHA-256 ${sha} differs from the catalog's ${file.sha256}`), identity);
      }
      onVerified?.(bytes);
    } catch (e) {
      throw e instanceof DamagedFileError ? e : this.unreadable(file, e, identity);
    } finally {
      await fh.close();
    }
  }

  /** A read failure: damage of the file when it cannot give its bytes, else the error as it is. */
  private unreadable(file: CatalogFile, e: unknown, identity: Identity): Error {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code !== 'string' || !UNREADABLE.has(code)) return e as Error;
    const detail = code === 'ENOENT' ? 'it is missing' : `it cannot be read (${code})`;
    return this.record(new DamagedFileError(file.path, detail, { cause: e }), identity);
  }

  private record(e: DamagedFileError, identity: Identity): DamagedFileError {
    const known = this.damaged.recall<KnownDamage>('file', e.path);
    if (known?.identity === identity) return known.error;
    this.damaged.remember('file', e.path, { identity, error: e });
    this.onFound(e);
    return e;
  }

  private async identityOf(path: string): Promise<Identity> {
    try {
      return identityOfStat(await stat(join(this.dataDir, path)));
    } catch {
      return 'absent';
    }
  }
}

function verdictKey(file: Pick<CatalogFile, 'path'>): string {
  return `${file.path}#sha256`;
}

function identityOfStat(st: { readonly ino: number; readonly size: number; readonly mtimeMs: number }): Identity {
  // Whole milliseconds: what utimes and copies keep, so one file keeps one identity.
  return `${st.ino}:${st.size}:${Math.floor(st.mtimeMs)}`;
}
