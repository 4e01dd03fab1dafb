/**
 * Where everything lives under the data directory. The server and the ingestor both use this,
 * so a path is decided in exactly one place.
 */
import { join } from 'node:path';
import type { Dataset } from '../shared/schema.js';

export interface Layout {
  readonly dataDir: string;
  /** Sealed-file catalog, row-position index, trading-calendar table. Written only by sealing. */
  readonly catalogDb: string;
  /** Staged snapshots of open days, quarantine, ingest progress. */
  readonly ingestDb: string;
  /** Accounts, quotas, request slots; written by server processes. */
  readonly serviceDb: string;
  /** Secret used to sign cursors, shared by every server process on this directory. */
  readonly cursorKeyFile: string;
  /** Symbol-days a mirror has fetched, kept until their day is sealed here. */
  readonly mirrorSpool: string;
}

export function layoutFor(dataDir: string): Layout {
  return {
    dataDir,
    catalogDb: join(dataDir, 'catalog.db'),
    ingestDb: join(dataDir, 'ingest.db'),
    serviceDb: join(dataDir, 'service.db'),
    cursorKeyFile: join(dataDir, 'cursor.key'),
    mirrorSpool: join(dataDir, 'mirror-spool'),
  };
}

/** Path of a sealed file relative to the data directory (api-contract: The feed). */
export function sealedFileRelPath(dataset: Dataset, tradedate: string, symbol: string): string {
  return `${dataset}/date=${tradedate}/${symbol}.parquet`;
}

/**
 * Path of a symbol-day's file in `version` (api-contract: Corrections): version 1 is the sealed
 * file's own name; a restatement's version N sits beside it as `NNNNNN.XX.vN.parquet`.
 */
export function versionedFileRelPath(dataset: Dataset, tradedate: string, symbol: string, version: number): string {
  const first = sealedFileRelPath(dataset, tradedate, symbol);
  return version === 1 ? first : first.replace(/\.parquet$/, `.v${version}.parquet`);
}

export function sealedDayDir(dataDir: string, dataset: Dataset, tradedate: string): string {
  return join(dataDir, dataset, `date=${tradedate}`);
}

/**
 * A boundary part (storage/boundary/), relative to the data directory. Under `_boundary/`,
 * apart from the datasets' folders, so a glob over a dataset's Parquet files never meets it.
 */
export function boundaryPartRelPath(dataset: Dataset, tradedate: string, name: string): string {
  return `_boundary/${dataset}/date=${tradedate}/${name}.tvb`;
}

/**
 * A sealed file's row text (storage/rowText/), relative to the data directory: under
 * `_rowtext/`, apart from the datasets' folders, so a glob over a dataset's Parquet files never
 * meets it; named as its file, `.tvr` for `.parquet` (a version's row text beside its version's).
 */
export function rowTextRelPath(fileRelPath: string): string {
  return `_rowtext/${fileRelPath.replace(/\.parquet$/, '.tvr')}`;
}

/** The folder of a dataset's row text (its days' folders are named as the dataset's own). */
export function rowTextDatasetDir(dataset: Dataset): string {
  return `_rowtext/${dataset}`;
}

/** The bar files (storage/bars/): `minute` (1m bars of every stock) and `daily`, one of each a day. */
export type BarKind = 'minute' | 'daily';

/**
 * A day's bar file in `version` (each rebuild after a restatement is a new name, so a file is
 * never rewritten in place): `bars/minute/date=YYYYMMDD/minute.v1.parquet`; a glob over
 * `bars/minute/*` reads every day's current file (a rebuild removes the version it replaced).
 */
export function barFileRelPath(kind: BarKind, tradedate: string, version: number): string {
  return `bars/${kind}/date=${tradedate}/${kind}.v${version}.parquet`;
}

/**
 * The trading day a file of the lake belongs to: every day's file sits in a `date=YYYYMMDD`
 * folder (a dataset's, `_boundary/`, `_rowtext/`, `bars/`); null for a path of no day.
 */
export function dayOfPath(relPath: string): string | null {
  return /(?:^|\/)date=(\d{8})\//.exec(relPath)?.[1] ?? null;
}
