/**
 * The generated market straight into staging: the rows a replay of `generate`'s feed would
 * stage, without writing JSON text and parsing it back (the demo's first start: that text is
 * most of generating and replaying). Sealing is the caller's next step, as after a replay.
 */
import type { Dataset } from '../../shared/schema.js';
import { RecordPacker } from '../../storage/staging/recordCodec.js';
import type { Staging } from '../staging/segments.js';
import { generateRows, type GenerateOptions, type MarketRowSink } from './generate.js';

export interface GeneratedRows {
  readonly rows: number;
  readonly perDataset: Readonly<Record<Dataset, number>>;
  /** `dataset|tradedate` of every day with rows. */
  readonly days: ReadonlySet<string>;
}

/** Rows handed to staging at once: bounded memory, few calls. */
const BATCH_ROWS = 50_000;

export async function generateIntoStaging(opts: GenerateOptions, staging: Staging, onRows?: (rows: number) => void): Promise<GeneratedRows> {
  const packer = new RecordPacker();
  const perDataset: Record<Dataset, number> = { level2: 0, index: 0, trade: 0, order: 0 };
  const days = new Set<string>();
  let rows = 0;
  const stage = () => {
    const packs = packer.take();
    for (const p of packs) days.add(`${p.dataset}|${p.tradedate}`);
    // Like a replay's batches: re-runnable, so only appended; commitAppended() below makes
    // them durable, then visible.
    staging.stagePacks(packs, [], { sync: false });
  };
  const add = (dataset: Dataset) => (symbol: string, date: string, timeMs: number, values: Float64Array) => {
    packer.addValues(dataset, date, symbol, timeMs, values);
    perDataset[dataset]++;
  };
  const sink: MarketRowSink = {
    level2: add('level2'),
    index: add('index'),
    trade: add('trade'),
    order: add('order'),
    slotDone() {
      if (packer.size < BATCH_ROWS) return;
      rows += packer.size;
      stage();
      onRows?.(rows);
    },
  };
  generateRows(opts, sink);
  rows += packer.size;
  stage();
  await staging.commitAppended();
  onRows?.(rows);
  return { rows, perDataset, days };
}
