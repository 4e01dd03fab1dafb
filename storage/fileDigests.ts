/**
 * `tickvault doctor --digests`: the data directory's sealed files as a text list that two
 * sites can `diff`, closed by one line whose hash stands for the whole list, so that equal
 * last lines mean byte-identical files. Pure formatting; the hashing of the files themselves
 * happens in the doctor's check (storage/doctorCheck.ts), which reads every file anyway.
 */
import { createHash } from 'node:crypto';

/** One sealed file as found on disk. */
export interface FileDigest {
  /** Relative to the data directory, `/`-separated (the catalog's path). */
  readonly path: string;
  /** SHA-256 of the bytes on disk, lowercase hex. */
  readonly sha256: string;
  readonly rows: number;
  /** Size on disk. */
  readonly bytes: number;
}

export interface DigestList {
  /** Sorted by path, so two sites list the same files in the same order. */
  readonly files: readonly FileDigest[];
  /** `SHA256  ROWS  BYTES  PATH`, one per file: sha256sum's layout, so the hash comes first. */
  readonly lines: readonly string[];
  /** SHA-256 of `lines` exactly as printed (each ending in "\n"): `head -n -1 | sha256sum` checks it. */
  readonly listDigest: string;
  /** `# N files, sha256 of this list: HEX`: the one line two sites need to compare. */
  readonly summary: string;
}

export function digestList(digests: Iterable<FileDigest>): DigestList {
  // Code-unit order, not localeCompare: the order must not depend on a site's locale.
  const files = [...digests].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const lines = files.map((f) => `${f.sha256}  ${f.rows}  ${f.bytes}  ${f.path}`);
  const text = lines.map((l) => `${l}\n`).join('');
  const listDigest = createHash('sha256').update(text).digest('hex');
  return { files, lines, listDigest, summary: `# ${files.length} files, sha256 of this list: ${listDigest}` };
}

/** The JSON form: the same files and digest, members in a fixed order. */
export function digestListJson(list: DigestList): string {
  return JSON.stringify({
    files: list.files.map((f) => ({ path: f.path, sha256: f.sha256, rows: f.rows, bytes: f.bytes })),
    listDigest: list.listDigest,
  });
}
