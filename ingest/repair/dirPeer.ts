/**
 * A peer's data directory, or a backup of ours (`tickvault backup` keeps the layout): each
 * file at the same relative path, copied by the backup's own verified copy, which hashes while
 * it writes and renames into place only bytes whose SHA-256 is the catalog's.
 */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { copyVerified, DigestMismatchError } from '../../storage/backup/verifiedCopy.js';
import { fsyncDir } from '../../shared/durableFile.js';
import type { DoctorCatalogEntry } from '../../storage/doctorCheck.js';
import type { FetchOutcome, PeerSource } from './peerSource.js';

export function dirPeer(peerDir: string, dataDir: string): PeerSource {
  return {
    label: peerDir,
    async installAll(entries, done) {
      const touched = new Set<string>();
      for (const e of entries) {
        const outcome = await copyPeerFile(peerDir, dataDir, e);
        if (outcome.kind === 'repaired') touched.add(dirname(join(dataDir, e.path)));
        done(e, outcome);
      }
      for (const dir of touched) await fsyncDir(dir);
    },
  };
}

/**
 * The file at `e.path` under `peerDir` installed at the same path under `dataDir` when its
 * SHA-256 is the catalog's (also the index files a mirror sealed into a scratch directory).
 */
export async function copyPeerFile(peerDir: string, dataDir: string, e: DoctorCatalogEntry): Promise<FetchOutcome> {
  const src = join(peerDir, e.path);
  const dest = join(dataDir, e.path);
  let peerBytes: number;
  try {
    const s = await stat(src);
    if (!s.isFile()) return { kind: 'not-found' };
    peerBytes = s.size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'not-found' };
    return { kind: 'not-repaired', reason: `the peer's file cannot be read: ${(err as Error).message}` };
  }
  // A deleted file's day folder may be gone too.
  await mkdir(dirname(dest), { recursive: true });
  try {
    await copyVerified(src, dest, { sha256: e.sha256, label: e.path });
    return { kind: 'repaired' };
  } catch (err) {
    if (err instanceof DigestMismatchError) return { kind: 'refused', peerSha256: err.got, peerBytes };
    throw err;
  }
}
