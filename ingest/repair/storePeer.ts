/**
 * The store as a repair source (`tickvault repair --from s3://BUCKET/PREFIX`, issue 50): each
 * damaged or missing file fetched from the object at its catalog path, hashed as it is
 * written, installed only when its SHA-256 is the catalog's (temporary name, fsync, rename),
 * as a peer directory's file is. An object that differs is refused and the local file left
 * as it is; a store that cannot be reached leaves the file not repaired, saying why.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fsyncDir } from '../../shared/durableFile.js';
import { Limiter } from '../../shared/limiter.js';
import { DigestMismatchError, writeVerified } from '../../storage/backup/verifiedCopy.js';
import type { ObjectStore } from '../../storage/store/objectStore.js';
import { StoreError } from '../../storage/store/storeError.js';
import type { FetchOutcome, PeerSource } from './peerSource.js';

/** Downloads at once: files are small, so round trips dominate. */
const CONCURRENCY = 8;

export function storePeer(store: ObjectStore, dataDir: string): PeerSource {
  return {
    label: store.config.url,
    async installAll(entries, done) {
      const touched = new Set<string>();
      const limiter = new Limiter(CONCURRENCY);
      await Promise.all(
        entries.map((e) =>
          limiter.run(async () => {
            const outcome = await fetchOne(store, dataDir, e.path, e.sha256);
            if (outcome.kind === 'repaired') touched.add(dirname(join(dataDir, e.path)));
            done(e, outcome);
          }),
        ),
      );
      for (const dir of touched) await fsyncDir(dir);
    },
  };
}

async function fetchOne(store: ObjectStore, dataDir: string, path: string, sha256: string): Promise<FetchOutcome> {
  try {
    const there = await store.head(path);
    if (there === null) return { kind: 'not-found' };
    const dest = join(dataDir, path);
    // A deleted file's day folder may be gone too.
    await mkdir(dirname(dest), { recursive: true });
    try {
      await writeVerified(await store.getStream(path), dest, { sha256, label: path });
      return { kind: 'repaired' };
    } catch (e) {
      if (e instanceof DigestMismatchError) return { kind: 'refused', peerSha256: e.got, peerBytes: there.bytes };
      throw e;
    }
  } catch (e) {
    if (e instanceof StoreError) return { kind: 'not-repaired', reason: e.message };
    throw e;
  }
}
