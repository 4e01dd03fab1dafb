/**
 * `tickvault doctor`: is every sealed file the catalog names on disk, byte for byte as it was
 * sealed, and readable — and is nothing on disk that the catalog does not name?
 *
 * The check itself is pure over a small I/O interface (`DoctorIo`) so that tests can feed it
 * damaged directories without touching a disk; `openDoctorIo` is the real file system.
 * A check never writes; removing stale temp files is a separate, explicit step.
 */
import { createHash } from 'node:crypto';
import { isProcessAlive } from '../shared/processAlive.js';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CatalogReader, openCatalog } from './catalog.js';
import { dayOfPath, layoutFor, versionedFileRelPath } from './layout.js';
import { DATASETS, SCHEMAS, type Dataset } from '../shared/schema.js';
import { parseFooterOrReason, readColumnRuns, type FileMetaData } from './parquet/generalReader.js';
import type { FileDigest } from './fileDigests.js';
import { hasRowText } from './rowText/rowTextBuild.js';
import { rowTextFault } from './rowText/rowTextCheck.js';
import { BarCatalogReader, daysWithoutBars } from './bars/barCatalog.js';
import { MINUTE_BARS } from './bars/barLabels.js';
import { offloadedDays } from './store/storeCatalog.js';

/** What the catalog says about one sealed file (a subset of `CatalogFile`). */
export interface DoctorCatalogEntry {
  readonly dataset: Dataset;
  readonly tradedate: string;
  readonly symbol: string;
  /** Relative to the data directory, `/`-separated. */
  readonly path: string;
  readonly rows: number;
  readonly bytes: number;
  readonly sha256: string;
  /** 1 as sealed; a restatement's versions (current or kept) are listed too. */
  readonly version?: number;
  /** A version a restatement replaced, kept for cursors issued on it (no row text is made for it). */
  readonly replaced?: boolean;
}

/** What the catalog says about one boundary part. */
export interface DoctorPartEntry {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** What the catalog says about one bar file (storage/bars/): its rows are the day's stocks with fills (× 241 for minute). */
export interface DoctorBarEntry extends DoctorPartEntry {
  readonly rows: number;
}

export interface DoctorIo {
  /** Every bar file the catalog lists (derived data: checked, never digested). */
  barFiles?(): Iterable<DoctorBarEntry>;
  /** Sealed days without bars (sealed before bars existed): a warning each, made by `--rebuild`. */
  daysWithoutBars?(): string[];
  /** Every file the catalog lists (none when there is no catalog yet). */
  catalogFiles(): Iterable<DoctorCatalogEntry>;
  /** Every regular file under the dataset directories, relative and `/`-separated. */
  listDataFiles(): Promise<string[]>;
  /** Every boundary part the catalog lists (derived data beside the files: checked, never digested). */
  boundaryParts(): Iterable<DoctorPartEntry>;
  /** The days with sealed files, ascending (CatalogReader.storedTradingDays): the row text window's. */
  storedTradingDays(): string[];
  /** Size in bytes, or null when the file does not exist. */
  fileSize(relPath: string): Promise<number | null>;
  readFile(relPath: string): Promise<Uint8Array>;
  /** Whether a process with this id runs on this host (a temp file may be a seal in progress). */
  isPidRunning(pid: number): boolean;
  /**
   * Days whose local copies `tickvault offload` removed (storage/store/offload.ts): their files
   * live in the store, verified there before they went, so none of them is looked for here.
   */
  offloadedDays?(): ReadonlySet<string>;
}

export type ProblemKind =
  'missing' | 'extra' | 'size-mismatch' | 'checksum-mismatch' | 'unreadable' | 'row-count-mismatch' | 'schema-mismatch' | 'path-mismatch';

/**
 * Stale temp files are leftovers of an interrupted seal: harmless to queries. Row text that
 * cannot serve (storage/rowText/) costs first touches speed, never answers.
 */
export type WarningKind = 'stale-temp' | 'row-text' | 'bars';

export interface Finding<K extends string> {
  readonly kind: K;
  readonly path: string;
  /** One sentence: what differs, with the expected and the found value where there are two. */
  readonly detail: string;
}

export type Problem = Finding<ProblemKind>;
export type Warning = Finding<WarningKind>;

export interface DoctorOptions {
  /** Skip the sha256 of every file (sizes and footers only): much faster on a big directory. */
  readonly quick?: boolean;
  /** Also decode every page of every file (hyparquet), not just its footer. */
  readonly deep?: boolean;
  /** Files checked at once. */
  readonly concurrency?: number;
  /** Called after each catalogued file is checked, with its size (for a progress bar). */
  readonly onFile?: (bytes: number) => void;
  /**
   * Called with the SHA-256 of each catalogued file read from disk (not with quick): the
   * check reads and hashes every file already, so `doctor --digests` costs no second pass.
   * Missing or unreadable files have no digest; rows are the catalog's (checked against the footer).
   */
  readonly onDigest?: (digest: FileDigest) => void;
  /**
   * Also check the row text of each file of these days that gets some (level 2: rowTextBuild.ts hasRowText), the row text
   * window (storage/rowText/rowTextWindow.ts; quick: only that it is there). Files of other
   * days have none by design: its absence there is no finding.
   */
  readonly rowTextDays?: ReadonlySet<string>;
}

export interface DoctorReport {
  /** Files the catalog lists. */
  readonly catalogFiles: number;
  /** Bytes the catalog lists. */
  readonly catalogBytes: number;
  /** Regular files found under the dataset directories (including extra and temp files). */
  readonly diskFiles: number;
  /** Days offloaded to the store and their listed files (not checked here: they are not on this disk by design); absent: none. */
  readonly offloaded?: { readonly days: number; readonly files: number };
  /** What was verified for each catalogued file present on disk. */
  readonly checks: readonly ('size' | 'sha256' | 'footer' | 'pages')[];
  readonly problems: readonly Problem[];
  readonly warnings: readonly Warning[];
  /** No problems (warnings do not count). */
  readonly ok: boolean;
}

/** Temp names written by the sealer: `NAME.tmp-PID` (ingest/seal/day.ts). */
const TEMP_RE = /\.tmp-([^/]*)$/;

export async function checkDataDir(io: DoctorIo, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const problems: Problem[] = [];
  const warnings: Warning[] = [];
  const entries = [...io.catalogFiles()];
  const bars = [...(io.barFiles?.() ?? [])];
  const listed = new Set([...entries.map((e) => e.path), ...bars.map((b) => b.path)]);
  const offloaded = io.offloadedDays?.() ?? new Set<string>();
  const here = (path: string) => !offloaded.has(dayOfPath(path) ?? '');
  let offloadedFiles = 0;
  const onDisk = await io.listDataFiles();

  for (const rel of onDisk) {
    if (listed.has(rel)) continue;
    const temp = TEMP_RE.exec(rel);
    if (temp) warnings.push({ kind: 'stale-temp', path: rel, detail: tempDetail(io, temp[1]) });
    else problems.push({ kind: 'extra', path: rel, detail: 'on disk but not in the catalog' });
  }

  const perFile: Problem[][] = new Array(entries.length);
  let next = 0;
  const worker = async () => {
    while (next < entries.length) {
      const i = next++;
      const e = entries[i]!;
      if (offloaded.has(e.tradedate)) {
        // Its bytes were the catalog's when offload removed them (verified in the store): the
        // catalog's facts stand for them, so two hosts on one bucket list the same digests.
        perFile[i] = [];
        offloadedFiles++;
        if (!opts.quick) opts.onDigest?.({ path: e.path, sha256: e.sha256, rows: e.rows, bytes: e.bytes });
        opts.onFile?.(e.bytes);
        continue;
      }
      perFile[i] = await checkFile(io, e, opts);
      if (opts.rowTextDays?.has(e.tradedate) && hasRowText(e.dataset) && e.replaced !== true) {
        const fault = await rowTextFault(io, { ...e, rowGroupSize: SCHEMAS[e.dataset].rowGroupSize }, opts.quick ?? false);
        if (fault !== null) warnings.push({ kind: 'row-text', path: e.path, detail: fault });
      }
      opts.onFile?.(entries[i].bytes);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  // Catalog order (dataset, date, symbol), whatever order the workers finished in.
  for (const found of perFile) problems.push(...found);
  for (const part of io.boundaryParts()) if (here(part.path)) problems.push(...(await checkPart(io, part, opts)));
  for (const bar of bars) if (here(bar.path)) problems.push(...(await checkBarFile(io, bar, opts)));
  for (const day of io.daysWithoutBars?.() ?? []) {
    if (offloaded.has(day)) continue;
    warnings.push({
      kind: 'bars',
      path: `bars/*/date=${day}`,
      detail: 'a sealed day without bars (sealed before bars existed); `tickvault doctor --rebuild` makes them',
    });
  }

  const checks: DoctorReport['checks'] = ['size', ...(opts.quick ? [] : ['sha256' as const]), 'footer', ...(opts.deep ? ['pages' as const] : [])];
  return {
    catalogFiles: entries.length,
    catalogBytes: entries.reduce((a, e) => a + e.bytes, 0),
    diskFiles: onDisk.length,
    offloaded: { days: offloaded.size, files: offloadedFiles },
    checks,
    problems: problems.sort(byPath),
    warnings: warnings.sort(byPath),
    ok: problems.length === 0,
  };
}

function byPath(a: Finding<string>, b: Finding<string>): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : a.kind.localeCompare(b.kind);
}

function tempDetail(io: DoctorIo, suffix: string): string {
  if (!/^\d+$/.test(suffix)) return 'temporary file left by an interrupted seal';
  const pid = Number(suffix);
  return io.isPidRunning(pid)
    ? `temporary file of process ${pid}, which is running: a seal may be in progress`
    : `temporary file left by process ${pid}, which is no longer running (an interrupted seal)`;
}

async function checkFile(io: DoctorIo, e: DoctorCatalogEntry, opts: DoctorOptions): Promise<Problem[]> {
  const out: Problem[] = [];
  const problem = (kind: ProblemKind, detail: string) => out.push({ kind, path: e.path, detail });

  // A catalog path is only ever the layout's path for its key; anything else means the
  // catalog was edited or written by something else, and the server would read the wrong file.
  const version = e.version ?? 1;
  const expected = versionedFileRelPath(e.dataset, e.tradedate, e.symbol, version);
  if (e.path !== expected) {
    problem('path-mismatch', `catalog key ${e.dataset} ${e.tradedate} ${e.symbol}${version === 1 ? '' : ` version ${version}`} should be at ${expected}`);
  }

  const size = await io.fileSize(e.path);
  if (size === null) {
    problem('missing', 'listed in the catalog but not on disk');
    return out;
  }
  // A size difference already says the bytes differ: the checksum would only repeat it.
  const sizeOk = size === e.bytes;
  if (!sizeOk) problem('size-mismatch', `${size} bytes on disk, catalog says ${e.bytes}`);

  let bytes: Uint8Array;
  try {
    bytes = await io.readFile(e.path);
  } catch (err) {
    problem('unreadable', `cannot be read: ${(err as Error).message}`);
    return out;
  }
  if (!opts.quick) {
    const sha = createHash('sha256').update(bytes).digest('hex');
    opts.onDigest?.({ path: e.path, sha256: sha, rows: e.rows, bytes: bytes.length });
    if (sizeOk && sha !== e.sha256) problem('checksum-mismatch', `sha256 ${sha.slice(0, 16)}… differs from the catalog's ${e.sha256.slice(0, 16)}…`);
  }

  const footer = parseFooterOrReason(bytes);
  if (typeof footer === 'string') {
    problem('unreadable', footer);
    return out;
  }
  const footerRows = Number(footer.num_rows);
  if (footerRows !== e.rows) problem('row-count-mismatch', `footer says ${footerRows} rows, catalog says ${e.rows}`);
  const columns = footer.schema.slice(1).map((s) => s.name);
  const want = SCHEMAS[e.dataset].fieldNames;
  if (columns.join(',') !== want.join(',')) {
    problem('schema-mismatch', `columns are not the ${e.dataset} fields in spec order (found ${columns.length} columns, want ${want.length})`);
  }
  if (opts.deep) {
    const err = await decodeAll(bytes, footer, footerRows);
    if (err !== null) problem('unreadable', err);
  }
  return out;
}

/**
 * A boundary part: there, and the bytes the catalog lists. The server answers from the files
 * when a part fails it, so a damaged part is slow boundaries, not wrong ones; still a problem.
 */
async function checkPart(io: DoctorIo, part: DoctorPartEntry, opts: DoctorOptions): Promise<Problem[]> {
  const size = await io.fileSize(part.path);
  if (size === null) return [{ kind: 'missing', path: part.path, detail: 'boundary part listed in the catalog but not on disk' }];
  if (size !== part.bytes) return [{ kind: 'size-mismatch', path: part.path, detail: `${size} bytes on disk, catalog says ${part.bytes}` }];
  if (opts.quick) return [];
  const sha = createHash('sha256')
    .update(await io.readFile(part.path))
    .digest('hex');
  if (sha === part.sha256) return [];
  return [{ kind: 'checksum-mismatch', path: part.path, detail: `sha256 ${sha.slice(0, 16)}… differs from the catalog's ${part.sha256.slice(0, 16)}…` }];
}

/**
 * A bar file (storage/bars/): there, the bytes the catalog lists, and as many rows as the day's
 * stocks with fills give. The server reads bars from it and the catalog's daily rows.
 */
async function checkBarFile(io: DoctorIo, bar: DoctorBarEntry, opts: DoctorOptions): Promise<Problem[]> {
  const size = await io.fileSize(bar.path);
  if (size === null) return [{ kind: 'missing', path: bar.path, detail: 'bar file listed in the catalog but not on disk' }];
  if (size !== bar.bytes) return [{ kind: 'size-mismatch', path: bar.path, detail: `${size} bytes on disk, catalog says ${bar.bytes}` }];
  const bytes = await io.readFile(bar.path);
  if (!opts.quick) {
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (sha !== bar.sha256)
      return [{ kind: 'checksum-mismatch', path: bar.path, detail: `sha256 ${sha.slice(0, 16)}… differs from the catalog's ${bar.sha256.slice(0, 16)}…` }];
  }
  const footer = parseFooterOrReason(bytes);
  if (typeof footer === 'string') return [{ kind: 'unreadable', path: bar.path, detail: footer }];
  const rows = Number(footer.num_rows);
  return rows === bar.rows ? [] : [{ kind: 'row-count-mismatch', path: bar.path, detail: `footer says ${rows} rows, the catalog's bars say ${bar.rows}` }];
}

/** Decodes every column of every row group; null when all of it reads back. */
async function decodeAll(bytes: Uint8Array, metadata: FileMetaData, rows: number): Promise<string | null> {
  const counts = new Map<string, number>();
  try {
    await readColumnRuns(bytes, metadata, ({ columnName, values }) => {
      counts.set(columnName, (counts.get(columnName) ?? 0) + values.length);
    });
  } catch (err) {
    return `pages cannot be decoded: ${(err as Error).message}`;
  }
  for (const [name, n] of counts) if (n !== rows) return `column ${name} decodes to ${n} values, footer says ${rows} rows`;
  return null;
}

// ---- the real file system -----------------------------------------------------------------

export interface FsDoctorIo extends DoctorIo {
  close(): void;
}

/**
 * The data directory on disk. The catalog is opened read-only (doctor may run beside a live
 * ingestor and servers; WAL lets it read a consistent snapshot without blocking them).
 */
export function openDoctorIo(dataDir: string): FsDoctorIo {
  const layout = layoutFor(dataDir);
  const db = existsSync(layout.catalogDb) ? openCatalog(layout.catalogDb, true) : null;
  const reader = db ? new CatalogReader(db) : null;
  return {
    *catalogFiles() {
      if (!reader) return;
      yield* reader.everyFile();
      // Versions a restatement replaced stay on disk for cursors issued on them: checked alike.
      for (const f of reader.everyOldVersion()) yield { ...f, replaced: true };
    },
    boundaryParts: () => reader?.everyBoundaryPart() ?? [],
    *barFiles() {
      if (!db) return;
      const bars = new BarCatalogReader(db);
      if (!bars.hasTables()) return;
      for (const d of bars.barDays()) {
        if (d.minutePath !== null) yield { path: d.minutePath, bytes: d.minuteBytes ?? 0, sha256: d.minuteSha256 ?? '', rows: d.stocks * MINUTE_BARS };
        if (d.dailyPath !== null) yield { path: d.dailyPath, bytes: d.dailyBytes ?? 0, sha256: d.dailySha256 ?? '', rows: d.stocks };
      }
    },
    daysWithoutBars: () => (db && new BarCatalogReader(db).hasTables() ? daysWithoutBars(db) : []),
    storedTradingDays: () => reader?.storedTradingDays() ?? [],
    offloadedDays: () => (db ? offloadedDays(db) : new Set()),
    async listDataFiles() {
      const out: string[] = [];
      for (const dataset of DATASETS) await walk(dataDir, dataset, out);
      await walk(dataDir, 'bars', out);
      return out.sort();
    },
    async fileSize(relPath) {
      try {
        return (await stat(join(dataDir, relPath))).size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    readFile: (relPath) => readFile(join(dataDir, relPath)),
    isPidRunning,
    close() {
      db?.close();
    },
  };
}

async function walk(root: string, rel: string, out: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(join(root, rel), { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const d of entries) {
    const child = `${rel}/${d.name}`;
    if (d.isDirectory()) await walk(root, child, out);
    else out.push(child);
  }
}

const isPidRunning = isProcessAlive;

/**
 * Deletes the stale temp files of a report whose writer is no longer running; a temp of a
 * live process may be a seal in progress and is kept. Returns the paths removed.
 */
export async function removeStaleTempFiles(dataDir: string, report: DoctorReport, io: Pick<DoctorIo, 'isPidRunning'> = { isPidRunning }): Promise<string[]> {
  const removed: string[] = [];
  for (const w of report.warnings) {
    const pid = TEMP_RE.exec(w.path)?.[1];
    if (pid !== undefined && /^\d+$/.test(pid) && io.isPidRunning(Number(pid))) continue;
    await unlink(join(dataDir, w.path)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    removed.push(w.path);
  }
  return removed;
}

/** Counts per kind, in first-seen order, e.g. `1 missing, 2 extra`. */
export function summarizeKinds(findings: readonly Finding<string>[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n} ${k}`).join(', ');
}
