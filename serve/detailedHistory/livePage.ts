/**
 * A page of a live day (api-contract: The live day) for the detailed interfaces: the rows the
 * seal would write from what is staged now (liveStaging.ts), written by the same serialiser as
 * a sealed page, so a live answer and the sealed one differ only in `data.live`. Paging is by
 * sort key: a cursor continues after the last row it answered (time, then id for trades and
 * orders), because a row staged later may land before any row position.
 */
import { SCHEMAS, type Dataset } from '../../shared/schema.js';
import type { CatalogFile } from '../../storage/catalog.js';
import { minuteStarts } from '../../storage/minuteIndex.js';
import { columnsAsRead } from '../../storage/rowText/rowTextBuild.js';
import { ROW_BYTES, serializeRows, sliceRows, type SerializedRows } from '../../storage/rowText/rowJson.js';
import type { FileColumnCache } from '../reading/fileColumns.js';
import type { LiveSymbolDay } from '../reading/liveStaging.js';
import { firstRowAtOrAfter, groupsOf, lowerBound } from '../reading/rowSearch.js';
import { spanTimeLookup } from '../reading/rowTimes.js';
import type { LiveKey } from './cursor.js';
import type { Level2Query } from './params.js';

/** What a Parquet download of a live day answers (api-contract: The live day). */
export const LIVE_PARQUET_REASON = 'the day is live: its file exists once it is sealed; JSON pages serve its rows now';

export interface LivePage {
  /** The page's rows as `[…],[…]`, in pieces written in order (none when no rows). */
  readonly items: readonly Buffer[];
  readonly rows: number;
  /** Rows of the day in the time window (before the cursor applies). */
  readonly inWindow: number;
  /** The key of the page's last row when more rows follow it in the window; null on the last page. */
  readonly nextAfter: LiveKey | null;
}

/** First index in [lo, hi) whose time is at or after `ms` (times ascending). */
function firstAtOrAfter(times: Int32Array, lo: number, hi: number, ms: number): number {
  return lowerBound({ lo, hi }, ms, (r) => times[r]!);
}

/** The row's key: its time and, for trades and orders, its id. */
function keyOf(dataset: Dataset, day: LiveSymbolDay, row: number): LiveKey {
  const idValue = SCHEMAS[dataset].idValue;
  return { timeMs: day.timesMs[row]!, id: idValue === null ? 0 : day.values[idValue]![row]! };
}

/** First index in [lo, hi) whose key is after `after` (keys ascending: time, then id). */
function firstAfter(dataset: Dataset, day: LiveSymbolDay, lo: number, hi: number, after: LiveKey): number {
  let at = firstAtOrAfter(day.timesMs, lo, hi, after.timeMs);
  const idValue = SCHEMAS[dataset].idValue;
  // Snapshots: one row per time. Trades and orders: rows of one time are in id order.
  if (idValue === null) return at < hi && day.timesMs[at] === after.timeMs ? at + 1 : at;
  const ids = day.values[idValue]!;
  while (at < hi && day.timesMs[at] === after.timeMs && ids[at]! <= after.id) at++;
  return at;
}

export function livePage(dataset: Dataset, tradedate: string, q: Level2Query, day: LiveSymbolDay): LivePage {
  const lo = q.startMs === null ? 0 : firstAtOrAfter(day.timesMs, 0, day.rows, q.startMs);
  // end_time is inclusive.
  const hi = q.endMs === null ? day.rows : Math.max(lo, firstAtOrAfter(day.timesMs, lo, day.rows, q.endMs + 1));
  const start = q.start;
  const first =
    start.kind === 'token' && start.after !== undefined
      ? firstAfter(dataset, day, lo, hi, start.after)
      : start.kind === 'offset'
        ? Math.min(hi, lo + start.offset)
        : lo;
  const end = Math.min(hi, first + q.pageSize);
  if (end <= first) return { items: [], rows: 0, inWindow: hi - lo, nextAfter: null };
  const rows = end - first;
  const items = isEveryField(dataset, q.fields)
    ? textOf(dataset, tradedate, day, first, end)
    : [serialized(dataset, tradedate, day, q.fields, first, end).bytes];
  return { items, rows, inWindow: hi - lo, nextAfter: end < hi ? keyOf(dataset, day, end - 1) : null };
}

function isEveryField(dataset: Dataset, fields: readonly number[]): boolean {
  return fields.length === SCHEMAS[dataset].fields.length && fields.every((f, i) => f === i);
}

/**
 * Rows [first, end) of the day for `fields`, serialised. Only those rows are turned into the
 * reader's forms (time text, code letters): this runs per request.
 */
function serialized(dataset: Dataset, tradedate: string, day: LiveSymbolDay, fields: readonly number[], first: number, end: number): SerializedRows {
  const rows = end - first;
  const page = columnsAsRead({
    dataset,
    symbol: day.symbol,
    tradedate,
    rows,
    timesMs: day.timesMs.subarray(first, end),
    values: day.values.map((v) => v.subarray(first, end)),
  });
  return serializeRows(
    fields.map((f) => page[f]!),
    0,
    rows,
    rows * (ROW_BYTES[dataset] ?? 340),
  );
}

/**
 * A chunk of kept text smaller than this is made again with the new rows rather than followed
 * by another: polls add a few rows at a time, and a page of thousands of one-row pieces would
 * cost more to write than the text saves.
 */
const SMALL_CHUNK_BYTES = 64 << 10;

/**
 * Rows [first, end) for every field, from the text kept with the day's rows (stagingTail.ts):
 * rows only grow at the end while the text is kept, so what was serialised stays right, and a
 * request serialises only the rows new since the last (a whole day's rows at first).
 */
function textOf(dataset: Dataset, tradedate: string, day: LiveSymbolDay, first: number, end: number): Buffer[] {
  const text = day.text;
  if (text.rows < day.rows) {
    const last = text.chunks[text.chunks.length - 1];
    const from = last !== undefined && last.bytes.length < SMALL_CHUNK_BYTES ? last.first : text.rows;
    if (from < text.rows) text.chunks.pop();
    const made = serialized(
      dataset,
      tradedate,
      day,
      SCHEMAS[dataset].fields.map((_, i) => i),
      from,
      day.rows,
    );
    text.chunks.push({ first: from, bytes: made.bytes, offsets: made.offsets });
    text.rows = day.rows;
  }
  const pieces: Buffer[] = [];
  for (const c of text.chunks) {
    const a = Math.max(first, c.first);
    const b = Math.min(end, c.first + c.offsets.length - 1);
    if (a >= b) continue;
    if (pieces.length > 0) pieces.push(COMMA);
    pieces.push(sliceRows(c, a - c.first, b - c.first));
  }
  return pieces;
}

const COMMA = Buffer.from(',');

/**
 * Where a live cursor continues once its day is sealed: the first row of the file after the
 * key (the sealed file holds the same rows in the same order, and any later ones).
 */
export async function filePositionAfter(cache: FileColumnCache, file: CatalogFile, after: LiveKey): Promise<number> {
  const starts = minuteStarts(file.minuteIndex);
  const lookup = spanTimeLookup(cache, file);
  const sameTime = await firstRowAtOrAfter(file, starts, after.timeMs, lookup);
  const later = await firstRowAtOrAfter(file, starts, after.timeMs + 1, lookup);
  const schema = SCHEMAS[file.dataset];
  if (schema.idValue === null || sameTime === later) return later;
  // Trades and orders: several rows may share the time; they are in id order.
  const idColumn = schema.position.get(schema.valueFields[schema.idValue]!.name)!;
  const groups = groupsOf({ lo: sameTime, hi: later }, file.rowGroupSize);
  const decoded = await cache.rowGroups(file, groups, [idColumn]);
  for (let row = sameTime; row < later; row++) {
    const g = Math.floor(row / file.rowGroupSize);
    const col = decoded[groups.indexOf(g)]!.get(idColumn)!;
    if (col.kind === 'number' && col.values[row - g * file.rowGroupSize]! > after.id) return row;
  }
  return later;
}
