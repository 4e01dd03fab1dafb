/**
 * Where `tickvault repair` takes a file's bytes from, and what became of each file. A source
 * installs a file only once its bytes are the local catalog's (SHA-256, hence size too), by a
 * temporary name in the file's own directory, fsync and rename: a running server that holds
 * the damaged file open keeps its inode, and the next open finds the new one. A peer's file
 * that differs is never installed; the local file stays as it was.
 */
import type { DoctorCatalogEntry } from '../../storage/doctorCheck.js';

export type FetchOutcome =
  | { readonly kind: 'repaired' }
  /** The peer has the file, but its bytes are not the catalog's. */
  | { readonly kind: 'refused'; readonly peerSha256: string; readonly peerBytes: number }
  | { readonly kind: 'not-found' }
  /** Could not be tried or finished (a refused download, another version at the peer): one sentence why. */
  | { readonly kind: 'not-repaired'; readonly reason: string };

export interface PeerSource {
  /** How lines name the source: the directory, or the peer's base address (never a key). */
  readonly label: string;
  /**
   * Installs every file it can, calling `done` once per entry; resolves when all are done and
   * the directories of installed files are fsynced.
   */
  installAll(entries: readonly DoctorCatalogEntry[], done: (entry: DoctorCatalogEntry, outcome: FetchOutcome) => void): Promise<void>;
}
